package validation

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const contract = `{
 "request": {
  "query": {"type": "object", "properties": {
    "n": {"type": "integer"},
    "x": {"type": "number"},
    "b": {"type": "boolean"},
    "s": {"type": "string"},
    "ns": {"type": ["integer", "string"]},
    "nullable": {"type": ["integer", "null"]},
    "e": {"enum": [1, 2, 3]},
    "ref": {"$ref": "#/$defs/Count"},
    "any": {},
    "one": {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
    "list": {"type": "array", "items": {"type": "integer"}},
    "anylist": {"type": "array"},
    "d": {"type": "integer", "default": 10},
    "f": {"type": "number", "default": 2.50},
    "g": {"type": "object", "default": {"n": 1.0e1, "l": [2E0]}}
  }},
  "body": {"schema": {"type": "object", "properties": {
    "name": {"type": "string"},
    "qty": {"type": "integer", "default": 1},
    "opts": {"type": "object", "properties": {"gift": {"type": "boolean", "default": false}}},
    "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}}
  }}}
 },
 "$defs": {"Count": {"type": "integer", "minimum": 0}, "Line": {"type": "object", "properties": {"n": {"type": "integer", "default": 1}}}}
}`

func compile(t *testing.T, pointer string) *Schema {
	t.Helper()
	c, err := NewContract("test.wasm", []byte(contract))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(pointer)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCoerceString(t *testing.T) {
	s := compile(t, "/request/query")
	tests := []struct {
		name, prop, in string
		want           any
	}{
		{"integer", "n", "42", int64(42)},
		{"negative integer", "n", "-7", int64(-7)},
		{"integer too large for int64 stays exact", "n", "123456789012345678901234567890", json.Number("123456789012345678901234567890")},
		{"leading zero is not an integer", "n", "007", "007"},
		{"fraction for an integer is handed to validation as a number", "n", "1.5", json.Number("1.5")},
		{"not a number stays a string", "n", "abc", "abc"},
		{"number", "x", "0.25", json.Number("0.25")},
		{"number with exponent is canonical", "x", "1e3", json.Number("1000")},
		{"integer 2.0 is int64", "n", "2.0", int64(2)},
		{"integer 2e0 is int64", "n", "2e0", int64(2)},
		{"integer 1E+1 is int64", "n", "1E+1", int64(10)},
		{"integer -0 is int64 0", "n", "-0", int64(0)},
		{"integer beyond int64 from an exponent is exact", "n", "1e20", json.Number("100000000000000000000")},
		{"integer 9223372036854775808 is exact", "n", "9223372036854775808", json.Number("9223372036854775808")},
		{"fraction for an integer rounds like a body's", "n", "2.00000000000000000001", int64(2)},
		{"number 2 stays a number", "x", "2", json.Number("2")},
		{"number 2.0 is canonical", "x", "2.0", json.Number("2")},
		{"number 0.10 is canonical", "x", "0.10", json.Number("0.1")},
		{"number 1E-7 is canonical", "x", "1E-7", json.Number("1e-7")},
		{"integer-or-string keeps 2.0 a string", "ns", "2.0", "2.0"},
		{"integer-or-null 2.0 is int64", "nullable", "2.0", int64(2)},
		{"enum of integers 2.0", "e", "2.0", int64(2)},
		{"through $ref 5e0", "ref", "5e0", int64(5)},
		{"number that is not JSON stays a string", "x", ".5", ".5"},
		{"boolean true", "b", "true", true},
		{"boolean false", "b", "false", false},
		{"boolean spelled otherwise stays a string", "b", "yes", "yes"},
		{"string stays a string", "s", "42", "42"},
		{"string allowed wins over integer", "ns", "42", "42"},
		{"null when allowed", "nullable", "null", nil},
		{"enum of integers", "e", "2", int64(2)},
		{"through $ref", "ref", "5", int64(5)},
		{"untyped stays a string", "any", "5", "5"},
		{"oneOf types", "one", "true", true},
		{"unknown property stays a string", "zzz", "5", "5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.CoerceString(tt.prop, tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CoerceString(%q, %q) = %#v, want %#v", tt.prop, tt.in, got, tt.want)
			}
		})
	}
}

func TestCoerceStrings(t *testing.T) {
	s := compile(t, "/request/query")
	tests := []struct {
		name, prop string
		in         []string
		want       any
	}{
		{"repeated key becomes an array of coerced items", "list", []string{"1", "2"}, []any{int64(1), int64(2)}},
		{"items are canonical", "list", []string{"2.0", "1e1", "-0"}, []any{int64(2), int64(10), int64(0)}},
		{"one value of an array parameter is an array", "list", []string{"1"}, []any{int64(1)}},
		{"untyped items stay strings", "anylist", []string{"a", "b"}, []any{"a", "b"}},
		{"repeated scalar takes the first value", "n", []string{"1", "2"}, int64(1)},
		{"repeated unknown key keeps every value", "zzz", []string{"a", "b"}, []any{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.CoerceStrings(tt.prop, tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CoerceStrings(%q, %q) = %#v, want %#v", tt.prop, tt.in, got, tt.want)
			}
		})
	}
}

func TestApplyDefaults(t *testing.T) {
	s := compile(t, "/request/body/schema")
	if !s.HasDefaults() {
		t.Fatal("HasDefaults() = false for a schema with defaults")
	}
	v := map[string]any{"name": "pen", "opts": map[string]any{}, "lines": []any{map[string]any{}, map[string]any{"n": int64(5)}}}
	if !s.ApplyDefaults(v) {
		t.Error("ApplyDefaults reported no change")
	}
	want := map[string]any{"name": "pen", "qty": json.Number("1"), "opts": map[string]any{"gift": false},
		"lines": []any{map[string]any{"n": json.Number("1")}, map[string]any{"n": int64(5)}}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("after ApplyDefaults = %#v\nwant %#v", v, want)
	}
	full := map[string]any{"name": "pen", "qty": int64(2), "opts": map[string]any{"gift": true}}
	if s.ApplyDefaults(full) {
		t.Error("ApplyDefaults changed a value that had every default")
	}
	q := compile(t, "/request/query")
	m := map[string]any{}
	q.ApplyDefaults(m)
	if m["d"] != json.Number("10") {
		t.Errorf("query default d = %#v, want 10", m["d"])
	}
	if m["f"] != json.Number("2.5") {
		t.Errorf("query default f (2.50) = %#v, want the canonical 2.5", m["f"])
	}
	if want := map[string]any{"n": json.Number("10"), "l": []any{json.Number("2")}}; !reflect.DeepEqual(m["g"], want) {
		t.Errorf("query default g = %#v, want its numbers canonical: %#v", m["g"], want)
	}
}

func TestValidateIssues(t *testing.T) {
	c, err := NewContract("test.wasm", []byte(`{"s": {"type": "object", "required": ["id", "tags"],
		"properties": {"id": {"type": "integer", "minimum": 1}, "email": {"type": "string", "format": "email"},
		"tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2},
		"kind": {"const": "user"}, "alt": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}},
		"additionalProperties": false}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("/s")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Validate(map[string]any{"id": int64(0), "email": "nope", "tags": []any{"ok", "toolong"}, "kind": "admin", "alt": "x", "extra": true})
	want := []Issue{
		{Path: []any{"alt"}, Message: "does not match any of the allowed shapes (expected boolean, received string; expected integer, received string)"},
		{Path: []any{"email"}, Message: "must be a valid email address"},
		{Path: []any{"extra"}, Message: "is not an allowed property"},
		{Path: []any{"id"}, Message: "must be greater than or equal to 1"},
		{Path: []any{"kind"}, Message: `must be "user"`},
		{Path: []any{"tags", 1}, Message: "must contain at most 3 characters"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Validate issues:\n got %#v\nwant %#v", got, want)
	}
	if s.Validate(map[string]any{"id": int64(1), "tags": []any{}}) != nil {
		t.Error("a valid value has issues")
	}
	if got := s.Validate(map[string]any{}); len(got) != 2 || got[0].Message != "is required" {
		t.Errorf("missing properties: %#v, want two 'is required'", got)
	}
}

func TestCompileErrorsNameFileAndPointer(t *testing.T) {
	c, err := NewContract("server/api/x.get.wasm", []byte(`{"s": {"$ref": "#/$defs/Missing"}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Compile("/s")
	if err == nil || !containsAll(err.Error(), "server/api/x.get.wasm", "/s") {
		t.Errorf("Compile error = %v, want one naming the file and pointer", err)
	}
	if s, err := c.Compile("/absent"); s != nil || err != nil {
		t.Errorf("Compile of an absent pointer = %v, %v; want nil, nil", s, err)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestCompileErrorMessage(t *testing.T) {
	c, _ := NewContract("f.wasm", []byte(`{"s": {"$ref": "#/$defs/Missing"}}`))
	_, err := c.Compile("/s")

	if strings.Contains(err.Error(), "file:///endpoints") {
		t.Errorf("error shows the internal resource URL: %v", err)
	}
}

// TestCoerceOutOfRange checks that a numeric string beyond the float64
// range fails validation with a message about its range at its path, not
// as a type mismatch, and that no number is computed from it.
func TestCoerceOutOfRange(t *testing.T) {
	s := compile(t, "/request/query")
	const tooLarge = "number out of range: 1e999999999 exceeds the float64 range; send a number within ±1.7976931348623157e308"
	tests := []struct {
		name   string
		query  map[string]any
		issues []Issue
	}{
		{"integer", map[string]any{"n": s.CoerceString("n", "1e999999999")},
			[]Issue{{Path: []any{"n"}, Message: tooLarge}}},
		{"number too small", map[string]any{"x": s.CoerceString("x", "-1e-400")},
			[]Issue{{Path: []any{"x"}, Message: "number out of range: -1e-400 is too small for a float64 and would round to 0; send 0 or a number of magnitude 5e-324 or more"}}},
		{"with a minimum, through $ref", map[string]any{"ref": s.CoerceString("ref", "1e999999999")},
			[]Issue{{Path: []any{"ref"}, Message: tooLarge}}},
		{"array item", map[string]any{"list": s.CoerceStrings("list", []string{"1", "1e999999999"})},
			[]Issue{{Path: []any{"list", 1}, Message: tooLarge}}},
		{"alternatives", map[string]any{"one": s.CoerceString("one", "1e999999999")},
			[]Issue{{Path: []any{"one"}, Message: tooLarge}}},
		{"enum", map[string]any{"e": s.CoerceString("e", "1e999999999")},
			[]Issue{{Path: []any{"e"}, Message: tooLarge}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.Validate(tt.query); !reflect.DeepEqual(got, tt.issues) {
				t.Errorf("Validate(%#v):\n got %#v\nwant %#v", tt.query, got, tt.issues)
			}
		})
	}
}
