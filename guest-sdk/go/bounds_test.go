package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// numericTypes are Go's numeric types with the schema derived from each.
var numericTypes = []struct {
	typ    reflect.Type
	schema string
}{
	{reflect.TypeFor[int](), `{"type":"integer",` + intBounds + `}`},
	{reflect.TypeFor[int8](), `{"type":"integer","minimum":-128,"maximum":127}`},
	{reflect.TypeFor[int16](), `{"type":"integer","minimum":-32768,"maximum":32767}`},
	{reflect.TypeFor[int32](), `{"type":"integer","minimum":-2147483648,"maximum":2147483647}`},
	{reflect.TypeFor[int64](), `{"type":"integer",` + int64Bounds + `}`},
	{reflect.TypeFor[uint](), `{"type":"integer","minimum":0,` + uintMaximum + `}`},
	{reflect.TypeFor[uint8](), `{"type":"integer","minimum":0,"maximum":255}`},
	{reflect.TypeFor[uint16](), `{"type":"integer","minimum":0,"maximum":65535}`},
	{reflect.TypeFor[uint32](), `{"type":"integer","minimum":0,"maximum":4294967295}`},
	{reflect.TypeFor[uint64](), `{"type":"integer","minimum":0,"maximum":18446744073709551615}`},
	{reflect.TypeFor[uintptr](), fmt.Sprintf(`{"type":"integer","minimum":0,"maximum":%d}`, uint64(^uintptr(0)))},
	{reflect.TypeFor[float32](), `{"type":"number",` + float32Bounds + `}`},
	{reflect.TypeFor[float64](), `{"type":"number"}`},
}

// numberPlaces are the places of an input struct where a numeric type T
// can be: in builds an input struct with T there, and at is the JSON
// pointer of T's schema in the request of the contract. slice says that
// the place is []T, which is no array of numbers for T = uint8 ([]byte is
// a base64 string).
var numberPlaces = []struct {
	name  string
	in    func(t reflect.Type) reflect.Type
	at    string
	slice bool
}{
	{"path parameter", param(`path:"v"`, nil), "/params/properties/v", false},
	{"query parameter", param(`query:"v"`, nil), "/query/properties/v", false},
	{"header parameter", param(`header:"x-v"`, nil), "/headers/properties/x-v", false},
	{"optional query parameter", param(`query:"v"`, reflect.PointerTo), "/query/properties/v", false},
	{"repeated query parameter", param(`query:"v"`, reflect.SliceOf), "/query/properties/v/items", true},
	{"repeated header parameter", param(`header:"x-v"`, reflect.SliceOf), "/headers/properties/x-v/items", true},
	{"body field", body(nil), "/body/schema/properties/v", false},
	{"optional body field", body(reflect.PointerTo), "/body/schema/properties/v", false},
	{"nested body field", body(func(t reflect.Type) reflect.Type {
		return reflect.StructOf([]reflect.StructField{{Name: "W", Type: t, Tag: `json:"w"`}})
	}), "/body/schema/properties/v/properties/w", false},
	{"slice items", body(reflect.SliceOf), "/body/schema/properties/v/items", true},
	{"array items", body(func(t reflect.Type) reflect.Type { return reflect.ArrayOf(3, t) }), "/body/schema/properties/v/items", false},
	{"map values", body(func(t reflect.Type) reflect.Type { return reflect.MapOf(reflect.TypeFor[string](), t) }),
		"/body/schema/properties/v/additionalProperties", false},
	{"pointers in a slice", body(func(t reflect.Type) reflect.Type { return reflect.SliceOf(reflect.PointerTo(t)) }),
		"/body/schema/properties/v/items", false},
	{"body itself", func(t reflect.Type) reflect.Type {
		return reflect.StructOf([]reflect.StructField{{Name: "Body", Type: t}})
	}, "/body/schema", false},
}

// param returns an input struct maker with one parameter field V of type
// wrap(T) and the given tag.
func param(tag reflect.StructTag, wrap func(reflect.Type) reflect.Type) func(reflect.Type) reflect.Type {
	return func(t reflect.Type) reflect.Type {
		if wrap != nil {
			t = wrap(t)
		}
		return reflect.StructOf([]reflect.StructField{{Name: "V", Type: t, Tag: tag}})
	}
}

// body returns an input struct maker whose Body has one member "v" of
// type wrap(T).
func body(wrap func(reflect.Type) reflect.Type) func(reflect.Type) reflect.Type {
	return func(t reflect.Type) reflect.Type {
		if wrap != nil {
			t = wrap(t)
		}
		b := reflect.StructOf([]reflect.StructField{{Name: "V", Type: t, Tag: `json:"v"`}})
		return reflect.StructOf([]reflect.StructField{{Name: "Body", Type: b}})
	}
}

// pointerAt returns the value at the JSON pointer ptr of the JSON doc,
// as written (member order and number text kept), compacted.
func pointerAt(t *testing.T, doc []byte, ptr string) string {
	t.Helper()
	v := json.RawMessage(doc)
	for tok := range strings.SplitSeq(strings.TrimPrefix(ptr, "/"), "/") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			t.Fatalf("%s: %v in %s", ptr, err, doc)
		}
		var ok bool
		if v, ok = m[tok]; !ok {
			t.Fatalf("%s: no member %q in %s", ptr, tok, doc)
		}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, v); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestDerivedBoundsEverywhere derives the request schema of every numeric
// type in every place of an input struct: the schema states the type's
// range wherever the type is.
func TestDerivedBoundsEverywhere(t *testing.T) {
	for _, place := range numberPlaces {
		for _, nt := range numericTypes {
			if place.slice && nt.typ.Kind() == reflect.Uint8 {
				continue
			}
			t.Run(place.name+"/"+nt.typ.String(), func(t *testing.T) {
				_, req, err := newBuilder().planInput(place.in(nt.typ), RequestSchemas{})
				if err != nil {
					t.Fatalf("planInput: %v", err)
				}
				doc, err := json.Marshal(req)
				if err != nil {
					t.Fatal(err)
				}
				if got := pointerAt(t, doc, place.at); got != nt.schema {
					t.Errorf("schema at %s:\n got %s\nwant %s", place.at, got, nt.schema)
				}
			})
		}
	}
}

// TestDerivedBoundsInResponses: a response type's numbers state their
// ranges too, in its $defs entry.
func TestDerivedBoundsInResponses(t *testing.T) {
	type Count struct {
		N     uint8            `json:"n"`
		Parts map[string]int32 `json:"parts"`
	}
	_, defs := deriveJSON(t, reflect.TypeFor[Count]())
	want := `{"Count":{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":255},` +
		`"parts":{"type":"object","additionalProperties":{"type":"integer","minimum":-2147483648,"maximum":2147483647}}},` +
		`"required":["n","parts"],"additionalProperties":false}}`
	if defs != want {
		t.Errorf("$defs:\n got %s\nwant %s", defs, want)
	}
}

// Types of TestBoundTagsOutsideTheType, named so that messages name them.
type (
	smallCount struct {
		N uint8 `query:"n" maximum:"300"`
	}
	negativeCount struct {
		N uint8 `query:"n" minimum:"-1"`
	}
	exclusiveCount struct {
		N uint8 `query:"n" exclusiveMaximum:"256"`
	}
	exclusiveBelow struct {
		N uint8 `path:"n" exclusiveMinimum:"-1"`
	}
	hugeFloat struct {
		X float32 `header:"x" minimum:"-1e39"`
	}
	tinyItems struct {
		IDs []int8 `query:"id" maximum:"128"`
	}
	enumCount struct {
		N uint16 `query:"n" enum:"1,70000"`
	}
	defaultCount struct {
		N int8 `query:"n" default:"-129"`
	}
	wideInt struct {
		N int64 `query:"n" maximum:"9223372036854775808"`
	}
	bodyCount struct {
		Body struct {
			Items map[string]uint32 `json:"items" minimum:"-5"`
		}
	}
	itemsDefault struct {
		IDs []int8 `query:"id" default:"1,-200"`
	}
	// Order is a body struct with a field whose tag leaves its type.
	Order struct {
		Qty uint16 `json:"qty" maximum:"100000"`
	}
	nestedCount struct {
		Body Order
	}
)

// TestBoundTagsOutsideTheType: a number tag the field's type cannot reach
// is a registration error that names the field and the type's range.
func TestBoundTagsOutsideTheType(t *testing.T) {
	in := func(typ reflect.Type, field string) string {
		return "endpoints." + typ.Name() + " field " + field + ": "
	}
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"maximum above", reflect.TypeFor[smallCount](), in(reflect.TypeFor[smallCount](), "N") +
			`tag maximum:"300": 300 is outside the range of uint8 (0 to 255): use a value within it, or a wider type`},
		{"minimum below", reflect.TypeFor[negativeCount](), in(reflect.TypeFor[negativeCount](), "N") +
			`tag minimum:"-1": -1 is outside the range of uint8 (0 to 255): use a value within it, or a wider type`},
		{"exclusive maximum above", reflect.TypeFor[exclusiveCount](), in(reflect.TypeFor[exclusiveCount](), "N") +
			`tag exclusiveMaximum:"256": 256 is outside the range of uint8 (0 to 255): use a value within it, or a wider type`},
		{"exclusive minimum below", reflect.TypeFor[exclusiveBelow](), in(reflect.TypeFor[exclusiveBelow](), "N") +
			`tag exclusiveMinimum:"-1": -1 is outside the range of uint8 (0 to 255): use a value within it, or a wider type`},
		{"float32 minimum", reflect.TypeFor[hugeFloat](), in(reflect.TypeFor[hugeFloat](), "X") +
			`tag minimum:"-1e39": -1e39 is outside the range of float32 (-3.4028235e+38 to 3.4028235e+38): use a value within it, or a wider type`},
		{"slice items", reflect.TypeFor[tinyItems](), in(reflect.TypeFor[tinyItems](), "IDs") +
			`tag maximum:"128": 128 is outside the range of int8 (-128 to 127): use a value within it, or a wider type`},
		{"enum value", reflect.TypeFor[enumCount](), in(reflect.TypeFor[enumCount](), "N") +
			`tag enum:"1,70000": 70000 is outside the range of uint16 (0 to 65535): use a value within it, or a wider type`},
		{"default value", reflect.TypeFor[defaultCount](), in(reflect.TypeFor[defaultCount](), "N") +
			`tag default:"-129": -129 is outside the range of int8 (-128 to 127): use a value within it, or a wider type`},
		{"one past int64", reflect.TypeFor[wideInt](), in(reflect.TypeFor[wideInt](), "N") +
			`tag maximum:"9223372036854775808": 9223372036854775808 is outside the range of int64 (-9223372036854775808 to 9223372036854775807): use a value within it, or a wider type`},
		{"map values of a body", reflect.TypeFor[bodyCount](), in(reflect.TypeFor[bodyCount](), "Body") +
			"struct { Items map[string]uint32 \"json:\\\"items\\\" minimum:\\\"-5\\\"\" } field Items: " +
			`tag minimum:"-5": -5 is outside the range of uint32 (0 to 4294967295): use a value within it, or a wider type`},
		{"slice default item", reflect.TypeFor[itemsDefault](), in(reflect.TypeFor[itemsDefault](), "IDs") +
			`tag default:"1,-200": -200 is outside the range of int8 (-128 to 127): use a value within it, or a wider type`},
		{"field of a body struct", reflect.TypeFor[nestedCount](), in(reflect.TypeFor[nestedCount](), "Body") +
			`endpoints.Order field Qty: tag maximum:"100000": 100000 is outside the range of uint16 (0 to 65535): use a value within it, or a wider type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := newBuilder().planInput(tc.typ, RequestSchemas{})
			if err == nil {
				t.Fatalf("planInput succeeded, want the error %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error:\n got %s\nwant %s", err, tc.want)
			}
		})
	}
}

// TestBoundTagsRegistrationPanics: Handle reports a tag outside the type
// as the module's load failure, naming operation, type, field and range.
func TestBoundTagsRegistrationPanics(t *testing.T) {
	t.Cleanup(Reset)
	Reset()
	want := `endpoints (Summary "Count"): endpoints.smallCount field N: tag maximum:"300": ` +
		`300 is outside the range of uint8 (0 to 255): use a value within it, or a wider type`
	defer func() {
		if got := fmt.Sprint(recover()); got != want {
			t.Errorf("panic:\n got %s\nwant %s", got, want)
		}
	}()
	Handle(Operation{Summary: "Count"}, func(*smallCount) Reply { return Respond(204, nil) })
}

// TestIntBoundsFollowThePlatform: int, uint and uintptr take their size
// from the target, as reflect reports it; WebAssembly's is 64 bits.
func TestIntBoundsFollowThePlatform(t *testing.T) {
	for _, tc := range []struct {
		typ      reflect.Type
		min, max string
	}{
		{reflect.TypeFor[int](), fmt.Sprint(math.MinInt), fmt.Sprint(math.MaxInt)},
		{reflect.TypeFor[uint](), "0", fmt.Sprint(uint64(math.MaxUint))},
		{reflect.TypeFor[uintptr](), "0", fmt.Sprint(uint64(^uintptr(0)))},
	} {
		t.Run(tc.typ.String(), func(t *testing.T) {
			r := rangeOf(tc.typ)
			if r.min != tc.min || r.max != tc.max {
				t.Errorf("range = %s to %s, want %s to %s", r.min, r.max, tc.min, tc.max)
			}
		})
	}
}
