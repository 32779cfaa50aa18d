package validation

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestRangeFormats checks that the integer and float formats of the OpenAPI
// registry bound their numbers, on the fast path and the validator's alike,
// whatever Go type the number arrives as (a coerced query string, a body).
func TestRangeFormats(t *testing.T) {
	c, err := NewContract("test.wasm", []byte(`{"s": {"type": "object", "properties": {
		"i8": {"type": "integer", "format": "int8"},
		"i16": {"type": "integer", "format": "int16"},
		"i32": {"type": "integer", "format": "int32"},
		"i64": {"type": "integer", "format": "int64"},
		"u8": {"type": "integer", "format": "uint8"},
		"n32": {"type": "number", "format": "int32"},
		"f": {"type": "number", "format": "float"},
		"d": {"type": "number", "format": "double"},
		"s": {"type": "string", "format": "int32"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("/s")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prop string
		in   any
		want string // the issue's message, "" for none
	}{
		{"i8", int64(127), ""},
		{"i8", int64(-128), ""},
		{"i8", int64(128), "must be an integer from -128 to 127 (int8)"},
		{"i16", int64(-32769), "must be an integer from -32768 to 32767 (int16)"},
		{"i32", int64(2147483647), ""},
		{"i32", int64(-2147483648), ""},
		{"i32", int64(2147483648), "must be an integer from -2147483648 to 2147483647 (int32)"},
		{"i32", int64(-2147483649), "must be an integer from -2147483648 to 2147483647 (int32)"},
		{"i32", json.Number("1e10"), "must be an integer from -2147483648 to 2147483647 (int32)"},
		{"i64", int64(9223372036854775807), ""},
		{"i64", json.Number("9223372036854775808"), "must be an integer from -9223372036854775808 to 9223372036854775807 (int64)"},
		{"i64", json.Number("-9223372036854775809"), "must be an integer from -9223372036854775808 to 9223372036854775807 (int64)"},
		{"u8", int64(-1), "must be an integer from 0 to 255 (uint8)"},
		{"u8", int64(255), ""},
		{"n32", json.Number("1.5"), "must be an integer from -2147483648 to 2147483647 (int32)"},
		{"n32", float64(3), ""},
		{"f", json.Number("3.4e38"), ""},
		{"f", json.Number("3.5e38"), "must be a number from -3.4028234663852886e+38 to 3.4028234663852886e+38 (float)"},
		{"d", json.Number("1e308"), ""},
		{"s", "2147483648", ""}, // a format applies to the type it describes
	}
	for _, tt := range tests {
		got := s.Validate(map[string]any{tt.prop: tt.in})
		var want []Issue
		if tt.want != "" {
			want = []Issue{{Path: []any{tt.prop}, Message: tt.want}}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v: issues %#v, want %#v", tt.prop, tt.in, got, want)
		}
	}
}

// TestRangeFormatsCoercedQuery checks the query path end to end: the
// string a client sends is coerced, then the format bounds it.
func TestRangeFormatsCoercedQuery(t *testing.T) {
	c, err := NewContract("test.wasm", []byte(`{"q": {"type": "object", "properties": {"limit": {"type": "integer", "format": "int32"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("/q")
	if err != nil {
		t.Fatal(err)
	}
	for in, ok := range map[string]bool{"2147483647": true, "2147483648": false, "99999999999999999999": false} {
		issues := s.Validate(map[string]any{"limit": s.CoerceString("limit", in)})
		if (issues == nil) != ok {
			t.Errorf("limit=%s: issues %#v, want valid=%v", in, issues, ok)
		}
	}
}
