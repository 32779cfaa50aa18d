package database

import (
	"bytes"
	"context"
	"slices"

	"github.com/ncruces/go-sqlite3"
)

// SQLite's instr, replace and the trim, ltrim and rtrim of two arguments
// run within one step of the statement, like LIKE (sqlite_like.go), and
// cost up to the length of the string times that of the other argument:
// instr and replace compare the pattern at each byte, trim compares each
// character of its set at each character it removes. Over 1 MiB with 10
// KB, instr and replace ran 1 s past a deadline of 100 ms, rtrim over 64
// KiB with a set of 1 KB 3 s, and the time grows with the product. The host defines them on each
// connection instead, with SQLite's answers (func.c's instrFunc,
// replaceFunc, trimFunc): instr and replace find the pattern with Go's
// bytes.Index, linear in the string, in windows between which they look
// at the statement's interrupt; trim looks at it as it goes.

// searchWindow is how many bytes of a string instr and replace search
// between two looks at the statement's interrupt (at least the length of
// the pattern, so that a search stays linear).
const searchWindow = 1 << 20

// sqliteMemory is the most memory a connection's SQLite has (go-sqlite3
// gives each a linear memory of 256 MiB at most): a result larger than it
// cannot be handed to SQLite, which runs out of memory on it as it would
// building it itself.
const sqliteMemory = 256 << 20

// defineStringFuncs defines instr(), replace() and trim(), ltrim() and
// rtrim() of two arguments on c.
func (c *sqliteConn) defineStringFuncs() error {
	const flags = sqlite3.DETERMINISTIC | sqlite3.INNOCUOUS
	length := c.conn.Limit(sqlite3.LIMIT_LENGTH, -1)
	if err := c.conn.CreateFunction("instr", 2, flags, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
		c.instrFunc(ctx, arg)
	}); err != nil {
		return err
	}
	if err := c.conn.CreateFunction("replace", 3, flags, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
		c.replaceFunc(ctx, length, arg)
	}); err != nil {
		return err
	}
	for name, sides := range map[string]int{"ltrim": trimLeft, "rtrim": trimRight, "trim": trimLeft | trimRight} {
		if err := c.conn.CreateFunction(name, 2, flags, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
			c.trimFunc(ctx, sides, arg)
		}); err != nil {
			return err
		}
	}
	return nil
}

// valueBytes is v's bytes as SQLite's instr reads them: a blob's own,
// anything else's text.
func valueBytes(v sqlite3.Value) []byte {
	if v.Type() == sqlite3.BLOB {
		return v.RawBlob()
	}
	return v.RawText()
}

// index is the index of the first sep in s at or after from, or -1;
// stopped reports that stop ended the search first.
func index(stop context.Context, s, sep []byte, from int) (i int, stopped bool) {
	window := max(searchWindow, len(sep))
	for from+len(sep) <= len(s) {
		end := min(len(s), from+window+len(sep)-1)
		if k := bytes.Index(s[from:end], sep); k >= 0 {
			return from + k, false
		}
		from = end - len(sep) + 1
		if stop != nil && stop.Err() != nil {
			return -1, true
		}
	}
	return -1, false
}

// instrFunc is SQLite's instrFunc: the position of the first arg[1] in
// arg[0], from 1, 0 if there is none; in bytes if both are blobs, in
// characters otherwise, where SQLite looks for it only where a character
// starts (and at the first byte).
func (c *sqliteConn) instrFunc(ctx sqlite3.Context, arg []sqlite3.Value) {
	if arg[0].Type() == sqlite3.NULL || arg[1].Type() == sqlite3.NULL {
		return
	}
	blob := arg[0].Type() == sqlite3.BLOB && arg[1].Type() == sqlite3.BLOB
	needle := valueBytes(arg[1])
	haystack := valueBytes(arg[0])
	if len(needle) == 0 {
		ctx.ResultInt(1)
		return
	}
	var at int
	if !blob && needle[0]&0xc0 == 0x80 {
		// A needle that starts inside a character: only the first byte
		// is a place SQLite tries that does.
		at = -1
		if bytes.HasPrefix(haystack, needle) {
			at = 0
		}
	} else {
		var stopped bool
		if at, stopped = index(c.conn.GetInterrupt(), haystack, needle, 0); stopped {
			ctx.ResultError(sqlite3.INTERRUPT)
			return
		}
	}
	switch {
	case at < 0:
		ctx.ResultInt(0)
	case blob:
		ctx.ResultInt(at + 1)
	default:
		n := 1
		for _, b := range haystack[1 : at+1] {
			if b&0xc0 != 0x80 {
				n++
			}
		}
		ctx.ResultInt(n)
	}
}

// replaceFunc is SQLite's replaceFunc: arg[0]'s text with each arg[1]
// in it, left to right, replaced by arg[2]; a result longer than length
// bytes is too big. The result's length is known before it is built
// (counted first when arg[2] is the longer), so that one SQLite could not
// hold (sqliteMemory, with arg[0] in it) fails without building it: built
// as it went, a result of 1 MiB of 'a' with each 'a' replaced by 1000
// bytes took 1.3 GB of Go's memory and 5 s, past any deadline, before it
// was found too large. Building it looks at the statement's interrupt
// every searchWindow bytes of arg[0].
func (c *sqliteConn) replaceFunc(ctx sqlite3.Context, length int, arg []sqlite3.Value) {
	str := arg[0].RawText()
	if str == nil {
		return
	}
	pattern := arg[1].RawText()
	if pattern == nil {
		return
	}
	if len(pattern) == 0 || pattern[0] == 0 {
		ctx.ResultRawText(str)
		return
	}
	rep := arg[2].RawText()
	if rep == nil {
		return
	}
	if len(str)+1 > length {
		ctx.ResultError(sqlite3.TOOBIG)
		return
	}
	stop := c.conn.GetInterrupt()
	size := len(str)
	if len(rep) > len(pattern) {
		n, stopped := count(stop, str, pattern)
		if stopped {
			ctx.ResultError(sqlite3.INTERRUPT)
			return
		}
		total := int64(len(str)) + int64(n)*int64(len(rep)-len(pattern))
		switch {
		case total > int64(length) && length <= sqliteMemory:
			ctx.ResultError(sqlite3.TOOBIG)
			return
		case total+int64(len(str)) > sqliteMemory:
			ctx.ResultError(sqlite3.NOMEM)
			return
		case total > int64(length):
			ctx.ResultError(sqlite3.TOOBIG)
			return
		}
		size = int(total)
	}
	var out []byte
	from, checked := 0, 0
	for {
		if from-checked >= searchWindow {
			if checked = from; stop != nil && stop.Err() != nil {
				ctx.ResultError(sqlite3.INTERRUPT)
				return
			}
		}
		at, stopped := index(stop, str, pattern, from)
		if stopped {
			ctx.ResultError(sqlite3.INTERRUPT)
			return
		}
		if at < 0 {
			break
		}
		if out == nil {
			out = make([]byte, 0, size)
		}
		out = append(out, str[from:at]...)
		out = append(out, rep...)
		from = at + len(pattern)
	}
	if out == nil {
		ctx.ResultRawText(str)
		return
	}
	ctx.ResultRawText(append(out, str[from:]...))
}

// count is how many times sep is in s, left to right without overlap, as
// replace finds it; stopped reports that stop ended the count first. It
// looks at stop every searchWindow bytes of s, found or not.
func count(stop context.Context, s, sep []byte) (n int, stopped bool) {
	from, checked := 0, 0
	for {
		if from-checked >= searchWindow {
			if checked = from; stop != nil && stop.Err() != nil {
				return 0, true
			}
		}
		at, stopped := index(stop, s, sep, from)
		if stopped {
			return 0, true
		}
		if at < 0 {
			return n, false
		}
		n++
		from = at + len(sep)
	}
}

// The sides trimFunc trims.
const (
	trimLeft = 1 << iota
	trimRight
)

// trimFunc is SQLite's trimFunc of two arguments: arg[0]'s text without
// the characters of arg[1] (up to its first NUL) on the sides given.
// Where several characters of the set match, the first in the set is
// the one removed (a byte that starts a character of several bytes may
// also be one alone).
func (c *sqliteConn) trimFunc(ctx sqlite3.Context, sides int, arg []sqlite3.Value) {
	if arg[0].Type() == sqlite3.NULL {
		return
	}
	in := arg[0].RawText()
	if in == nil {
		return
	}
	set := arg[1].RawText()
	if set == nil {
		return
	}
	lo, hi, stopped := trimSpan(in, cString(set), sides, &work{stop: c.conn.GetInterrupt()})
	if stopped {
		ctx.ResultError(sqlite3.INTERRUPT)
		return
	}
	ctx.ResultRawText(in[lo:hi])
}

// trimSpan is the part of in, from lo to hi, that trimFunc leaves of it
// with the characters of set on the sides given; stopped reports that
// w's interrupt stopped it first.
func trimSpan(in, set []byte, sides int, w *work) (lo, hi int, stopped bool) {
	if len(set) == 0 {
		return 0, len(in), false
	}
	if len(set) <= trimSmallSet {
		return trimSpanSmall(in, set, sides, w)
	}
	// The characters of the set with their place in the set, by their
	// first byte (a byte below 0xc0 is a character of its own), each
	// once while a first byte has up to trimDedupe of them: a character
	// again later in the set never matches first, so keeping it costs
	// only time, and looking for it in a list of any length cost the
	// square of the set (a set of 50000 characters of 4 bytes, all
	// starting 0xf0, took 42 s, past any deadline).
	var byFirst [256][]trimChar
	for i, place := 0, 0; i < len(set); place++ {
		next := skipUTF8(set, i)
		ch := set[i:next]
		list := byFirst[ch[0]]
		if w.spend(len(ch) * (1 + min(len(list), trimDedupe))) {
			return 0, 0, true
		}
		if len(list) >= trimDedupe || !slices.ContainsFunc(list, func(t trimChar) bool { return bytes.Equal(t.b, ch) }) {
			byFirst[ch[0]] = append(list, trimChar{ch, place})
		}
		i = next
	}
	lo, hi = 0, len(in)
	if sides&trimLeft != 0 {
		for lo < hi {
			// Those that start the string all start with its first byte,
			// and the first of them in the set is first in the list.
			n := 0
			for _, ch := range byFirst[in[lo]] {
				if w.spend(len(ch.b)) {
					return 0, 0, true
				}
				if bytes.HasPrefix(in[lo:hi], ch.b) {
					n = len(ch.b)
					break
				}
			}
			if n == 0 {
				break
			}
			lo += n
		}
	}
	if sides&trimRight != 0 {
		for lo < hi {
			// Those that end the string start at its last byte, or at a
			// byte before it followed by continuation bytes only: the
			// first of them in the set is the one removed.
			n, first := 0, len(set)
			for start := hi - 1; start >= lo; start-- {
				if w.spend(1) {
					return 0, 0, true
				}
				for _, ch := range byFirst[in[start]] {
					if w.spend(len(ch.b)) {
						return 0, 0, true
					}
					if ch.place < first && bytes.Equal(in[start:hi], ch.b) {
						n, first = len(ch.b), ch.place
					}
				}
				if in[start]&0xc0 != 0x80 {
					break
				}
			}
			if n == 0 {
				break
			}
			hi -= n
		}
	}
	return lo, hi, false
}

// trimDedupe is how many characters of trim's set with one first byte
// trimSpan keeps each once; those after them it keeps as they come.
const trimDedupe = 16

// trimSmallSet is the most bytes of a set trimSpan compares character by
// character, as SQLite does, rather than through an index of the set it
// builds first.
const trimSmallSet = 16

// trimSpanSmall is trimSpan of a set of up to trimSmallSet bytes:
// SQLite's loops, each character of the set compared in turn.
func trimSpanSmall(in, set []byte, sides int, w *work) (lo, hi int, stopped bool) {
	var chars [trimSmallSet][]byte
	n := 0
	for i := 0; i < len(set); n++ {
		next := skipUTF8(set, i)
		chars[n] = set[i:next]
		i = next
	}
	lo, hi = 0, len(in)
	if sides&trimLeft != 0 {
	left:
		for lo < hi {
			if w.spend(n) {
				return 0, 0, true
			}
			for _, ch := range chars[:n] {
				if bytes.HasPrefix(in[lo:hi], ch) {
					lo += len(ch)
					continue left
				}
			}
			break
		}
	}
	if sides&trimRight != 0 {
	right:
		for lo < hi {
			if w.spend(n) {
				return 0, 0, true
			}
			for _, ch := range chars[:n] {
				if bytes.HasSuffix(in[lo:hi], ch) {
					hi -= len(ch)
					continue right
				}
			}
			break
		}
	}
	return lo, hi, false
}

// trimChar is a character of trim's set and its place in the set.
type trimChar struct {
	b     []byte
	place int
}

// work counts the work of one call of a host function, and looks at the
// statement's interrupt every likeCheckEvery units.
type work struct {
	stop context.Context
	n    int
}

// spend counts n units of work, and reports whether the statement's
// interrupt stopped the call.
func (w *work) spend(n int) bool {
	w.n += n
	if w.n < likeCheckEvery {
		return false
	}
	w.n = 0
	return w.stop != nil && w.stop.Err() != nil
}
