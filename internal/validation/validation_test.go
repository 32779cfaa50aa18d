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
    "d": {"type": "integer", "default": 10}
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
		{"number with exponent", "x", "1e3", json.Number("1e3")},
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
