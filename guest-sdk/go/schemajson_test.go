package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// MarshalJSON writes the members as one JSON object, in order: with it,
// encoding/json writes a *schema as the contract has it, which makes
// referenceJSON the encoding schema.appendJSON is held to. It is defined
// here, not in the package: the package writes schemas with appendJSON
// only.
func (p properties) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, prop := range p {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, err := marshalJSON(prop.name)
		if err != nil {
			return nil, err
		}
		buf.Write(name)
		buf.WriteByte(':')
		s, err := marshalJSON(prop.schema)
		if err != nil {
			return nil, err
		}
		buf.Write(s)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// checkSchemaJSON fails t when s.json() differs from encoding/json's
// encoding of s, or fails where it does not.
func checkSchemaJSON(t *testing.T, what string, s *schema) {
	t.Helper()
	want, wantErr := marshalJSON(s)
	got, err := s.json()
	switch {
	case (err != nil) != (wantErr != nil):
		t.Fatalf("%s: error %v, encoding/json's %v", what, err, wantErr)
	case err == nil && !bytes.Equal(got, want):
		t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// oddStrings are strings whose JSON escaping differs between encoders:
// quotes, backslashes, control characters, HTML characters (which a
// contract keeps as they are), non-ASCII, U+2028/U+2029 and invalid UTF-8.
var oddStrings = []string{
	"", "plain", `quote " backslash \ slash /`, "<b>&amp;</b> a > b", "tab\tnew\nline\r\x00\x1f\x7f",
	"héllo wörld ✓ 😀", "\u2028\u2029", "bad \xff utf-8 \xc3(", "^[a-z]+(\\.[a-z]+)*$",
	"long " + strings.Repeat("<&>é\"", 20),
}

// oddRaws are json.RawMessage values of a schema: numbers at and past
// the bounds of Go's types, exponents, strings with escapes, containers,
// and JSON with white space inside, which encoding/json compacts.
var oddRaws = []json.RawMessage{
	json.RawMessage(`0`), json.RawMessage(`-9223372036854775808`), json.RawMessage(`18446744073709551615`),
	json.RawMessage(`3.4028234663852886e+38`), json.RawMessage(`-1.5e-300`), json.RawMessage(`1E400`),
	json.RawMessage(`"<a href=\"x\">&amp;</a>"`), json.RawMessage(`"\u00e9\u2028 é"`), json.RawMessage(`true`),
	json.RawMessage(`null`), json.RawMessage(`{"a":[1,2,{"b":null}],"<":">"}`),
	json.RawMessage(" {\n \"a\" : [ 1 , 2 ] ,\t\"b\":\"x y\" } "), json.RawMessage(`[ ]`),
}

// TestSchemaJSON holds schema.appendJSON, which writes every contract's
// schemas, to encoding/json's encoding of the same schemas: derived from
// the types of the package's tests, built by hand with each field set
// alone and with odd values, and built at random.
func TestSchemaJSON(t *testing.T) {
	t.Run("derived", func(t *testing.T) {
		for _, typ := range []reflect.Type{
			reflect.TypeFor[Person](), reflect.TypeFor[Tree](), reflect.TypeFor[Page[Person]](),
			reflect.TypeFor[Derived](), reflect.TypeFor[Ambiguous](), reflect.TypeFor[Level](),
			reflect.TypeFor[netAddr](), reflect.TypeFor[customJSON](), reflect.TypeFor[time.Time](),
			reflect.TypeFor[map[string][]*Address](), reflect.TypeFor[[3]int8](), reflect.TypeFor[[]byte](),
			reflect.TypeFor[struct {
				_ struct{}          `doc:"A <thing> & more." example:"{\"n\": 1, \"s\": \"<é>\"}"`
				N int               `json:"n" minimum:"-3" exclusiveMaximum:"10" multipleOf:"0.5" default:"2" example:"4"`
				U uint8             `json:"u,omitempty" enum:"1,2,255"`
				F float32           `json:"f" maximum:"1e10" doc:"ratio \"quoted\""`
				S string            `json:"s" minLength:"1" maxLength:"64" pattern:"^[<>&]+$" format:"email" enum:"a,<b>,é" default:"<b>" deprecated:"true" readOnly:"true"`
				L []int16           `json:"l" minItems:"1" maxItems:"3" uniqueItems:"true" minimum:"0" example:"[1, 2]"`
				M map[string]string `json:"m,omitempty" minProperties:"1" maxProperties:"9" writeOnly:"true"`
				P *string           `json:"p" nullable:"true" doc:"maybe" default:"x"`
				Q int64             `json:"q,string"`
				D time.Duration     `json:"d" exclusiveMinimum:"0"`
				É bool              `json:"é\u2028<key>"`
			}](),
		} {
			b := newBuilder()
			s, err := b.schemaOf(typ)
			if err != nil {
				t.Fatalf("schemaOf(%s): %v", typ, err)
			}
			checkSchemaJSON(t, typ.String(), s)
			for name, d := range b.defs {
				checkSchemaJSON(t, typ.String()+" $defs/"+name, d)
			}
		}
	})

	t.Run("each field alone", func(t *testing.T) {
		// Every field of schema, set to a value of its type: a field
		// added to schema and not to appendJSON fails here.
		st := reflect.TypeFor[schema]()
		for i := range st.NumField() {
			f := st.Field(i)
			if !f.IsExported() {
				continue
			}
			for _, v := range fieldValues(t, f) {
				var s schema
				reflect.ValueOf(&s).Elem().Field(i).Set(v)
				checkSchemaJSON(t, fmt.Sprintf("%s = %#v", f.Name, v.Interface()), &s)
			}
		}
	})

	t.Run("nil and empty", func(t *testing.T) {
		checkSchemaJSON(t, "nil", nil)
		checkSchemaJSON(t, "zero", &schema{})
		checkSchemaJSON(t, "empty slices", &schema{AnyOf: []*schema{}, Enum: []json.RawMessage{}, Properties: properties{}, Required: []string{}, Examples: []json.RawMessage{}, Default: json.RawMessage{}})
		checkSchemaJSON(t, "nil members", &schema{AnyOf: []*schema{nil}, Enum: []json.RawMessage{nil}, Properties: properties{{name: "x"}}, AdditionalProperties: (*schema)(nil)})
	})

	t.Run("invalid JSON", func(t *testing.T) {
		for _, raw := range []string{`{`, `01`, `"\x01"`, `1 2`, `nul`} {
			checkSchemaJSON(t, "default "+raw, &schema{Default: json.RawMessage(raw)})
			checkSchemaJSON(t, "enum "+raw, &schema{Enum: []json.RawMessage{json.RawMessage(`1`), json.RawMessage(raw)}})
			checkSchemaJSON(t, "nested "+raw, &schema{Items: &schema{Properties: properties{{name: "a", schema: &schema{Examples: []json.RawMessage{json.RawMessage(raw)}}}}}})
		}
	})

	t.Run("random", func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 26))
		for i := range 3000 {
			checkSchemaJSON(t, fmt.Sprintf("random schema %d", i), randomSchema(r, 3))
		}
	})
}

// fieldValues returns values of the type of schema field f for
// TestSchemaJSON: the odd strings and raw values, and small containers.
func fieldValues(t *testing.T, f reflect.StructField) []reflect.Value {
	n := uint64(7)
	var vs []any
	switch f.Type {
	case reflect.TypeFor[string]():
		for _, s := range oddStrings {
			vs = append(vs, s)
		}
	case reflect.TypeFor[json.RawMessage]():
		for _, raw := range oddRaws {
			vs = append(vs, raw)
		}
	case reflect.TypeFor[[]json.RawMessage]():
		vs = append(vs, oddRaws, oddRaws[:1])
	case reflect.TypeFor[*uint64](), reflect.TypeFor[uint64]():
		big, zero := uint64(1<<64-1), uint64(0)
		vs = append(vs, &n, &big, &zero)
	case reflect.TypeFor[bool]():
		vs = append(vs, true)
	case reflect.TypeFor[*schema]():
		vs = append(vs, &schema{}, &schema{Type: "string", Description: "<x>"})
	case reflect.TypeFor[[]*schema]():
		vs = append(vs, []*schema{{Type: "string"}, {Type: "null"}})
	case reflect.TypeFor[properties]():
		vs = append(vs, properties{{name: "<é>", schema: &schema{Type: "integer"}}, {name: "b\"", schema: &schema{}}})
	case reflect.TypeFor[[]string]():
		vs = append(vs, oddStrings)
	case reflect.TypeFor[any]():
		vs = append(vs, false, true, &schema{Type: "string"}, map[string]int{"<": 1})
	default:
		t.Fatalf("schema field %s has type %s, which TestSchemaJSON does not set: add its values", f.Name, f.Type)
	}
	out := make([]reflect.Value, len(vs))
	for i, v := range vs {
		out[i] = reflect.ValueOf(v)
	}
	return out
}

// randomSchema builds a schema of random fields, nested up to depth.
func randomSchema(r *rand.Rand, depth int) *schema {
	s := &schema{}
	str := func() string { return oddStrings[r.IntN(len(oddStrings))] }
	raw := func() json.RawMessage { return oddRaws[r.IntN(len(oddRaws))] }
	count := func() *uint64 { n := r.Uint64() >> r.IntN(64); return &n }
	maybe := func() bool { return r.IntN(4) == 0 }
	if maybe() {
		s.Ref = str()
	}
	if depth > 0 && maybe() {
		for range r.IntN(3) {
			s.AnyOf = append(s.AnyOf, randomSchema(r, depth-1))
		}
	}
	for _, f := range []*string{&s.Type, &s.Description, &s.Format, &s.ContentEncoding, &s.ContentMediaType, &s.Pattern} {
		if maybe() {
			*f = str()
		}
	}
	for _, f := range []*json.RawMessage{&s.Default, &s.Minimum, &s.ExclusiveMinimum, &s.Maximum, &s.ExclusiveMaximum, &s.MultipleOf} {
		if maybe() {
			*f = raw()
		}
	}
	for _, f := range []*[]json.RawMessage{&s.Enum, &s.Examples} {
		if maybe() {
			for range r.IntN(4) {
				*f = append(*f, raw())
			}
		}
	}
	for _, f := range []**uint64{&s.MinLength, &s.MaxLength, &s.MinItems, &s.MaxItems, &s.MinProperties, &s.MaxProperties} {
		if maybe() {
			*f = count()
		}
	}
	for _, f := range []*bool{&s.UniqueItems, &s.Deprecated, &s.ReadOnly, &s.WriteOnly} {
		*f = maybe()
	}
	if depth > 0 && maybe() {
		s.Items = randomSchema(r, depth-1)
	}
	if depth > 0 && maybe() {
		for range r.IntN(4) {
			s.Properties = append(s.Properties, property{name: str(), schema: randomSchema(r, depth-1)})
			if maybe() {
				s.Required = append(s.Required, str())
			}
		}
	}
	switch r.IntN(4) {
	case 1:
		s.AdditionalProperties = false
	case 2:
		if depth > 0 {
			s.AdditionalProperties = randomSchema(r, depth-1)
		}
	}
	return s
}
