package database

import (
	"bytes"
	"context"
	"errors"

	"github.com/ncruces/go-sqlite3"
)

// SQLite's LIKE and GLOB are functions of C that the interrupt does not
// reach: SQLite checks it between the steps of a statement's program, and
// a function runs within one step. Their matching costs up to the length
// of the string times that of the pattern (a '%' tries each position of
// the string), and "x LIKE '%' || ? || '%'", the usual search, over a
// value of 1 MiB with a pattern of 10 KB ran 3 minutes past a deadline of
// 100 ms, holding its connection and a core (GLOB too). The host defines
// like(X,Y), like(X,Y,E) and glob(X,Y) on each connection instead: the
// same matching as SQLite's patternCompare (func.c), step for step, which
// looks at the statement's interrupt every likeCheckEvery steps.
//
// Defining like() turns SQLite's LIKE optimization off (a pattern with a
// fixed prefix no longer narrows an index's range): a LIKE or GLOB reads
// every row its other terms leave.

// likeCheckEvery is how many steps of a match run between two looks at
// the statement's interrupt.
const likeCheckEvery = 1 << 12

// likeInfo is the wildcards of LIKE or GLOB, SQLite's compareInfo.
type likeInfo struct {
	matchAll, matchOne, matchSet uint32
	noCase                       bool
}

var (
	likeNorm = likeInfo{matchAll: '%', matchOne: '_', noCase: true}
	globInfo = likeInfo{matchAll: '*', matchOne: '?', matchSet: '['}
)

// The results of patternCompare.
const (
	likeMatch = iota
	likeNoMatch
	likeNoWildcardMatch
	likeStopped
)

// defineLike defines like() and glob() on c.
func (c *sqliteConn) defineLike() error {
	const flags = sqlite3.DETERMINISTIC | sqlite3.INNOCUOUS
	// The connection's bound on a pattern's length, which no guest can
	// change: read once, not at each row.
	limit := c.conn.Limit(sqlite3.LIMIT_LIKE_PATTERN_LENGTH, -1)
	like := func(info likeInfo) sqlite3.ScalarFunction {
		return func(ctx sqlite3.Context, arg ...sqlite3.Value) { c.likeFunc(ctx, info, limit, arg) }
	}
	if err := c.conn.CreateFunction("like", 2, flags, like(likeNorm)); err != nil {
		return err
	}
	if err := c.conn.CreateFunction("like", 3, flags, like(likeNorm)); err != nil {
		return err
	}
	return c.conn.CreateFunction("glob", 2, flags, like(globInfo))
}

// likeFunc is SQLite's likeFunc: arg[0] is the pattern, arg[1] the
// string, arg[2] the escape character; a pattern longer than limit bytes
// is refused.
func (c *sqliteConn) likeFunc(ctx sqlite3.Context, info likeInfo, limit int, arg []sqlite3.Value) {
	if arg[0].Type() != sqlite3.NULL && len(arg[0].RawText()) > limit {
		ctx.ResultError(errors.New("LIKE or GLOB pattern too complex"))
		return
	}
	escape := info.matchSet
	if len(arg) == 3 {
		if arg[2].Type() == sqlite3.NULL {
			return
		}
		esc := cString(arg[2].RawText())
		if utf8CharLen(esc) != 1 {
			ctx.ResultError(errors.New("ESCAPE expression must be a single character"))
			return
		}
		escape, _ = utf8Read(esc, 0)
		if escape == info.matchAll {
			info.matchAll = 0
		}
		if escape == info.matchOne {
			info.matchOne = 0
		}
	}
	if arg[0].Type() == sqlite3.NULL || arg[1].Type() == sqlite3.NULL {
		return
	}
	m := matcher{info: info, escape: escape, stop: c.conn.GetInterrupt()}
	switch m.compare(cString(arg[0].RawText()), 0, cString(arg[1].RawText()), 0) {
	case likeStopped:
		ctx.ResultError(sqlite3.INTERRUPT)
	case likeMatch:
		ctx.ResultInt(1)
	default:
		ctx.ResultInt(0)
	}
}

// cString is b up to its first NUL byte, as SQLite's C code reads a text.
func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// matcher is one match: the wildcards, the escape character (or '[' of
// GLOB: matchOther), and the steps it took.
type matcher struct {
	info   likeInfo
	escape uint32
	stop   context.Context
	steps  int
}

// step counts a step, and reports whether the statement's interrupt
// stopped the match.
func (m *matcher) step() bool {
	m.steps++
	return m.steps%likeCheckEvery == 0 && m.stop != nil && m.stop.Err() != nil
}

// compare is SQLite's patternCompare of the pattern p from pi against
// the string s from si.
func (m *matcher) compare(p []byte, pi int, s []byte, si int) int {
	matchAll, matchOne, matchOther := m.info.matchAll, m.info.matchOne, m.escape
	escaped := -1
	for {
		if m.step() {
			return likeStopped
		}
		c, next := utf8Read(p, pi)
		if c == 0 {
			break
		}
		pi = next
		if c == matchAll {
			// Multiple "*" and "?" after it: each "?" takes a character.
			for {
				c, pi = utf8Read(p, pi)
				if c != matchAll && (c != matchOne || matchOne == 0) {
					break
				}
				if c == matchOne {
					var c2 uint32
					if c2, si = utf8Read(s, si); c2 == 0 {
						return likeNoWildcardMatch
					}
				}
			}
			if c == 0 {
				return likeMatch
			}
			if c == matchOther {
				if m.info.matchSet == 0 {
					if c, pi = utf8Read(p, pi); c == 0 {
						return likeNoWildcardMatch
					}
				} else {
					// "[...]" right after the "*".
					start := pi - 1
					for si < len(s) {
						if r := m.compare(p, start, s, si); r != likeNoMatch {
							return r
						}
						si = skipUTF8(s, si)
					}
					return likeNoWildcardMatch
				}
			}
			if c < 0x80 {
				lo, up := c, c
				if m.info.noCase {
					lo, up = uint32(toLower(byte(c))), uint32(toUpper(byte(c)))
				}
				for ; si < len(s); si++ {
					if m.step() {
						return likeStopped
					}
					if b := uint32(s[si]); b != lo && b != up {
						continue
					}
					if r := m.compare(p, pi, s, si+1); r != likeNoMatch {
						return r
					}
				}
			} else {
				for si < len(s) {
					if m.step() {
						return likeStopped
					}
					var c2 uint32
					c2, si = utf8Read(s, si)
					if c2 != c {
						continue
					}
					if r := m.compare(p, pi, s, si); r != likeNoMatch {
						return r
					}
				}
			}
			return likeNoWildcardMatch
		}
		if c == matchOther {
			if m.info.matchSet == 0 {
				if c, pi = utf8Read(p, pi); c == 0 {
					return likeNoMatch
				}
				escaped = pi
			} else {
				var prior, c2 uint32
				seen, invert := false, false
				if c, si = utf8Read(s, si); c == 0 {
					return likeNoMatch
				}
				c2, pi = utf8Read(p, pi)
				if c2 == '^' {
					invert = true
					c2, pi = utf8Read(p, pi)
				}
				if c2 == ']' {
					if c == ']' {
						seen = true
					}
					c2, pi = utf8Read(p, pi)
				}
				for c2 != 0 && c2 != ']' {
					if m.step() {
						return likeStopped
					}
					if c2 == '-' && pi < len(p) && p[pi] != ']' && prior > 0 {
						c2, pi = utf8Read(p, pi)
						if c >= prior && c <= c2 {
							seen = true
						}
						prior = 0
					} else {
						if c == c2 {
							seen = true
						}
						prior = c2
					}
					c2, pi = utf8Read(p, pi)
				}
				if c2 == 0 || seen == invert {
					return likeNoMatch
				}
				continue
			}
		}
		var c2 uint32
		c2, si = utf8Read(s, si)
		if c == c2 {
			continue
		}
		if m.info.noCase && c < 0x80 && c2 < 0x80 && toLower(byte(c)) == toLower(byte(c2)) {
			continue
		}
		if c == matchOne && pi != escaped && c2 != 0 {
			continue
		}
		return likeNoMatch
	}
	if si >= len(s) {
		return likeMatch
	}
	return likeNoMatch
}

// utf8Read is SQLite's sqlite3Utf8Read of b at i: the character there
// and the index after it, 0 at the end. Bytes that are not UTF-8 read as
// SQLite reads them: a stray continuation byte as itself, a lead byte
// with all the continuation bytes after it, an overlong form, a
// surrogate and U+FFFE and U+FFFF as U+FFFD.
func utf8Read(b []byte, i int) (uint32, int) {
	if i >= len(b) {
		return 0, i
	}
	c := uint32(b[i])
	i++
	if c < 0xc0 {
		return c, i
	}
	c = uint32(utf8Trans1[c-0xc0])
	for i < len(b) && b[i]&0xc0 == 0x80 {
		c = c<<6 + uint32(b[i]&0x3f)
		i++
	}
	if c < 0x80 || c&0xfffff800 == 0xd800 || c&0xfffffffe == 0xfffe {
		c = 0xfffd
	}
	return c, i
}

// utf8Trans1 is SQLite's sqlite3Utf8Trans1: the bits of a lead byte
// 0xc0 and above.
var utf8Trans1 = [64]byte{
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x00, 0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
}

// skipUTF8 is SQLite's SQLITE_SKIP_UTF8: the index after the character
// of b at i.
func skipUTF8(b []byte, i int) int {
	i++
	if b[i-1] >= 0xc0 {
		for i < len(b) && b[i]&0xc0 == 0x80 {
			i++
		}
	}
	return i
}

// utf8CharLen is SQLite's sqlite3Utf8CharLen of b: its characters.
func utf8CharLen(b []byte) int {
	n := 0
	for i := 0; i < len(b); i = skipUTF8(b, i) {
		n++
	}
	return n
}

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func toUpper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
