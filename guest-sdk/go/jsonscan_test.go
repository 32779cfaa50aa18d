package endpoints

import (
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
