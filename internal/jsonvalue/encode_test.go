package jsonvalue

import (
	"encoding/json"
	"math"
	"testing"
)

func TestAppendValue(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"null", nil, `null`},
		{"booleans", []any{true, false}, `[true,false]`},
		{"members sorted by name", map[string]any{"b": 1, "a": 2, "B": 3}, `{"B":3,"a":2,"b":1}`},
		{"one member", map[string]any{"a": "x"}, `{"a":"x"}`},
		{"more members than the stack holds", map[string]any{"q": 1, "p": 1, "o": 1, "n": 1, "m": 1, "l": 1, "k": 1, "j": 1, "i": 1, "h": 1, "g": 1, "f": 1, "e": 1, "d": 1, "c": 1, "b": 1, "a": 1},
			`{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":1,"q":1}`},
		{"empty containers", []any{map[string]any{}, []any{}}, `[{},[]]`},
		{"strings minimally escaped", "a\"b\\c/d\b\f\n\r\t\x01\u007f<>&é…\u2028😀", `"a\"b\\c/d\b\f\n\r\t\u0001` + "\u007f<>&é…\u2028😀" + `"`},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", "\"a\ufffdb\""},
		{"canonical json.Number", json.Number("12"), `12`},
		{"json.Number 2.0", json.Number("2.0"), `2`},
		{"json.Number 1E-7", json.Number("1E-7"), `1e-7`},
		{"json.Number out of range", json.Number("1e999"), `null`},
		{"json.Number that is no number", json.Number("abc"), `null`},
		{"int64", int64(-9223372036854775808), `-9223372036854775808`},
		{"int", 7, `7`},
		{"float64 fraction", 0.1, `0.1`},
		{"float64 integer", 1e21, `1000000000000000000000`},
		{"float64 small", 1.5e-7, `1.5e-7`},
		{"float64 negative zero", math.Copysign(0, -1), `0`},
		{"float64 NaN", math.NaN(), `null`},
		{"float64 infinity", math.Inf(1), `null`},
		{"other types through encoding/json", []string{"a"}, `["a"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AppendValue([]byte("prefix:"), tt.in)); got != "prefix:"+tt.want {
				t.Errorf("AppendValue(%#v) = %s, want prefix:%s", tt.in, got, tt.want)
			}
		})
	}
}

// TestAppendValueRoundTrip decodes every accepted table input, writes it
// back and checks the result is canonical and decodes to the same value.
func TestAppendValueRoundTrip(t *testing.T) {
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			checkRoundTrip(t, tt.want)
		})
	}
}

// checkRoundTrip checks that AppendValue writes v as canonical JSON that
// decodes back to v.
func checkRoundTrip(t *testing.T, v any) {
	t.Helper()
	out := AppendValue(nil, v)
	back, canonical, err := Decode(out, Limits{MaxDepth: MaxDepthLimit})
	if err != nil {
		t.Fatalf("Decode(AppendValue(%#v) = %s): %v", v, out, err)
	}
	if !canonical {
		t.Errorf("AppendValue(%#v) = %s, not canonical", v, out)
	}
	if !equal(back, v) {
		t.Errorf("Decode(AppendValue(%#v) = %s) = %#v", v, out, back)
	}
	if again := AppendValue(nil, back); string(again) != string(out) {
		t.Errorf("AppendValue is not stable: %s, then %s", out, again)
	}
}

// equal compares decoded values, numbers by their canonical form.
func equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		ca, errA := CanonicalNumber(string(a))
		cb, errB := CanonicalNumber(string(b))
		return errA == nil && errB == nil && ca == cb
	}
	return a == b
}
