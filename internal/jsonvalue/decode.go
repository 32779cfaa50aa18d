package jsonvalue

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// DefaultMaxDepth is the nesting depth Decode accepts when Limits.MaxDepth
// is zero: 32 levels of arrays and objects. Validating against a recursive
// schema costs about the square of the depth per value, so the default
// keeps the cost of one value within a few microseconds.
const DefaultMaxDepth = 32

// MaxDepthLimit is the largest Limits.MaxDepth that takes effect: the
// tokenizer (jsontext) refuses deeper nesting itself.
const MaxDepthLimit = 10000

// Limits bound what Decode accepts beyond the JSON grammar.
type Limits struct {
	// MaxDepth is the deepest nesting of arrays and objects Decode accepts.
	// With MaxDepth 1, [1] and {"a":1} pass but [[1]] and {"a":{}} do not;
	// scalars add no depth. If zero or negative, DefaultMaxDepth is used;
	// values above MaxDepthLimit act as MaxDepthLimit.
	//
	// The limit also bounds the work of validating the value: a validator
	// walking a recursive schema may cost more than linear time in the
	// depth.
	MaxDepth int
	// MaxValues is the most values (objects, arrays, strings, numbers,
	// booleans and nulls; member names do not count) Decode accepts. The
	// validator spends up to about a microsecond on each, so the bound is
	// what keeps a body of a megabyte from costing the host much more than
	// its size suggests. If zero or negative, DefaultMaxValues is used.
	MaxValues int
}

// DefaultMaxValues is the number of values Decode accepts when
// Limits.MaxValues is zero.
const DefaultMaxValues = 4096

// Error is a JSON text Decode refuses: where and why, in words for the
// API client who sent it.
//
//	{"Offset": 9, "Pointer": "/name", "Path": ["name"],
//	 "Message": "invalid JSON at byte 9: invalid UTF-8 in a string: byte \\xe2; send text encoded as UTF-8"}
type Error struct {
	// Offset is the byte of the input where the problem is: the offending
	// byte, or the length of the input when it ends too soon.
	Offset int
	// Pointer is the RFC 6901 JSON Pointer of the value where decoding
	// failed: the value being read, or the object or array whose
	// punctuation is wrong; "" for the root.
	Pointer string
	// Path is Pointer as the host's validation issues write paths:
	// property names as strings, array indexes as ints; empty (not nil)
	// for the root.
	Path []any
	// Message says what is wrong and what to send instead; it starts with
	// "invalid JSON at byte N: ".
	Message string

	err      error // ErrRange for numbers out of range
	fallback bool  // the message is the tokenizer's, not ours (tests look for it)
}

// Error returns Message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns ErrRange for a number out of range, else nil.
func (e *Error) Unwrap() error { return e.err }

// Decode parses one JSON value, and nothing after it but whitespace, into
// the types jsonschema/v6 validates: map[string]any, []any, string, bool,
// nil and json.Number (encoding/json's) in canonical form
// (CanonicalNumber). canonical reports whether every number of data was
// written canonically already, so a caller may hand data on as it is:
// data then means exactly the value decoded, since duplicate names and
// invalid strings are refused.
//
// Any failure is an *Error: a byte order mark, a syntax error, a duplicate
// member name, invalid UTF-8 or a lone surrogate escape in a string,
// nesting deeper than lim.MaxDepth, or a number out of range
// (errors.Is(err, ErrRange)).
//
// # Notes
//
//   - Members of an object are checked for duplicates by their decoded
//     names, so {"a":1,"\u0061":2} is refused too.
//   - The cost is linear in len(data); a number's exponent is bounded
//     before any arithmetic, so 1e999999999 is refused at once.
//   - Safe for concurrent use; the values returned share nothing with data
//     or with other calls.
func Decode(data []byte, lim Limits) (v any, canonical bool, err error) {
	if bytes.HasPrefix(data, bom) {
		return nil, false, &Error{Path: []any{}, Message: "invalid JSON at byte 0: a UTF-8 byte order mark (U+FEFF) must not precede JSON; send the JSON without it"}
	}
	d := decoders.Get().(*decoder)
	d.reset(data, lim)
	v, err = d.run()
	canonical = d.canonical
	d.release()
	if err != nil {
		return nil, false, err
	}
	return v, canonical, nil
}

var bom = []byte("\xef\xbb\xbf")

// allowDuplicates turns off jsontext's check: the decoder finds duplicates
// itself, for free, as it fills each map.
var allowDuplicates = jsontext.AllowDuplicateNames(true)

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// decoder is the state of one Decode call; it is pooled, and owned by one
// call at a time.
type decoder struct {
	dec       jsontext.Decoder
	buf       bytes.Buffer // aliases data: jsontext reads a bytes.Buffer without copying
	data      []byte
	max       int
	maxValues int
	values    int // read so far
	canonical bool

	// The open arrays and objects, innermost last, and the values and
	// member names read in them so far.
	frames []frame
	vals   []any
	names  []name

	interning bool
	table     [internSize]interned
}

// frame is one open array or object.
type frame struct {
	object bool
	vals   int // index in decoder.vals of its first item
	names  int // index in decoder.names of its first member name
}

// name is a member name read, waiting for its object to close.
type name struct {
	s      string
	before int // offset where the token reading it began
}

func (d *decoder) reset(data []byte, lim Limits) {
	d.data = data
	d.buf = *bytes.NewBuffer(data)
	d.max = lim.MaxDepth
	if d.max <= 0 {
		d.max = DefaultMaxDepth
	}
	d.max = min(d.max, MaxDepthLimit)
	d.maxValues, d.values = lim.MaxValues, 0
	if d.maxValues <= 0 {
		d.maxValues = DefaultMaxValues
	}
	d.dec.Reset(&d.buf, allowDuplicates)
	d.canonical = true
	d.interning = len(data) >= internMinDoc
}

// release drops every reference to the input and the values, and pools d
// unless a large document left it holding much memory.
func (d *decoder) release() {
	clear(d.vals)
	clear(d.names)
	d.vals, d.names, d.frames = d.vals[:0], d.names[:0], d.frames[:0]
	d.data = nil
	d.buf = bytes.Buffer{}
	d.dec.Reset(&d.buf, allowDuplicates)
	if d.interning {
		clear(d.table[:])
	}
	if cap(d.vals) <= 1<<12 && cap(d.names) <= 1<<12 {
		decoders.Put(d)
	}
}

// run reads tokens until the root value is complete.
func (d *decoder) run() (any, error) {
	for {
		before := int(d.dec.InputOffset())
		tok, err := d.dec.ReadToken()
		if err != nil {
			return nil, d.syntaxError(err, before)
		}
		var v any
		switch k := tok.Kind(); {
		case k == '}' || k == ']':
		case k == '"' && d.inName():
		case d.values == d.maxValues:
			return nil, d.tooMany(before)
		default:
			d.values++
		}
		switch tok.Kind() {
		case '{', '[':
			if len(d.frames) == d.max {
				return nil, d.tooDeep(int(d.dec.InputOffset()) - 1)
			}
			d.frames = append(d.frames, frame{object: tok.Kind() == '{', vals: len(d.vals), names: len(d.names)})
			continue
		case '}':
			if v, err = d.closeObject(); err != nil {
				return nil, err
			}
		case ']':
			v = d.closeArray()
		case '"':
			raw := d.data[tokenStart(d.data, before):d.dec.InputOffset()]
			if d.inName() {
				d.names = append(d.names, name{s: d.name(raw, tok), before: before})
				continue
			}
			v = d.str(raw, tok)
		case '0':
			raw := d.data[tokenStart(d.data, before):d.dec.InputOffset()]
			if v, err = d.number(raw); err != nil {
				return nil, err
			}
		case 't':
			v = true
		case 'f':
			v = false
		case 'n':
			v = nil
		}
		if len(d.frames) == 0 {
			return v, d.checkEnd()
		}
		d.vals = append(d.vals, v)
	}
}

// closeObject builds the innermost object, sized once, and pops it.
func (d *decoder) closeObject() (any, error) {
	f := d.frames[len(d.frames)-1]
	vals, names := d.vals[f.vals:], d.names[f.names:]
	m := make(map[string]any, len(vals))
	for i, v := range vals {
		m[names[i].s] = v
		if len(m) != i+1 {
			return nil, d.duplicate(names[i])
		}
	}
	clear(vals)
	clear(names)
	d.vals, d.names, d.frames = d.vals[:f.vals], d.names[:f.names], d.frames[:len(d.frames)-1]
	return m, nil
}

// closeArray copies the innermost array's items into a slice of their
// exact length and pops it.
func (d *decoder) closeArray() any {
	f := d.frames[len(d.frames)-1]
	vals := d.vals[f.vals:]
	a := make([]any, len(vals))
	copy(a, vals)
	clear(vals)
	d.vals, d.frames = d.vals[:f.vals], d.frames[:len(d.frames)-1]
	return a
}

// number canonicalizes a number literal just read.
func (d *decoder) number(raw []byte) (any, error) {
	if plainInteger(raw) {
		if e := d.intern(raw, true); e != nil {
			return e.value(), nil
		}
		return json.Number(raw), nil
	}
	c, same, err := canonical(string(raw))
	if err != nil {
		e := d.errorAt(int(d.dec.InputOffset())-len(raw), true, err.Error())
		e.err = err
		return nil, e
	}
	if !same {
		d.canonical = false
	}
	return json.Number(c), nil
}

// name returns the member name read as raw (quotes included).
func (d *decoder) name(raw []byte, tok jsontext.Token) string {
	if bytes.IndexByte(raw, '\\') >= 0 {
		return tok.String()
	}
	if e := d.intern(raw[1:len(raw)-1], false); e != nil {
		return e.s
	}
	return string(raw[1 : len(raw)-1])
}

// str returns the string value read as raw (quotes included).
func (d *decoder) str(raw []byte, tok jsontext.Token) any {
	if bytes.IndexByte(raw, '\\') >= 0 {
		return tok.String()
	}
	if e := d.intern(raw[1:len(raw)-1], false); e != nil {
		return e.value()
	}
	return string(raw[1 : len(raw)-1])
}

// The decoder keeps the short strings and numbers of a large document in
// a small table, so that names and values repeated across an array of
// records are allocated once.
const (
	internSize   = 256 // entries, a power of two
	internMaxLen = 32  // longest string interned
	internMinDoc = 512 // smallest document worth it
)

// interned is a string met before in the document, and the value it
// stands for once boxed.
type interned struct {
	s   string
	v   any
	num bool
}

func (e *interned) value() any {
	if e.v == nil {
		if e.num {
			e.v = json.Number(e.s)
		} else {
			e.v = e.s
		}
	}
	return e.v
}

// intern returns the entry for b, or nil when b is not to be interned.
func (d *decoder) intern(b []byte, num bool) *interned {
	if !d.interning || len(b) > internMaxLen {
		return nil
	}
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	e := &d.table[h&(internSize-1)]
	if e.num != num || e.s != string(b) {
		*e = interned{s: string(b), num: num}
	}
	return e
}

// inName reports whether the next string is a member name: the innermost
// open container is an object with as many names as values.
func (d *decoder) inName() bool {
	n := len(d.frames)
	if n == 0 {
		return false
	}
	f := &d.frames[n-1]
	return f.object && len(d.names)-f.names == len(d.vals)-f.vals
}

// tooMany makes the Error for the value past lim.MaxValues, starting
// around off.
func (d *decoder) tooMany(off int) *Error {
	return d.errorAt(tokenStart(d.data, off), true, "holds more than "+strconv.Itoa(d.maxValues)+" values (objects, arrays, strings, numbers, booleans and nulls); send fewer")
}

// tooDeep makes the Error for an array or object opened at off, one level
// too deep.
func (d *decoder) tooDeep(off int) *Error {
	return d.errorAt(off, true, "nests deeper than "+strconv.Itoa(d.max)+" levels of arrays and objects; send a flatter value")
}

// checkEnd refuses anything but whitespace after the root value.
func (d *decoder) checkEnd() error {
	end := int(d.dec.InputOffset())
	p := skipSpace(d.data, end)
	if p == len(d.data) {
		return nil
	}
	if d.leadingZero(p, end) {
		return d.errorAt(p, false, leadingZero)
	}
	return d.errorAt(p, false, "expected end of input after the JSON value, found "+quoteAt(d.data, p)+"; send one JSON value")
}

// path locates the innermost open array or object, and with item the
// value being read in it.
func (d *decoder) path(item bool) []any {
	path := make([]any, 0, len(d.frames)+1)
	for i, f := range d.frames {
		if i+1 < len(d.frames) {
			next := d.frames[i+1]
			if f.object {
				path = append(path, d.names[next.names-1].s)
			} else {
				path = append(path, next.vals-f.vals)
			}
			continue
		}
		if !item {
			break
		}
		nv := len(d.vals) - f.vals
		switch {
		case !f.object:
			path = append(path, nv)
		case len(d.names)-f.names > nv:
			path = append(path, d.names[len(d.names)-1].s)
		}
	}
	return path
}

// errorAt makes the Error for a problem at byte off, located by path(item).
func (d *decoder) errorAt(off int, item bool, msg string) *Error {
	path := d.path(item)
	return &Error{Offset: off, Pointer: pointer(path), Path: path, Message: "invalid JSON at byte " + strconv.Itoa(off) + ": " + msg}
}

// duplicate makes the Error for a member name given twice in the innermost
// object; n is the second one.
func (d *decoder) duplicate(n name) *Error {
	off := skipSpace(d.data, n.before)
	if off < len(d.data) && d.data[off] == ',' {
		off = skipSpace(d.data, off+1)
	}
	e := d.errorAt(off, false, "duplicate member name "+quoteName(n.s)+"; send each name once")
	e.Path = append(e.Path, n.s)
	e.Pointer = pointer(e.Path)
	return e
}

func pointer(path []any) string {
	var p jsontext.Pointer
	for _, tok := range path {
		switch tok := tok.(type) {
		case string:
			p = p.AppendToken(tok)
		case int:
			p = p.AppendToken(strconv.Itoa(tok))
		}
	}
	return string(p)
}

// tokenStart returns where the token read from offset before starts:
// after whitespace, a ':' or ',' the tokenizer consumed, and whitespace.
func tokenStart(data []byte, before int) int {
	i := skipSpace(data, before)
	if i < len(data) && (data[i] == ':' || data[i] == ',') {
		i = skipSpace(data, i+1)
	}
	return i
}

// skipSpace returns the offset of the first byte at or after i that is not
// JSON whitespace (RFC 8259 §2).
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
