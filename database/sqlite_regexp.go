package database

import (
	"bytes"
	"errors"

	"github.com/ncruces/go-sqlite3"
)

// REGEXP on SQLite is the regexp() and regexpi() of SQLite's extension
// ext/misc/regexp.c, which the driver builds in: a pattern compiled to a
// machine of states, run over the string a character at a time with all
// the states it is in. That is linear in the string but costs the states
// at each character (and SQLite's set of states is a list, so up to their
// square): a pattern of 1 KB over 64 KiB ran 3 minutes past a deadline of
// 100 ms, within one step of the statement. The host defines regexp() and
// regexpi() on each connection instead: the same compilation, op for op
// and with the same errors, and the same machine, its set of states
// marked so that each character costs the states at most, and the
// statement's interrupt looked at every likeCheckEvery states.

// The ops of the machine, regexp.c's RE_OP_*.
const (
	reMatch    = 1 + iota // the character in arg
	reAny                 // any character (".")
	reAnyStar             // ".*"
	reFork                // go on at both the next op and arg ops on
	reGoto                // go on arg ops on
	reAccept              // match
	reCCInc               // "[...]", of arg ops
	reCCExc               // "[^...]", of arg ops
	reCCValue             // one character of a class
	reCCRange             // a range of a class: two ops
	reWord                // "\w"
	reNotWord             // "\W"
	reDigit               // "\d"
	reNotDigit            // "\D"
	reSpace               // "\s"
	reNotSpace            // "\S"
	reBoundary            // "\b"
	reAtStart             // "^" not first
)

const (
	reEOF   = 0         // the end of the string
	reStart = 0xfffffff // before the string: above any character
)

// reInput is a text read a character at a time.
type reInput struct {
	z  []byte
	i  int
	mx int
}

// next is regexp.c's re_next_char: the character at i, 0 at the end,
// U+FFFD for bytes that are not UTF-8 (read as regexp.c reads them, not
// as the rest of SQLite does).
func (p *reInput) next() int {
	if p.i >= p.mx {
		return 0
	}
	c := int(p.z[p.i])
	p.i++
	if c < 0x80 {
		return c
	}
	z, i := p.z, p.i
	switch {
	case c&0xe0 == 0xc0 && i < p.mx && z[i]&0xc0 == 0x80:
		c = (c&0x1f)<<6 | int(z[i]&0x3f)
		p.i++
		if c < 0x80 {
			c = 0xfffd
		}
	case c&0xf0 == 0xe0 && i+1 < p.mx && z[i]&0xc0 == 0x80 && z[i+1]&0xc0 == 0x80:
		c = (c&0x0f)<<12 | int(z[i]&0x3f)<<6 | int(z[i+1]&0x3f)
		p.i += 2
		if c <= 0x7ff || (c >= 0xd800 && c <= 0xdfff) {
			c = 0xfffd
		}
	case c&0xf8 == 0xf0 && i+2 < p.mx && z[i]&0xc0 == 0x80 && z[i+1]&0xc0 == 0x80 && z[i+2]&0xc0 == 0x80:
		c = (c&0x07)<<18 | int(z[i]&0x3f)<<12 | int(z[i+1]&0x3f)<<6 | int(z[i+2]&0x3f)
		p.i += 3
		if c <= 0xffff || c > 0x10ffff {
			c = 0xfffd
		}
	default:
		c = 0xfffd
	}
	return c
}

// reProgram is a compiled pattern, regexp.c's ReCompiled.
type reProgram struct {
	in     reInput
	err    string
	op     []byte
	arg    []int
	noCase bool
	init   []byte // what a match must start with, if anything
	sets   *[2]reStates
	alloc  int // regexp.c's nAlloc: its limit counts the slots it allocated
	max    int // the most slots
}

// nextChar is the pattern's next character, ASCII letters in lower case
// for regexpi.
func (p *reProgram) nextChar(in *reInput) int {
	c := in.next()
	if p.noCase && c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}

func reWordChar(c int) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
}

func reDigitChar(c int) bool { return c >= '0' && c <= '9' }

func reSpaceChar(c int) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// reStates is a set of states: its list, and each state's mark.
type reStates struct {
	list []int
	mark []uint32
	gen  uint32
}

func (s *reStates) reset() {
	s.list = s.list[:0]
	s.gen++
}

func (s *reStates) add(x int) {
	if s.mark[x] != s.gen {
		s.mark[x] = s.gen
		s.list = append(s.list, x)
	}
}

// match is regexp.c's re_match of the string z: whether the pattern
// matches in it; stopped reports that w's interrupt stopped it first.
func (p *reProgram) match(z []byte, w *work) (matched, stopped bool) {
	in := reInput{z: z, mx: len(z)}
	c, cPrev := reStart, 0
	if len(p.init) > 0 {
		i := bytes.Index(z, p.init)
		if i < 0 {
			return false, false
		}
		in.i = i
		c = reStart - 1
	}
	if p.sets == nil {
		n := len(p.op)
		p.sets = &[2]reStates{{mark: make([]uint32, n)}, {mark: make([]uint32, n)}}
	}
	sets := p.sets
	next := &sets[1]
	next.reset()
	next.add(0)
	swap := 0
	for c != reEOF && len(next.list) > 0 {
		cPrev = c
		c = p.nextChar(&in)
		this := next
		next = &sets[swap]
		swap = 1 - swap
		next.reset()
		for i := 0; i < len(this.list); i++ {
			if w.spend(1) {
				return false, true
			}
			x := this.list[i]
			switch p.op[x] {
			case reMatch:
				if p.arg[x] == c {
					next.add(x + 1)
				}
			case reAtStart:
				if cPrev == reStart {
					this.add(x + 1)
				}
			case reAny:
				if c != 0 {
					next.add(x + 1)
				}
			case reWord:
				if reWordChar(c) {
					next.add(x + 1)
				}
			case reNotWord:
				if !reWordChar(c) && c != 0 {
					next.add(x + 1)
				}
			case reDigit:
				if reDigitChar(c) {
					next.add(x + 1)
				}
			case reNotDigit:
				if !reDigitChar(c) && c != 0 {
					next.add(x + 1)
				}
			case reSpace:
				if reSpaceChar(c) {
					next.add(x + 1)
				}
			case reNotSpace:
				if !reSpaceChar(c) && c != 0 {
					next.add(x + 1)
				}
			case reBoundary:
				if reWordChar(c) != reWordChar(cPrev) {
					this.add(x + 1)
				}
			case reAnyStar:
				next.add(x)
				this.add(x + 1)
			case reFork:
				this.add(x + p.arg[x])
				this.add(x + 1)
			case reGoto:
				this.add(x + p.arg[x])
			case reAccept:
				return true, false
			case reCCExc, reCCInc:
				if p.op[x] == reCCExc && c == 0 {
					break
				}
				hit := false
				m := p.arg[x]
				for j := 1; j > 0 && j < m; j++ {
					if p.op[x+j] == reCCValue {
						if p.arg[x+j] == c {
							hit, j = true, -1
						}
					} else if p.arg[x+j] <= c && p.arg[x+j+1] >= c {
						hit, j = true, -1
					} else {
						j++
					}
				}
				if p.op[x] == reCCExc {
					hit = !hit
				}
				if hit {
					next.add(x + m)
				}
			}
		}
	}
	for _, x := range next.list {
		for p.op[x] == reGoto {
			x += p.arg[x]
		}
		if p.op[x] == reAccept {
			return true, false
		}
	}
	return false, false
}

// resize is regexp.c's re_resize: room for n ops, unless that is more
// than the limit.
func (p *reProgram) resize(n int) bool {
	if n > p.max {
		p.err = "REGEXP pattern too big"
		return false
	}
	p.alloc = n
	return true
}

// insert is regexp.c's re_insert: op and arg before the op at before.
func (p *reProgram) insert(before int, op byte, arg int) int {
	if p.alloc <= len(p.op) && !p.resize(p.alloc*2) {
		return 0
	}
	p.op = append(p.op, 0)
	p.arg = append(p.arg, 0)
	copy(p.op[before+1:], p.op[before:])
	copy(p.arg[before+1:], p.arg[before:])
	p.op[before] = op
	p.arg[before] = arg
	return before
}

func (p *reProgram) append(op byte, arg int) int {
	return p.insert(len(p.op), op, arg)
}

// copyOps is regexp.c's re_copy: the n ops from start again at the end.
func (p *reProgram) copyOps(start, n int) {
	if len(p.op)+n >= p.alloc && !p.resize(p.alloc*2+n) {
		return
	}
	p.op = append(p.op, p.op[start:start+n]...)
	p.arg = append(p.arg, p.arg[start:start+n]...)
}

// reHex adds the hexadecimal digit c to *v, and reports whether it is
// one.
func reHex(c byte, v *int) bool {
	switch {
	case c >= '0' && c <= '9':
		c -= '0'
	case c >= 'a' && c <= 'f':
		c -= 'a' - 10
	case c >= 'A' && c <= 'F':
		c -= 'A' - 10
	default:
		return false
	}
	*v = *v*16 + int(c)
	return true
}

// escChar is regexp.c's re_esc_char: the character a backslash escapes.
func (p *reProgram) escChar() int {
	const esc = "afnrtv\\()*.+?[$^{|}]-"
	const trans = "\a\f\n\r\t\v"
	in := &p.in
	if in.i >= in.mx {
		return 0
	}
	c := in.z[in.i]
	v := 0
	if c == 'u' && in.i+4 < in.mx {
		z := in.z[in.i:]
		if reHex(z[1], &v) && reHex(z[2], &v) && reHex(z[3], &v) && reHex(z[4], &v) {
			in.i += 5
			return v
		}
	}
	if c == 'x' && in.i+2 < in.mx {
		z := in.z[in.i:]
		if reHex(z[1], &v) && reHex(z[2], &v) {
			in.i += 3
			return v
		}
	}
	if i := bytes.IndexByte([]byte(esc), c); i >= 0 {
		if i < 6 {
			c = trans[i]
		}
		in.i++
	} else {
		p.err = "unknown \\ escape"
	}
	// regexp.c's c is a char, signed: a byte of 0x80 and above comes
	// back negative (and an error).
	return int(int8(c))
}

func (p *reProgram) peek() byte {
	if p.in.i < p.in.mx {
		return p.in.z[p.in.i]
	}
	return 0
}

// subcompileRE is regexp.c's re_subcompile_re: alternatives up to the
// first unmatched ")".
func (p *reProgram) subcompileRE() string {
	start := len(p.op)
	if err := p.subcompileString(); err != "" {
		return err
	}
	for p.peek() == '|' {
		end := len(p.op)
		p.insert(start, reFork, end+2-start)
		gotoAt := p.append(reGoto, 0)
		p.in.i++
		if err := p.subcompileString(); err != "" {
			return err
		}
		p.arg[gotoAt] = len(p.op) - gotoAt
	}
	return ""
}

// subcompileString is regexp.c's re_subcompile_string: an operand of
// "|".
func (p *reProgram) subcompileString() string {
	prev := -1
	for {
		c := p.nextChar(&p.in)
		if c == 0 {
			return ""
		}
		start := len(p.op)
		switch c {
		case '|', ')':
			p.in.i--
			return ""
		case '(':
			if err := p.subcompileRE(); err != "" {
				return err
			}
			if p.peek() != ')' {
				return "unmatched '('"
			}
			p.in.i++
		case '.':
			if p.peek() == '*' {
				p.append(reAnyStar, 0)
				p.in.i++
			} else {
				p.append(reAny, 0)
			}
		case '*':
			if prev < 0 {
				return "'*' without operand"
			}
			p.insert(prev, reGoto, len(p.op)-prev+1)
			p.append(reFork, prev-len(p.op)+1)
		case '+':
			if prev < 0 {
				return "'+' without operand"
			}
			p.append(reFork, prev-len(p.op))
		case '?':
			if prev < 0 {
				return "'?' without operand"
			}
			p.insert(prev, reFork, len(p.op)-prev+1)
		case '$':
			p.append(reMatch, reEOF)
		case '^':
			p.append(reAtStart, 0)
		case '{':
			if prev < 0 {
				return "'{m,n}' without operand"
			}
			var m, n uint32
			var d byte
			for d = p.peek(); d >= '0' && d <= '9'; d = p.peek() {
				m = m*10 + uint32(d-'0')
				if m*2 > uint32(p.max) {
					return "REGEXP pattern too big"
				}
				p.in.i++
			}
			n = m
			if d == ',' {
				p.in.i++
				n = 0
				for d = p.peek(); d >= '0' && d <= '9'; d = p.peek() {
					n = n*10 + uint32(d-'0')
					if n*2 > uint32(p.max) {
						return "REGEXP pattern too big"
					}
					p.in.i++
				}
			}
			if d != '}' {
				return "unmatched '{'"
			}
			if n < m {
				return "n less than m in '{m,n}'"
			}
			p.in.i++
			sz := len(p.op) - prev
			if m == 0 {
				if n == 0 {
					return "both m and n are zero in '{m,n}'"
				}
				p.insert(prev, reFork, sz+1)
				prev++
				n--
			} else {
				for j := uint32(1); j < m; j++ {
					p.copyOps(prev, sz)
				}
			}
			for j := m; j < n; j++ {
				p.append(reFork, sz+1)
				p.copyOps(prev, sz)
			}
			if n == 0 && m > 0 {
				p.append(reFork, -sz)
			}
		case '[':
			first := len(p.op)
			if p.peek() == '^' {
				p.append(reCCExc, 0)
				p.in.i++
			} else {
				p.append(reCCInc, 0)
			}
			for {
				c = p.nextChar(&p.in)
				if c == 0 {
					break
				}
				if c == '[' && p.peek() == ':' {
					return "POSIX character classes not supported"
				}
				if c == '\\' {
					c = p.escChar()
				}
				if p.peek() == '-' {
					p.append(reCCRange, c)
					p.in.i++
					c = p.nextChar(&p.in)
					if c == '\\' {
						c = p.escChar()
					}
					p.append(reCCRange, c)
				} else {
					p.append(reCCValue, c)
				}
				if p.peek() == ']' {
					p.in.i++
					break
				}
			}
			if c == 0 {
				return "unclosed '['"
			}
			if len(p.op) > first {
				p.arg[first] = len(p.op) - first
			}
		case '\\':
			var special byte
			switch p.peek() {
			case 'b':
				special = reBoundary
			case 'd':
				special = reDigit
			case 'D':
				special = reNotDigit
			case 's':
				special = reSpace
			case 'S':
				special = reNotSpace
			case 'w':
				special = reWord
			case 'W':
				special = reNotWord
			}
			if special != 0 {
				p.in.i++
				p.append(special, 0)
			} else {
				p.append(reMatch, p.escChar())
			}
		default:
			p.append(reMatch, c)
		}
		prev = start
	}
}

// reCompile is regexp.c's re_compile of the pattern z (up to its first
// NUL) with at most max ops.
func reCompile(z []byte, max int, noCase bool) (*reProgram, string) {
	p := &reProgram{noCase: noCase, max: max}
	if !p.resize(30) {
		return nil, p.err
	}
	if len(z) > 0 && z[0] == '^' {
		z = z[1:]
	} else {
		p.append(reAnyStar, 0)
	}
	p.in = reInput{z: z, mx: len(z)}
	if err := p.subcompileRE(); err != "" {
		return nil, err
	}
	if p.in.i < p.in.mx {
		return nil, "unrecognized character"
	}
	p.append(reAccept, 0)
	// What a match must start with, when the pattern starts with ".*"
	// and characters: a search finds it before the machine runs.
	if p.op[0] == reAnyStar && !noCase {
		var init []byte
	prefix:
		for i := 1; len(init) < 10 && i < len(p.op) && p.op[i] == reMatch; i++ {
			switch x := p.arg[i]; {
			case x < 0:
				break prefix
			case x <= 0x7f:
				init = append(init, byte(x))
			case x <= 0x7ff:
				init = append(init, byte(0xc0|x>>6), byte(0x80|x&0x3f))
			case x <= 0xffff:
				init = append(init, byte(0xe0|x>>12), byte(0x80|(x>>6)&0x3f), byte(0x80|x&0x3f))
			default:
				break prefix
			}
		}
		if len(init) > 0 && init[len(init)-1] == 0 {
			init = init[:len(init)-1]
		}
		p.init = init
	}
	if p.err != "" {
		return nil, p.err
	}
	p.in = reInput{}
	return p, ""
}

// reMaxOps is regexp.c's re_maxnfa: the most ops of a pattern, by the
// bound on a pattern's length.
func reMaxOps(maxLen int) int { return 75 + maxLen/2 }

// defineRegexp defines regexp() and regexpi() on c.
func (c *sqliteConn) defineRegexp() error {
	const flags = sqlite3.DETERMINISTIC | sqlite3.INNOCUOUS
	// regexp.c's bound on a pattern's length and on its ops.
	maxLen := c.conn.Limit(sqlite3.LIMIT_LIKE_PATTERN_LENGTH, -1)
	maxOps := reMaxOps(maxLen)
	for name, noCase := range map[string]bool{"regexp": false, "regexpi": true} {
		if err := c.conn.CreateFunction(name, 2, flags, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
			c.regexpFunc(ctx, noCase, maxLen, maxOps, arg)
		}); err != nil {
			return err
		}
	}
	return nil
}

// regexpFunc is regexp.c's re_sql_func: whether the pattern arg[0]
// matches in arg[1]. The compiled pattern is kept with the statement for
// the rows after (SQLite's auxiliary data of the argument).
func (c *sqliteConn) regexpFunc(ctx sqlite3.Context, noCase bool, maxLen, maxOps int, arg []sqlite3.Value) {
	p, _ := ctx.GetAuxData(0).(*reProgram)
	set := false
	if p == nil {
		pattern := arg[0].RawText()
		if pattern == nil {
			return
		}
		var err string
		if len(pattern) > maxLen {
			err = "REGEXP pattern too big"
		} else {
			p, err = reCompile(cString(pattern), maxOps, noCase)
		}
		if err != "" {
			ctx.ResultError(errors.New(err))
			return
		}
		set = true
	}
	if s := arg[1].RawText(); s != nil {
		w := work{stop: c.conn.GetInterrupt()}
		matched, stopped := p.match(cString(s), &w)
		if stopped {
			ctx.ResultError(sqlite3.INTERRUPT)
			return
		}
		ctx.ResultBool(matched)
	}
	if set {
		ctx.SetAuxData(0, p)
	}
}
