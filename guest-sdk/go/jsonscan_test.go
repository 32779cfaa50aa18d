package endpoints

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// scanStringByte is scanString as it was, a byte at a time: the
// reference the word-at-a-time scan must agree with.
func scanStringByte(d []byte, i int) (end int, escaped bool, ok bool) {
	for j := i + 1; j < len(d); j++ {
		switch c := d[j]; {
		case c == '"':
			return j + 1, escaped, true
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

func TestScanStringMatchesByteScan(t *testing.T) {
	tests := []string{
		`""`, `"a"`, `"abcdefg"`, `"abcdefgh"`, `"abcdefghi"`, `"0123456789abcdef"`,
		`"1234567\""`, `"12345678\\"`, `"\\\\\\\\\\\\\\\\"`, `"1234567\\`, `"12345678`,
		"\"1234567\x1f\"", "\"\x00\"", "\"héllo wörld ✓ 😀 <&> \u2028\"", "\"\xff\xfe\xe2\x80\xa8\"",
		`"abc\"def\"ghijklmnop\\"tail`, `"abcdefghijklmnopqrstuvwxyz"`,
	}
	for _, s := range tests {
		checkScanString(t, []byte(s))
	}
	// Random strings of the bytes that matter, at every offset from an
	// eight-byte boundary.
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{'a', 'Z', '"', '\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xe2, 0xff, '<'}
	for range 20000 {
		b := []byte{'"'}
		for range r.IntN(24) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		checkScanString(t, b)
	}
}

func checkScanString(t *testing.T, d []byte) {
	t.Helper()
	wantEnd, wantEsc, wantOK := scanStringByte(d, 0)
	end, esc, err := scanString(d, 0)
	if (err == nil) != wantOK || end != wantEnd || esc != wantEsc {
		t.Fatalf("scanString(%q) = %d, %v, %v; want %d, %v, ok %v", d, end, esc, err, wantEnd, wantEsc, wantOK)
	}
}

// nextByScanString is members.next as it was, every member name scanned
// by scanString: the reference the written-out first step must agree
// with.
func (m *members) nextByScanString() bool {
	if m.done {
		return false
	}
	d, i := m.d, m.i
	if m.started {
		i = skipSpace(d, i)
		switch {
		case i < len(d) && d[i] == ',':
			i = skipSpace(d, i+1)
		case i < len(d) && d[i] == '}':
			return m.stop(checkEnd(d, i+1))
		default:
			return m.stop(syntaxError(d, i, "',' or '}'"))
		}
	}
	m.started = true
	if i >= len(d) || d[i] != '"' {
		return m.stop(syntaxError(d, i, "a member name"))
	}
	end, escaped, err := scanString(d, i)
	if err != nil {
		return m.stop(err)
	}
	key := unsafeString(d[i+1 : end-1])
	if escaped {
		if key, err = decodeString(d[i:end]); err != nil {
			return m.stop(err)
		}
	}
	i = skipSpace(d, end)
	if i >= len(d) || d[i] != ':' {
		return m.stop(syntaxError(d, i, "':' after a member name"))
	}
	start := skipSpace(d, i+1)
	escaped = false
	if start < len(d) && d[start] == '"' {
		end, escaped, err = scanString(d, start)
	} else {
		end, err = skipValue(d, start)
	}
	if err != nil {
		return m.stop(err)
	}
	m.key, m.value, m.escaped, m.i = key, d[start:end], escaped, end
	return true
}

// checkMembers compares the members of d, and the error that ends them,
// as next and as nextByScanString read them.
func checkMembers(t *testing.T, d []byte) {
	t.Helper()
	got, want := scanMembers(d), scanMembers(d)
	for n := 0; ; n++ {
		g, w := got.next(), want.nextByScanString()
		if g != w || got.key != want.key || string(got.value) != string(want.value) || got.escaped != want.escaped || got.i != want.i {
			t.Fatalf("%q, member %d: next() = %v %q %q (escaped %v) at %d; want %v %q %q (escaped %v) at %d",
				d, n, g, got.key, got.value, got.escaped, got.i, w, want.key, want.value, want.escaped, want.i)
		}
		if !g {
			break
		}
	}
	if fmt.Sprint(got.err) != fmt.Sprint(want.err) {
		t.Fatalf("%q: error %v, want %v", d, got.err, want.err)
	}
}

// TestMembersShortNames reads objects whose member names end at every
// byte of the first three words, or later, or hold an escape, a control
// character or a quote in any of those bytes, or are cut short.
func TestMembersShortNames(t *testing.T) {
	for _, s := range []string{
		`{}`, `{"":1}`, `{"a":1}`, `{"abcdefg":1}`, `{"abcdefgh":1}`, `{"abcdefghi":"x"}`,
		`{"method":"GET","params":{"id":2},"query":{},"headers":{}}`,
		`{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`,
		`{"a\"b":1}`, `{"ab\\":1}`, `{"\u00e9t\u00e9":1}`, "{\"a\x01b\":1}", `{"abc`, `{"abcdefg`, `{"abcdefg"`,
		`{"abcdefg" : 1 , "h" : [1] }`, `{"a":1,}`, `{"a" 1}`, `{"abcdefg":1}x`, "{\"\xff\xfe\":1}",
	} {
		checkMembers(t, []byte(s))
	}
	// Random names of the bytes that matter, of every length around eight.
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte{'a', 'Z', '"', '\\', 'u', '0', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xe2, 0xff, ':', '}'}
	for range 20000 {
		b := []byte(`{"`)
		for range r.IntN(30) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		b = append(b, `":1,"k":"v"}`[:r.IntN(13)]...)
		checkMembers(t, b)
	}
}

// FuzzMembers compares next with nextByScanString on any input.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"method":"GET","params":{"id":2}}`, `{"a\"b":1}`, "{\"a\x01\":1}", `{"abcdefg":`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		checkMembers(t, d)
		checkElements(t, d)
		checkLazy(t, d)
	})
}

// TestMembersShortValues reads objects whose values are strings that end
// at every byte of the first words, or later, empty or nearly empty
// objects and arrays, or are cut short: the values next ends without a
// call must be the ones scanString and skipValue find.
func TestMembersShortValues(t *testing.T) {
	for _, s := range []string{
		`{"a":""}`, `{"a":"GET"}`, `{"a":"abcdefg"}`, `{"a":"abcdefgh"}`, `{"a":"abcdefghi"}`, `{"a":"é"}`,
		`{"a":{}}`, `{"a":[]}`, `{"a":{},"b":[]}`, `{"a":{} , "b":[ ] }`, `{"a":{ }}`, `{"a":{}`, `{"a":[]`,
		`{"a":{]}`, `{"a":[}}`, `{"a":{}}x`, `{"a":{}} `, `{"a":"`, `{"a":"abc`, `{"a":"a"b"}`, `{"a":"é"}`,
		`{"a":"abcdefg"`, `{"a":"ab` + "\x01" + `"}`, `{"a":{"b":{}}}`,
		`{"a":"/api/users/:id","b":"0123456789abcdef"}`, `{"a":"0123456789abcdef\"x"}`, `{"a":"0123456789abcdefg`,
	} {
		checkMembers(t, []byte(s))
		checkElements(t, []byte(`[`+s+`,`+s[5:len(s)-1]+`]`))
	}
	// Random values of the bytes that matter, of every length around
	// eight, and arrays of them.
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte{'a', '"', '\\', '{', '}', '[', ']', ',', ' ', ':', 0x01, 0xe2}
	for range 20000 {
		var v []byte
		for range r.IntN(30) {
			v = append(v, alphabet[r.IntN(len(alphabet))])
		}
		checkMembers(t, append([]byte(`{"k":`), v...))
		checkMembers(t, append(append([]byte(`{"k":"`), v...), `","l":{}}`[:r.IntN(10)]...))
		checkElements(t, append([]byte(`[`), v...))
		checkElements(t, append(append([]byte(`["`), v...), `",[],{}]`[:r.IntN(9)]...))
	}
}

// nextElementByScan is elements.next without its written-out first step:
// every element scanned by scanString or skipValue.
func (e *elements) nextElementByScan() bool {
	if e.done {
		return false
	}
	d, i := e.d, e.i
	if e.started {
		i = skipSpace(d, i)
		switch {
		case i < len(d) && d[i] == ',':
			i++
		case i < len(d) && d[i] == ']':
			e.err, e.done = checkEnd(d, i+1), true
			return false
		default:
			e.err, e.done = syntaxError(d, i, "',' or ']'"), true
			return false
		}
	}
	e.started = true
	start := skipSpace(d, i)
	var end int
	var escaped bool
	var err error
	if start < len(d) && d[start] == '"' {
		end, escaped, err = scanString(d, start)
	} else {
		end, err = skipValue(d, start)
	}
	if err != nil {
		e.err, e.done = err, true
		return false
	}
	e.value, e.escaped, e.i = d[start:end], escaped, end
	return true
}

// checkElements compares the elements of d, and the error that ends them,
// as next and as nextElementByScan read them.
func checkElements(t *testing.T, d []byte) {
	t.Helper()
	got, want := scanElements(d), scanElements(d)
	for n := 0; ; n++ {
		g, w := got.next(), want.nextElementByScan()
		if g != w || string(got.value) != string(want.value) || got.escaped != want.escaped || got.i != want.i {
			t.Fatalf("%q, element %d: next() = %v %q (escaped %v) at %d; want %v %q (escaped %v) at %d",
				d, n, g, got.value, got.escaped, got.i, w, want.value, want.escaped, want.i)
		}
		if !g {
			break
		}
	}
	if fmt.Sprint(got.err) != fmt.Sprint(want.err) {
		t.Fatalf("%q: error %v, want %v", d, got.err, want.err)
	}
}

// walkBounded writes the members and elements of the value v, all of
// it, each object and array read by a scan of its own bytes, as a lazy
// scan's reference.
func walkBounded(sb *strings.Builder, v []byte) error {
	switch {
	case len(v) > 0 && v[0] == '{':
		m := scanMembers(v)
		sb.WriteByte('{')
		for m.next() {
			fmt.Fprintf(sb, "%q:", m.key)
			if err := walkBounded(sb, m.value); err != nil {
				return err
			}
		}
		sb.WriteByte('}')
		return m.err
	case len(v) > 0 && v[0] == '[':
		e := scanElements(v)
		sb.WriteByte('[')
		for e.next() {
			if err := walkBounded(sb, e.value); err != nil {
				return err
			}
			sb.WriteByte(',')
		}
		sb.WriteByte(']')
		return e.err
	}
	fmt.Fprintf(sb, "%s/%d,", v, len(v))
	return nil
}

// walkWithin is walkBounded for the value at the start of d, which goes
// on after it: objects are read by lazy scans, and their open values in
// place. It returns the index after the value.
func walkWithin(sb *strings.Builder, d []byte) (int, error) {
	switch {
	case len(d) > 0 && d[0] == '{':
		m := scanMembersWithin(d)
		m.lazy = true
		sb.WriteByte('{')
		for m.next() {
			fmt.Fprintf(sb, "%q:", m.key)
			if !m.open {
				if err := walkBounded(sb, m.value); err != nil {
					return 0, err
				}
				continue
			}
			n, err := walkWithin(sb, m.d[m.i:])
			if err != nil {
				return 0, err
			}
			m.resume(m.i + n)
		}
		sb.WriteByte('}')
		return m.i, m.err
	case len(d) > 0 && d[0] == '[':
		e := scanElementsWithin(d)
		sb.WriteByte('[')
		for e.next() {
			if err := walkBounded(sb, e.value); err != nil {
				return 0, err
			}
			sb.WriteByte(',')
		}
		sb.WriteByte(']')
		return e.i, e.err
	}
	end, err := skipValue(d, 0)
	if err != nil {
		return 0, err
	}
	return end, walkBounded(sb, d[:end])
}

// checkLazy compares a lazy scan of the object d with the eager one: left
// alone, or made whole, open values give the same members and the same
// error (the member whose value is broken is seen first). Read in place,
// valid JSON gives the same values as the bounded reading; the scanners
// leave the content of numbers and literals to the code that converts
// them, so of broken JSON the two may stop at different errors.
func checkLazy(t *testing.T, d []byte) {
	t.Helper()
	for _, makeWhole := range []bool{false, true} {
		eager, lazy := scanMembers(d), scanMembers(d)
		lazy.lazy = true
		for n := 0; ; n++ {
			w := eager.next()
			g := lazy.next()
			if g && lazy.open && makeWhole {
				g = lazy.whole()
			}
			if g && !w && lazy.open {
				// The broken value of this member fails the next call.
				g = lazy.next()
			}
			if g != w || g && (lazy.key != eager.key || !lazy.open && (string(lazy.value) != string(eager.value) || lazy.i != eager.i)) {
				t.Fatalf("%q (whole %v), member %d: next() = %v %q %q at %d; want %v %q %q at %d",
					d, makeWhole, n, g, lazy.key, lazy.value, lazy.i, w, eager.key, eager.value, eager.i)
			}
			if !g {
				break
			}
		}
		if fmt.Sprint(lazy.err) != fmt.Sprint(eager.err) {
			t.Fatalf("%q (whole %v): error %v, want %v", d, makeWhole, lazy.err, eager.err)
		}
	}
	var bounded, within strings.Builder
	errBounded := walkBounded(&bounded, d)
	end, errWithin := walkWithin(&within, d)
	if errWithin == nil {
		errWithin = checkEnd(d, end)
	}
	if len(d) == 0 || d[0] != '{' || !json.Valid(d) {
		return
	}
	if errBounded != nil || errWithin != nil || bounded.String() != within.String() {
		t.Fatalf("%q: read in place %s (error %v), want %s (error %v)", d, within.String(), errWithin, bounded.String(), errBounded)
	}
}

// TestMembersLazy compares lazy scans with eager ones on nested objects
// and arrays, well formed or not.
func TestMembersLazy(t *testing.T) {
	for _, s := range []string{
		`{}`, `{"a":{}}`, `{"a":{"b":1}}`, `{"a":[1,[2,{"c":"d"}]],"e":{"f":{"g":[]}}}`,
		`{"kind":"plain","params":{"id":"7"},"headers":{"accept":["*/*"],"host":["h:1"]}}`,
		`{ "a" : { "b" : [ 1 , 2 ] } , "c" : [ ] }`, `{"a":{"b":1}`, `{"a":{"b":1}}}`, `{"a":{"b":1]}`,
		`{"a":[1,2}`, `{"a":[1,2]]}`, `{"a":{"b" 1}}`, `{"a":{"b":1,}}`, `{"a":[1,]}`, `{"a":{"b":1}x}`,
		`{"a":{"b":"\u00e9"},"c":["\"x\""]}`, `{"a":{"b":{"c":{"d":{}}}}}`,
	} {
		checkLazy(t, []byte(s))
	}
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := []byte{'a', '1', '"', '\\', '{', '}', '[', ']', ',', ':', ' '}
	for range 30000 {
		b := []byte(`{"k":`)
		for range r.IntN(24) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		checkLazy(t, b)
		checkLazy(t, append(b, `}`...))
	}
	// Valid JSON: random nested objects and arrays, with spaces.
	for range 5000 {
		b := randomJSON(r, nil, 0)
		if b[0] != '{' {
			b = append(append([]byte(`{"v":`), b...), '}')
		}
		if !json.Valid(b) {
			t.Fatalf("randomJSON made %q, which is not JSON", b)
		}
		checkLazy(t, b)
	}
}

// randomJSON appends a random JSON value to b: objects and arrays down to
// depth 4, strings (some with escapes, some long), numbers and literals,
// with spaces here and there.
func randomJSON(r *rand.Rand, b []byte, depth int) []byte {
	space := func() {
		if r.IntN(4) == 0 {
			b = append(b, " \t\n"[r.IntN(3)])
		}
	}
	kind := r.IntN(6)
	if depth >= 4 {
		kind = 2 + r.IntN(4)
	}
	switch kind {
	case 0, 1:
		open, end := byte('{'), byte('}')
		if kind == 1 {
			open, end = '[', ']'
		}
		b = append(b, open)
		for i := range r.IntN(4) {
			if i > 0 {
				b = append(b, ',')
			}
			space()
			if kind == 0 {
				b = fmt.Appendf(b, `"k%d":`, i)
				space()
			}
			b = randomJSON(r, b, depth+1)
			space()
		}
		return append(b, end)
	case 2:
		s := strings.Repeat("ab\"c\\\t", 1+r.IntN(4))
		return fmt.Appendf(b, "%q", s[:r.IntN(len(s))])
	case 3:
		return fmt.Appendf(b, `"%s"`, strings.Repeat("x", r.IntN(24)))
	case 4:
		return fmt.Appendf(b, "%d", r.IntN(2000)-1000)
	}
	return append(b, []string{"true", "false", "null"}[r.IntN(3)]...)
}

// checkDecodeString holds decodeString to encoding/json: the same string
// for every JSON string it accepts, an error for every one it refuses.
func checkDecodeString(t *testing.T, raw []byte) {
	t.Helper()
	var want string
	wantErr := json.Unmarshal(raw, &want)
	if wantErr != nil || len(raw) == 0 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return // not a JSON string alone: decodeString's callers delimit values first
	}
	got, err := decodeString(raw)
	if err != nil || got != want {
		t.Errorf("decodeString(%q) = %q, %v; encoding/json: %q", raw, got, err, want)
	}
}

func TestDecodeStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`""`, `"plain"`, `"a\"b"`, `"a\\b"`, `"\/"`, `"\b\f\n\r\t"`, `"tab\there"`,
		`"\u00e9t\u00E9"`, `"\u0000"`, `"\u2028\u2029"`, `"\ud83d\ude00"`, `"\uD83D\uDE00!"`,
		`"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`,
		"\"\xff\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "\"\xf0\x9f\x98\x80\\n\"", `"\u12"`, `"\x"`, `"\'"`,
		"\"\x01\"", `"end\"`, `"Gr\u00e2ce \"G\""`,
	} {
		checkDecodeString(t, []byte(s))
		// decodeString refuses what encoding/json refuses.
		var want string
		if json.Unmarshal([]byte(s), &want) != nil {
			if got, err := decodeString([]byte(s)); err == nil {
				t.Errorf("decodeString(%q) = %q, want an error as encoding/json gives", s, got)
			}
		}
	}
}

func FuzzDecodeString(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `"\ud83d\ude00"`, `"\ud83d"`, "\"\xff\\n\"", `"\u00e9"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkDecodeString(t, raw) })
}
