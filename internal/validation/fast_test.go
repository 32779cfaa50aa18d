package validation

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/internal/jsonnum"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

// fastContract holds schemas the fast path compiles, each under a name.
// Property names are chosen so that no two paths print alike
// (fmt.Sprint(path...), the key issues are sorted by): for such paths the
// order jsonschema gives depends on map iteration.
const fastContract = `{
 "users": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1, "maximum": 9223372036854775807}}, "required": ["id"]},
 "closed": {"type": "object", "properties": {
   "name": {"type": "string", "minLength": 2, "maxLength": 5, "description": "a name", "examples": ["Ada"]},
   "age": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 150},
   "score": {"type": "number", "minimum": -1.5, "maximum": 2.25, "multipleOf": 0.25}},
  "required": ["name", "age"], "additionalProperties": false},
 "open": {"type": "object", "properties": {"n": {"type": "number"}}, "additionalProperties": {"type": "string", "maxLength": 3}},
 "allowed": {"type": "object", "properties": {"n": {"type": "number"}}, "additionalProperties": true},
 "choices": {"type": "object", "properties": {
   "color": {"enum": ["red", "green"]},
   "mixed": {"enum": [1, 2.5, "x", true, null, 1e20, -0.0]},
   "one": {"enum": ["only"]},
   "three": {"const": 3},
   "label": {"const": "a\"b"},
   "nothing": {"const": null},
   "typed": {"type": "integer", "enum": [1, 2, "z"]}}},
 "types": {"type": "object", "properties": {
   "ns": {"type": ["integer", "string"]},
   "b": {"type": "boolean"},
   "nul": {"type": "null"},
   "nn": {"type": ["number", "null"]},
   "arr": {"type": "array"},
   "obj": {"type": "object"},
   "all": {"type": ["null", "boolean", "object", "array", "number", "string", "integer"]},
   "empty": {},
   "yes": true,
   "no": false}},
 "strings": {"type": "object", "properties": {
   "code": {"type": "string", "pattern": "^[a-z]+\\d$"},
   "mail": {"type": "string", "format": "email"},
   "when": {"format": "date-time"},
   "uid": {"type": "string", "format": "uuid", "maxLength": 36},
   "short": {"maxLength": 1, "minLength": 1}}},
 "list": {"type": "array", "items": {"type": "integer", "maximum": 10}, "minItems": 1, "maxItems": 3},
 "refs": {"type": "object", "properties": {"count": {"$ref": "#/$defs/Count", "maximum": 100}, "twice": {"$ref": "#/$defs/Named", "required": ["name", "nick"]}}, "required": ["twice"]},
 "nested": {"type": "object", "properties": {"inner": {"type": "object", "properties": {"k": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string", "minLength": 1}}}, "required": ["k"], "additionalProperties": false}}, "required": ["inner"]},
 "untyped": {"minimum": 1, "minLength": 2, "required": ["a"], "maxItems": 1},
 "counts": {"type": "object", "minProperties": 1, "maxProperties": 2},
 "bounds": {"type": "object", "properties": {
   "big": {"type": "integer", "minimum": -9223372036854775809, "maximum": 1e30},
   "frac": {"type": "integer", "minimum": 0.5, "maximum": 10.5},
   "excl": {"type": "number", "exclusiveMinimum": -9223372036854775808, "exclusiveMaximum": 9223372036854775807},
   "three": {"type": "integer", "multipleOf": 3},
   "huge": {"multipleOf": 1e20},
   "tenth": {"type": "number", "multipleOf": 0.1},
   "tiny": {"exclusiveMaximum": 1e-7, "exclusiveMinimum": -1e-7},
   "neg": {"maximum": -2.5, "minimum": -1e20}}},
 "notes": {"type": "string", "title": "t", "description": "d", "examples": ["a"], "default": "x", "deprecated": true, "readOnly": true, "writeOnly": false, "$comment": "c", "contentEncoding": "base64", "contentMediaType": "application/json"},
 "nothing": false,
 "anything": true,
 "$defs": {"Count": {"type": "integer", "minimum": 0}, "Named": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
}`

// draft4Contract is a draft-04 contract, whose exclusiveMinimum and
// exclusiveMaximum are booleans.
const draft4Contract = `{"$schema": "http://json-schema.org/draft-04/schema#",
 "s": {"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 10, "exclusiveMaximum": true}}, "required": ["n"]}}`

// slowContract holds schemas with a keyword the fast path leaves to
// jsonschema. Their names are not keywords: the contract's root is a
// schema too, which the compiler checks against the meta-schema.
const slowContract = `{
 "with-anyOf": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
 "with-oneOf": {"type": "object", "properties": {"x": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}},
 "with-allOf": {"allOf": [{"type": "integer"}]},
 "with-not": {"not": {"type": "integer"}},
 "with-ifThen": {"if": {"type": "integer"}, "then": {"minimum": 1}},
 "with-patternProperties": {"patternProperties": {"^x": {"type": "integer"}}},
 "with-propertyNames": {"propertyNames": {"maxLength": 3}},
 "with-dependentRequired": {"dependentRequired": {"a": ["b"]}},
 "with-uniqueItems": {"type": "array", "uniqueItems": true},
 "with-prefixItems": {"prefixItems": [{"type": "integer"}]},
 "with-contains": {"contains": {"type": "integer"}},
 "with-enumObject": {"enum": [{"a": 1}]},
 "with-constArray": {"const": [1]},
 "with-unevaluated": {"type": "object", "unevaluatedProperties": false},
 "with-recursive": {"$ref": "#/$defs/Tree"},
 "with-deep": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
 "$defs": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
}`

// draft7Contract has a $ref in draft 7, where it ends its schema's checks:
// left to jsonschema.
const draft7Contract = `{"$schema": "http://json-schema.org/draft-07/schema#",
 "definitions": {"C": {"type": "integer"}},
 "s": {"properties": {"c": {"$ref": "#/definitions/C", "minimum": 5}}}}`

// compileAll compiles every schema of contract named in names.
func compileAll(t testing.TB, contract string, names ...string) map[string]*Schema {
	t.Helper()
	c, err := NewContract("test.wasm", []byte(contract))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Schema{}
	for _, name := range names {
		s, err := c.Compile("/" + name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

// fastSchemas compiles the schemas of fastContract and draft4Contract.
func fastSchemas(t testing.TB) map[string]*Schema {
	t.Helper()
	out := compileAll(t, fastContract, "users", "closed", "open", "allowed", "choices", "types", "strings", "list",
		"refs", "nested", "untyped", "counts", "bounds", "notes", "nothing", "anything")
	out["draft4"] = compileAll(t, draft4Contract, "s")["s"]
	return out
}

// outOfRangeValue is what CoerceString makes of a numeric string beyond
// the float64 range.
func outOfRangeValue(t testing.TB, lit string) any {
	t.Helper()
	_, err := jsonvalue.CanonicalNumber(lit)
	if err == nil {
		t.Fatalf("%s is in range", lit)
	}
	return outOfRange{err}
}

// fastScalars are scalar values as the host hands them to Validate: int64
// and json.Number for numbers (canonical or not), strings, booleans, null
// and numbers out of range.
func fastScalars(t testing.TB) []any {
	vals := []any{
		int64(0), int64(1), int64(-1), int64(2), int64(3), int64(5), int64(6), int64(10), int64(11), int64(100),
		int64(101), int64(149), int64(150), int64(-3), int64(math.MaxInt64), int64(math.MinInt64),
		int64(math.MaxInt64 - 1), int64(1 << 62), int64(-1 << 62),
		"", "a", "ab", "abcde", "abcdef", "héllo", "日本語", "日本", "red", "green", "x", "z", "only", `a"b`,
		"ab1", "abc9", "Ab1", "ab12", "user@example.com", "not an email", "2024-01-02T03:04:05Z",
		"2024-13-02T03:04:05Z", "123e4567-e89b-12d3-a456-426614174000", "123e4567", "0", "42", "2.5",
		true, false, nil,
		outOfRangeValue(t, "1e999999999"), outOfRangeValue(t, "-1e-400"),
	}
	for _, n := range []string{
		"0", "1", "-0", "-1", "2", "3", "0.5", "1.5", "2.25", "2.5", "2.75", "-1.5", "-1.75", "-2.5", "-3", "6",
		"10", "10.5", "11", "150", "149.9", "0.25", "0.3", "0.1", "0.30000000000000004", "1e-7", "-1e-7", "1e-8",
		"0.00000009", "9223372036854775806", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "-9223372036854775810", "99999999999999999999", "100000000000000000000",
		"200000000000000000000", "-100000000000000000000", "-100000000000000000001", "1000000000000000000000000000000",
		"1000000000000000000000000000001", "123456789012345678", "1234567890123456789", "12345678901234567890",
		"1.0", "1E2", "2.0e0", "1e20", "-1e20", "3e20", "-0.0", "0e5", "1e400", "123456789012345678901.5",
		"1.7976931348623157e308", "5e-324", "0.1e1", "10e-1", "-5e-1",
	} {
		vals = append(vals, json.Number(n))
	}
	return vals
}

// fastComposites are arrays and objects that no schema of fastContract
// names.
func fastComposites() []any {
	return []any{
		[]any{}, []any{int64(1)}, []any{int64(1), int64(11)}, []any{"a"}, []any{json.Number("10.5"), "x", nil},
		[]any{int64(1), int64(2), int64(3), int64(4)}, []any{[]any{int64(1)}}, []any{map[string]any{}},
		map[string]any{}, map[string]any{"zz": int64(1)}, map[string]any{"zz": "s", "yy": true},
		map[string]any{"zz": "long string"},
	}
}

// fastObjects builds objects for a schema declaring props: each property
// with each scalar, alone and next to good, and good with extra members.
func fastObjects(props []string, good map[string]any, scalars []any) []any {
	var out []any
	with := func(base map[string]any, k string, v any) map[string]any {
		m := map[string]any{}
		for bk, bv := range base {
			m[bk] = bv
		}
		m[k] = v
		return m
	}
	out = append(out, good)
	for _, p := range props {
		for _, v := range scalars {
			out = append(out, map[string]any{p: v}, with(good, p, v))
		}
		for _, v := range fastComposites() {
			out = append(out, with(good, p, v))
		}
	}
	for _, extra := range fastComposites()[8:] {
		m := map[string]any{}
		for k, v := range extra.(map[string]any) {
			m[k] = v
		}
		for k, v := range good {
			m[k] = v
		}
		out = append(out, m)
	}
	return out
}

// goodValues are valid values of the object schemas of fastContract.
var goodValues = map[string]map[string]any{
	"users":   {"id": int64(2)},
	"closed":  {"name": "Ada", "age": int64(36), "score": json.Number("1.25")},
	"open":    {"n": json.Number("0.5"), "zz": "abc"},
	"allowed": {"n": int64(1), "zz": []any{}},
	"choices": {"color": "red", "mixed": json.Number("2.5"), "three": int64(3), "label": `a"b`, "nothing": nil, "typed": int64(2)},
	"types":   {"ns": "x", "b": true, "nul": nil, "nn": nil, "arr": []any{}, "obj": map[string]any{}, "all": int64(1), "yes": int64(1)},
	"strings": {"code": "ab1", "mail": "a@b.co", "when": "2024-01-02T03:04:05Z", "uid": "123e4567-e89b-12d3-a456-426614174000", "short": "x"},
	"refs":    {"count": int64(5), "twice": map[string]any{"name": "n", "nick": "k"}},
	"nested":  {"inner": map[string]any{"k": int64(1), "tags": []any{"a"}}},
	"untyped": {"a": int64(1)},
	"counts":  {"a": int64(1)},
	"bounds":  {"big": int64(1), "frac": int64(1), "excl": int64(0), "three": int64(9), "huge": json.Number("300000000000000000000"), "tenth": json.Number("0.3"), "tiny": int64(0), "neg": int64(-3)},
	"draft4":  {"n": int64(5)},
}

// agree validates v both ways and fails t unless the fast path decides v
// and gives exactly jsonschema's issues.
func agree(t *testing.T, name string, s *Schema, v any) {
	t.Helper()
	slow := s.validateSlow(v)
	fast, ok := s.fast.validate(v)
	if !ok {
		t.Errorf("%s: the fast path did not decide %#v", name, v)
		return
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: Validate(%#v):\nfast %#v\nslow %#v", name, v, fast, slow)
	}
	if got := s.Validate(v); !reflect.DeepEqual(got, slow) {
		t.Errorf("%s: Validate(%#v) = %#v, want %#v", name, v, got, slow)
	}
}

// TestFastPathAgrees compares the fast path with jsonschema on every schema
// of fastContract and draft4Contract, for scalars, arrays and objects built
// from the schemas' properties.
func TestFastPathAgrees(t *testing.T) {
	scalars := fastScalars(t)
	count := 0
	for name, s := range fastSchemas(t) {
		if s.fast == nil {
			t.Errorf("%s: not compiled to the fast path", name)
			continue
		}
		vals := slices.Concat(scalars, fastComposites())
		if good, ok := goodValues[name]; ok {
			vals = append(vals, fastObjects(s.Properties(), good, scalars)...)
			vals = append(vals, fastObjects([]string{"a", "inner", "twice"}, map[string]any{}, fastComposites())...)
		}
		if name == "list" {
			for _, v := range scalars {
				vals = append(vals, []any{v}, []any{int64(1), v}, []any{v, v, v, v})
			}
		}
		for _, v := range vals {
			agree(t, name, s, v)
			count++
		}
	}
	t.Logf("%d values compared", count)
}

// TestFastPathIssues spells out the issues of the users schema, the
// params of GET /api/users/{id}.
func TestFastPathIssues(t *testing.T) {
	c, err := NewContract("test.wasm", []byte(fastContract))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("/users")
	if err != nil {
		t.Fatal(err)
	}
	if s.fast == nil {
		t.Fatal("the users schema is not on the fast path")
	}
	id := func(raw string) map[string]any { return map[string]any{"id": s.CoerceString("id", raw)} }
	tests := []struct {
		name  string
		value any
		want  []Issue
	}{
		{"valid", id("2"), nil},
		{"largest int64", id("9223372036854775807"), nil},
		{"beyond int64", id("9223372036854775808"), []Issue{{Path: []any{"id"}, Message: "must be less than or equal to 9223372036854775807"}}},
		{"zero", id("0"), []Issue{{Path: []any{"id"}, Message: "must be greater than or equal to 1"}}},
		{"fraction", id("1.5"), []Issue{{Path: []any{"id"}, Message: "expected integer, received number"}}},
		{"not a number", id("abc"), []Issue{{Path: []any{"id"}, Message: "expected integer, received string"}}},
		{"out of range", id("1e999999999"), []Issue{{Path: []any{"id"}, Message: "number out of range: 1e999999999 exceeds the float64 range; send a number within ±1.7976931348623157e308"}}},
		{"missing", map[string]any{}, []Issue{{Path: []any{"id"}, Message: "is required"}}},
		{"not an object", "x", []Issue{{Path: []any{}, Message: "expected object, received string"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := s.fast.validate(tt.value)
			if !ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("fast path: %#v, %v; want %#v", got, ok, tt.want)
			}
			if slow := s.validateSlow(tt.value); !reflect.DeepEqual(slow, tt.want) {
				t.Errorf("jsonschema: %#v; want %#v", slow, tt.want)
			}
		})
	}
}

// TestFastPathLeavesTheRest checks that schemas with keywords the fast
// path does not cover, anywhere in them, stay with jsonschema, and that
// values the fast path does not read go to jsonschema too.
func TestFastPathLeavesTheRest(t *testing.T) {
	names := []string{"anyOf", "oneOf", "allOf", "not", "ifThen", "patternProperties", "propertyNames",
		"dependentRequired", "uniqueItems", "prefixItems", "contains", "enumObject", "constArray", "unevaluated",
		"recursive", "deep"}
	for i, name := range names {
		names[i] = "with-" + name
	}
	for name, s := range compileAll(t, slowContract, names...) {
		if s.fast != nil {
			t.Errorf("%s: compiled to the fast path", name)
		}
	}
	if s := compileAll(t, draft7Contract, "s")["s"]; s.fast != nil {
		t.Error("draft-07 $ref: compiled to the fast path")
	}
	s := fastSchemas(t)["bounds"]
	for _, v := range []any{
		map[string]any{"big": 3},                         // a Go int
		map[string]any{"big": 3.0},                       // a float64
		map[string]any{"big": json.Number("1e5000")},     // beyond maxFastPoint
		map[string]any{"tenth": json.Number("007")},      // not JSON
		map[string]any{"tenth": json.Number("+1")},       // not JSON
		map[string]any{"three": struct{}{}},              // no JSON type
		map[string]any{"huge": json.Number("1.0000001")}, // multipleOf a literal: decided
	} {
		_, ok := s.fast.validate(v)
		if want := v.(map[string]any)["huge"] != nil; ok != want {
			t.Errorf("fast path decided %#v: %v, want %v", v, ok, want)
		}
	}
	// Undecided values still get jsonschema's issues through Validate.
	v := map[string]any{"big": json.Number("1e5000")}
	if got, want := s.Validate(v), s.validateSlow(v); !reflect.DeepEqual(got, want) {
		t.Errorf("Validate(%#v) = %#v, want %#v", v, got, want)
	}
}

// TestFastPathKnowsEverySchemaField fails when jsonschema.Schema gains an
// exported field (a new keyword, after an upgrade) that fastKeywordsOnly
// and fastBuilder.node have not been taught: a keyword the fast path
// ignored would pass values jsonschema refuses.
func TestFastPathKnowsEverySchemaField(t *testing.T) {
	known := map[string]string{
		// Read by the fast path.
		"Bool": "read", "Types": "read", "Enum": "read", "Const": "read", "Format": "read", "Ref": "read",
		"MaxProperties": "read", "MinProperties": "read", "Required": "read", "Properties": "read",
		"AdditionalProperties": "read", "MinItems": "read", "MaxItems": "read", "Items": "read", "Items2020": "read",
		"MinLength": "read", "MaxLength": "read", "Pattern": "read", "Maximum": "read", "Minimum": "read",
		"ExclusiveMaximum": "read", "ExclusiveMinimum": "read", "MultipleOf": "read", "DraftVersion": "read",
		// Refused by fastKeywordsOnly.
		"RecursiveRef": "slow", "DynamicRef": "slow", "Not": "slow", "AllOf": "slow", "AnyOf": "slow",
		"OneOf": "slow", "If": "slow", "Then": "slow", "Else": "slow", "PropertyNames": "slow",
		"PatternProperties": "slow", "Dependencies": "slow", "DependentRequired": "slow", "DependentSchemas": "slow",
		"UnevaluatedProperties": "slow", "UniqueItems": "slow", "Contains": "slow", "MinContains": "slow",
		"MaxContains": "slow", "AdditionalItems": "slow", "PrefixItems": "slow", "UnevaluatedItems": "slow",
		"ContentEncoding": "slow", "ContentMediaType": "slow", "ContentSchema": "slow", "Extensions": "slow",
		// Change nothing in validation: where the schema is, its
		// identifiers (refs are resolved at compile time; no
		// $recursiveRef or $dynamicRef reaches the fast path) and
		// annotations.
		"Location": "none", "ID": "none", "Anchor": "none", "RecursiveAnchor": "none", "DynamicAnchor": "none",
		"Title": "none", "Description": "none", "Default": "none", "Comment": "none", "ReadOnly": "none",
		"WriteOnly": "none", "Examples": "none", "Deprecated": "none",
	}
	typ := reflect.TypeFor[jsonschema.Schema]()
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.IsExported() && known[f.Name] == "" {
			t.Errorf("jsonschema.Schema.%s: a field the fast path does not know", f.Name)
		}
	}
}

// TestDecimalCompare checks decimal.cmp against big.Rat on int64s and
// literals around the bounds of fastContract.
func TestDecimalCompare(t *testing.T) {
	bounds := []string{"0", "1", "-1", "0.5", "-0.5", "10.5", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "9223372036854775807.5", "-9223372036854775808.5",
		"1e30", "-1e30", "1e-7", "-1e-7", "2.25", "123.456"}
	nums := []string{"0", "1", "-1", "2", "-2", "10", "11", "9223372036854775807", "-9223372036854775808",
		"9223372036854775806", "-9223372036854775807", "0.5", "0.49", "0.51", "-0.5", "10.5", "10.50001",
		"9223372036854775808", "9223372036854775807.5", "1e30", "1.0e30", "1e-7", "1e-8", "2.25", "2.2500001",
		"123.456", "123.4559999", "-1e30", "-1e-7", "-0", "0.0"}
	for _, b := range bounds {
		r, _ := newRat(b)
		d, ok := newDecimal(r)
		if !ok {
			t.Fatalf("newDecimal(%s) failed", b)
		}
		for _, s := range nums {
			want := mustRat(t, s).Cmp(r)
			n, ok := readNumber(s)
			if !ok {
				t.Fatalf("readNumber(%s) failed", s)
			}
			if got := d.cmp(&n); got != want {
				t.Errorf("cmp(%s, %s) = %d, want %d", s, b, got, want)
			}
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				n := number{small: true, i: i}
				if got := d.cmp(&n); got != want {
					t.Errorf("cmp(int64 %s, %s) = %d, want %d", s, b, got, want)
				}
			}
		}
	}
}

// FuzzFastPathAgrees compares the fast path with jsonschema on the schemas
// of fastContract and on schemas built from the fuzzer's numbers and text,
// for values made as the host makes them: from a JSON body
// (jsonvalue.Decode), from a query string (CoerceStrings), and from the
// fuzzer's numbers and text directly.
//
//	go test -run '^$' -fuzz FuzzFastPathAgrees -fuzztime 60s ./internal/validation
//
// shape picks the schema: below 128 one of fastContract, else one built
// by fuzzSchema from x, y, scale and text.
func FuzzFastPathAgrees(f *testing.F) {
	fixed := fastSchemas(f)
	names := make([]string, 0, len(fixed))
	for name := range fixed {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		body, _ := json.Marshal(goodValues[name])
		f.Add(uint8(i), int64(i), int64(-i), uint8(i), "ab1", string(body), "id=2&age=1.5&name=x&n=1e999999999")
	}
	f.Add(uint8(128), int64(1), int64(math.MaxInt64), uint8(0), "", `{"v": 9223372036854775806}`, "v=9223372036854775808")
	f.Add(uint8(129), int64(1), int64(25), uint8(0x12), "", `{"v": 0.75}`, "v=0.3")
	f.Add(uint8(130), int64(3), int64(5), uint8(0), "^a+$", `{"v": "aaa"}`, "v=aaaa")
	f.Add(uint8(131), int64(10), int64(2), uint8(0x11), "", `{"v": [1, "x", 3]}`, "v=1&v=2")
	f.Add(uint8(132), int64(25), int64(-3), uint8(0x21), "x", `{"v": 2.5}`, "v=x")
	f.Add(uint8(133), int64(-15), int64(3), uint8(0x01), "ab", `{"v": -1.5}`, "v=abc")
	f.Add(uint8(134), int64(7), int64(100), uint8(0x13), "", `{"v": 7}`, "v=7.0")
	f.Add(uint8(135), int64(-5), int64(10), uint8(0x05), "w", `{"v": {"w": -0.00005, "zz": 11}}`, "")
	f.Fuzz(func(t *testing.T, shape uint8, x, y int64, scale uint8, text, body, query string) {
		name, s := fuzzSchema(t, fixed, names, shape, x, y, scale, text)
		if s == nil {
			return
		}
		if v, _, err := jsonvalue.Decode([]byte(body), jsonvalue.Limits{}); err == nil {
			agreeFuzz(t, name, s, v)
		}
		q, _ := url.ParseQuery(query)
		coerced, raw := map[string]any{}, map[string]any{}
		for k, vs := range q {
			coerced[k] = s.CoerceStrings(k, vs)
			// Numbers written otherwise than the host writes them: 1.0,
			// 1E2. The fast path must read them as jsonschema does.
			if moderateNumber(vs[0]) {
				raw[k] = json.Number(vs[0])
			} else {
				raw[k] = vs[0]
			}
		}
		agreeFuzz(t, name, s, coerced)
		agreeFuzz(t, name, s, raw)
		// The fuzzer's numbers and text as values of every property,
		// next to the bounds made of the same numbers.
		lit := literal(y, scale>>4)
		canon, _ := jsonvalue.CanonicalNumber(lit)
		values := []any{int64(y), json.Number(lit), canon, text, s.CoerceString("v", text), []any{int64(x), json.Number(literal(x, scale))}}
		props := s.Properties()
		if len(props) == 0 {
			props = []string{"v"}
		}
		for _, v := range values {
			agreeFuzz(t, name, s, v)
			for _, p := range props {
				agreeFuzz(t, name, s, map[string]any{p: v})
			}
		}
	})
}

// literal writes n as a JSON number literal: with its last scale&15
// digits after the decimal point, and for a scale of 16 or more with the
// exponent 3·(scale&15).
func literal(n int64, scale uint8) string {
	digits := strconv.FormatUint(uint64(n), 10)
	sign := ""
	if n < 0 {
		sign, digits = "-", strconv.FormatUint(-uint64(n), 10)
	}
	k := int(scale & 15)
	if scale&16 != 0 {
		return sign + digits + "e" + strconv.Itoa(3*k)
	}
	if k == 0 {
		return sign + digits
	}
	for len(digits) <= k {
		digits = "0" + digits
	}
	return sign + digits[:len(digits)-k] + "." + digits[len(digits)-k:]
}

// fuzzSchema picks the schema of a fuzz input: one of fixed, or one whose
// bounds are made of x, y and scale, and whose pattern, enum or required
// name is text. It returns nil when text makes no schema (an invalid
// pattern).
func fuzzSchema(t *testing.T, fixed map[string]*Schema, names []string, shape uint8, x, y int64, scale uint8, text string) (string, *Schema) {
	if shape < 128 {
		name := names[int(shape)%len(names)]
		return name, fixed[name]
	}
	a, b := literal(x, scale), literal(y, scale>>4)
	pos := literal(max(1, y&0xffff), scale>>4) // for multipleOf
	small := func(n int64) int64 { return (n%6 + 6) % 6 }
	q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	var prop string
	switch shape % 8 {
	case 0:
		prop = fmt.Sprintf(`{"type": "integer", "minimum": %s, "maximum": %s}`, a, b)
	case 1:
		prop = fmt.Sprintf(`{"type": "number", "exclusiveMinimum": %s, "multipleOf": %s}`, a, pos)
	case 2:
		prop = fmt.Sprintf(`{"type": "string", "pattern": %s, "maxLength": %d, "minLength": %d}`, q(text), small(y), small(x))
	case 3:
		prop = fmt.Sprintf(`{"type": "array", "items": {"type": "integer", "maximum": %s}, "minItems": %d, "maxItems": %d}`, a, small(y), small(x)+1)
	case 4:
		prop = fmt.Sprintf(`{"enum": [%s, %s, %s, true, null]}`, a, b, q(text))
	case 5:
		prop = fmt.Sprintf(`{"type": ["number", "string"], "exclusiveMaximum": %s, "minLength": %d}`, a, small(y))
	case 6:
		prop = fmt.Sprintf(`{"const": %s, "maximum": %s}`, a, b)
	default:
		prop = fmt.Sprintf(`{"type": "object", "properties": {"w": {"minimum": %s}}, "required": [%s], "additionalProperties": {"$ref": "#/$defs/Max"}}`, a, q(text))
	}
	contract := fmt.Sprintf(`{"s": {"type": "object", "properties": {"v": %s}, "required": ["v"], "additionalProperties": false}, "$defs": {"Max": {"maximum": %s}}}`, prop, b)
	c, err := NewContract("fuzz.wasm", []byte(contract))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("/s")
	if err != nil {
		return "", nil // an invalid pattern
	}
	if s.fast == nil {
		t.Fatalf("%s: not compiled to the fast path", contract)
	}
	return contract, s
}

// moderateNumber reports whether s is a JSON number literal within
// 10^±400: beyond, jsonschema would compute with big.Rat for long.
func moderateNumber(s string) bool {
	n, ok := jsonnum.Parse(s)
	return ok && n.Point < 400 && n.Point > -400
}

// agreeFuzz is agree for fuzzed values. jsonschema orders the issues of
// two paths that print alike (["ab"] and ["a", "b"]) by map iteration, so
// a difference counts only when jsonschema gives the same issues every
// time.
func agreeFuzz(t *testing.T, name string, s *Schema, v any) {
	t.Helper()
	slow := s.validateSlow(v)
	fast, ok := s.fast.validate(v)
	if !ok {
		t.Fatalf("%s: the fast path did not decide %#v", name, v)
	}
	if reflect.DeepEqual(fast, slow) {
		return
	}
	for range 50 {
		if again := s.validateSlow(v); !reflect.DeepEqual(again, slow) {
			return
		}
	}
	t.Fatalf("%s: Validate(%#v):\nfast %#v\nslow %#v", name, v, fast, slow)
}

// newRat reads a number literal as jsonschema does.
func newRat(s string) (*big.Rat, bool) { return new(big.Rat).SetString(s) }

// mustRat is newRat for a literal known to be valid.
func mustRat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := newRat(s)
	if !ok {
		t.Fatalf("not a number: %s", s)
	}
	return r
}
