package endpoints

import (
	"fmt"
	"math/rand/v2"
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
