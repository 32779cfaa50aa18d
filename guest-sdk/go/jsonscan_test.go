package endpoints

import (
	"encoding/json"
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
	if start < len(d) && d[start] == '"' {
		end, _, err = scanString(d, start)
	} else {
		end, err = skipValue(d, start)
	}
	if err != nil {
		return m.stop(err)
	}
	m.key, m.value, m.i = key, d[start:end], end
	return true
}

// checkMembers compares the members of d, and the error that ends them,
// as next and as nextByScanString read them.
func checkMembers(t *testing.T, d []byte) {
	t.Helper()
	got, want := scanMembers(d), scanMembers(d)
	for n := 0; ; n++ {
		g, w := got.next(), want.nextByScanString()
		if g != w || got.key != want.key || string(got.value) != string(want.value) || got.i != want.i {
			t.Fatalf("%q, member %d: next() = %v %q %q at %d; want %v %q %q at %d", d, n, g, got.key, got.value, got.i, w, want.key, want.value, want.i)
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
// byte of the first eight, or later, or hold an escape, a control
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
		for range r.IntN(12) {
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
	f.Fuzz(func(t *testing.T, d []byte) { checkMembers(t, d) })
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
