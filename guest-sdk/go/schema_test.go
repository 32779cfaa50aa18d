package endpoints

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Types for the schema tests. The names matter: they become $defs names.
type (
	Address struct {
		Street string `json:"street"`
		City   string `json:"city,omitempty"`
	}
	Person struct {
		Name string   `json:"name" minLength:"1"`
		Home *Address `json:"home,omitempty"`
		Work Address  `json:"work"`
		//lint:ignore U1000 the schema must leave unexported fields out
		private int
	}
	Tree struct {
		Label    string `json:"label"`
		Children []Tree `json:"children,omitempty"`
	}
	Page[T any] struct {
		Items []T    `json:"items"`
		Next  string `json:"next,omitempty"`
	}
	Level string
	//lint:ignore U1000 a type with only unexported fields
	netAddr    struct{ ip [4]byte }
	customJSON struct{}
	Base       struct {
		ID      int    `json:"id"`
		Created string `json:"created"`
		Shadow  string `json:"shadow"`
	}
	Extra struct {
		Note   string `json:"note"`
		Shadow string `json:"shadow"`
	}
	Derived struct {
		Base
		*Extra
		Shadow string `json:"shadow,omitempty"`
		Name   string
		Skip   string `json:"-"`
		//lint:ignore SA5008 encoding/json names this field "-", and so must the schema
		Dash string `json:"-,"`
	}
	// Ambiguous promotes Code from two unexported embedded structs at one
	// depth, neither tagged: encoding/json drops it.
	Ambiguous struct {
		ambA
		ambB
		Name string `json:"name"`
	}
	ambA struct{ Code, A int }
	ambB struct{ Code, B int }
)

func (a netAddr) MarshalText() ([]byte, error)  { return []byte("1.2.3.4"), nil }
func (customJSON) MarshalJSON() ([]byte, error) { return []byte(`"?"`), nil }

// The ranges of Go's numeric types, as the derived schemas state them.
// int and uint follow the platform the tests run on (64 bits in
// WebAssembly and on the hosts the tests run on).
var (
	intMaximum    = fmt.Sprintf(`"maximum":%d`, math.MaxInt)
	intBounds     = fmt.Sprintf(`"minimum":%d,`, math.MinInt) + intMaximum
	uintMaximum   = fmt.Sprintf(`"maximum":%d`, uint64(math.MaxUint))
	int64Bounds   = `"minimum":-9223372036854775808,"maximum":9223372036854775807`
	float32Bounds = `"minimum":-3.4028235e+38,"maximum":3.4028235e+38`
)

// deriveJSON derives the schema of t with a new builder and returns it and
// the $defs it produced, as JSON.
func deriveJSON(t *testing.T, typ reflect.Type) (string, string) {
	t.Helper()
	b := newBuilder()
	s, err := b.schemaOf(typ)
	if err != nil {
		t.Fatalf("schemaOf(%s): %v", typ, err)
	}
	got, err := s.json()
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]json.RawMessage{}
	for name, d := range b.defs {
		defs[name], _ = d.json()
	}
	gotDefs, _ := marshalJSON(defs)
	return string(got), string(gotDefs)
}

func TestSchemaOfType(t *testing.T) {
	for _, tc := range []struct {
		name     string
		typ      reflect.Type
		want     string
		wantDefs string
	}{
		{"bool", reflect.TypeFor[bool](), `{"type":"boolean"}`, `{}`},
		{"int has the platform's range", reflect.TypeFor[int](), `{"type":"integer",` + intBounds + `}`, `{}`},
		{"int8", reflect.TypeFor[int8](), `{"type":"integer","minimum":-128,"maximum":127}`, `{}`},
		{"int64", reflect.TypeFor[int64](), `{"type":"integer",` + int64Bounds + `}`, `{}`},
		{"unsigned starts at 0", reflect.TypeFor[uint16](), `{"type":"integer","minimum":0,"maximum":65535}`, `{}`},
		{"float64 has no bounds", reflect.TypeFor[float64](), `{"type":"number"}`, `{}`},
		{"float32", reflect.TypeFor[float32](), `{"type":"number",` + float32Bounds + `}`, `{}`},
		{"string", reflect.TypeFor[string](), `{"type":"string"}`, `{}`},
		{"named string inlines", reflect.TypeFor[Level](), `{"type":"string"}`, `{}`},
		{"bytes are base64", reflect.TypeFor[[]byte](), `{"type":"string","contentEncoding":"base64"}`, `{}`},
		{"time.Time", reflect.TypeFor[time.Time](), `{"type":"string","format":"date-time"}`, `{}`},
		{"duration is nanoseconds", reflect.TypeFor[time.Duration](), `{"type":"integer",` + int64Bounds + `}`, `{}`},
		{"slice", reflect.TypeFor[[]string](), `{"type":"array","items":{"type":"string"}}`, `{}`},
		{"array has fixed length", reflect.TypeFor[[2]float64](), `{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":2}`, `{}`},
		{"map with string keys", reflect.TypeFor[map[string]int](), `{"type":"object","additionalProperties":{"type":"integer",` + intBounds + `}}`, `{}`},
		{"map with integer keys", reflect.TypeFor[map[int]bool](), `{"type":"object","additionalProperties":{"type":"boolean"}}`, `{}`},
		{"pointer is its element", reflect.TypeFor[*int](), `{"type":"integer",` + intBounds + `}`, `{}`},
		{"any", reflect.TypeFor[any](), `{}`, `{}`},
		{"json.RawMessage", reflect.TypeFor[json.RawMessage](), `{}`, `{}`},
		{"json.Number", reflect.TypeFor[json.Number](), `{"type":"number"}`, `{}`},
		{"text marshaler is a string", reflect.TypeFor[netAddr](), `{"type":"string"}`, `{}`},
		{"json marshaler is anything", reflect.TypeFor[customJSON](), `{}`, `{}`},
		{
			"anonymous struct inlines, closed",
			reflect.TypeFor[struct {
				A string `json:"a"`
				B *int   `json:"b"`
				C []int  `json:"c,omitempty"`
				D int    `json:"d,omitzero"`
				E int
			}](),
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer",` + intBounds + `},"c":{"type":"array","items":{"type":"integer",` + intBounds + `}},"d":{"type":"integer",` + intBounds + `},"E":{"type":"integer",` + intBounds + `}},"required":["a","E"],"additionalProperties":false}`,
			`{}`,
		},
		{"empty struct", reflect.TypeFor[struct{}](), `{"type":"object","additionalProperties":false}`, `{}`},
		{
			"named struct is a $defs entry", reflect.TypeFor[Person](),
			`{"$ref":"#/$defs/Person"}`,
			`{"Address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}},"required":["street"],"additionalProperties":false},` +
				`"Person":{"type":"object","properties":{"name":{"type":"string","minLength":1},"home":{"$ref":"#/$defs/Address"},"work":{"$ref":"#/$defs/Address"}},"required":["name","work"],"additionalProperties":false}}`,
		},
		{
			"recursive type", reflect.TypeFor[Tree](),
			`{"$ref":"#/$defs/Tree"}`,
			`{"Tree":{"type":"object","properties":{"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Tree"}}},"required":["label"],"additionalProperties":false}}`,
		},
		{
			"generic type name folds its arguments", reflect.TypeFor[Page[Address]](),
			`{"$ref":"#/$defs/PageAddress"}`,
			`{"Address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}},"required":["street"],"additionalProperties":false},` +
				`"PageAddress":{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/Address"}},"next":{"type":"string"}},"required":["items"],"additionalProperties":false}}`,
		},
		{
			"embedded structs flatten like encoding/json", reflect.TypeFor[Derived](),
			`{"$ref":"#/$defs/Derived"}`,
			// Shadow: the shallow field wins. Note: promoted through a
			// pointer, so not required. "-," names a field "-".
			`{"Derived":{"type":"object","properties":{"id":{"type":"integer",` + intBounds + `},"created":{"type":"string"},"note":{"type":"string"},"shadow":{"type":"string"},"Name":{"type":"string"},"-":{"type":"string"}},"required":["id","created","Name","-"],"additionalProperties":false}}`,
		},
		{
			"ambiguous embedded fields are dropped", reflect.TypeFor[Ambiguous](),
			`{"$ref":"#/$defs/Ambiguous"}`,
			`{"Ambiguous":{"type":"object","properties":{"A":{"type":"integer",` + intBounds + `},"B":{"type":"integer",` + intBounds + `},"name":{"type":"string"}},"required":["A","B","name"],"additionalProperties":false}}`,
		},
		{
			"a blank field describes the type and gives its examples",
			reflect.TypeFor[struct {
				_ struct{} `doc:"A point." example:"{\"x\": 1}" json:"-"`
				_ struct{} `example:"{\"x\":2}"`
				X int      `json:"x"`
			}](),
			`{"type":"object","description":"A point.","properties":{"x":{"type":"integer",` + intBounds + `}},"required":["x"],"additionalProperties":false,"examples":[{"x":1},{"x":2}]}`, `{}`,
		},
		{
			"string option quotes numbers",
			reflect.TypeFor[struct {
				N int64 `json:"n,string"`
			}](),
			`{"type":"object","properties":{"n":{"type":"string"}},"required":["n"],"additionalProperties":false}`, `{}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, gotDefs := deriveJSON(t, tc.typ)
			if got != tc.want {
				t.Errorf("schema:\n got %s\nwant %s", got, tc.want)
			}
			if gotDefs != tc.wantDefs {
				t.Errorf("$defs:\n got %s\nwant %s", gotDefs, tc.wantDefs)
			}
		})
	}
}

func TestSchemaSameNameGetsSuffix(t *testing.T) {
	type Address struct {
		Line string `json:"line"`
	}
	got, gotDefs := deriveJSON(t, reflect.TypeFor[struct {
		Here  Address              `json:"here"`
		There Address              `json:"there"`
		Other endpointsTestAddress `json:"other"`
	}]())
	want := `{"type":"object","properties":{"here":{"$ref":"#/$defs/Address"},"there":{"$ref":"#/$defs/Address"},"other":{"$ref":"#/$defs/Address2"}},"required":["here","there","other"],"additionalProperties":false}`
	if got != want {
		t.Errorf("schema:\n got %s\nwant %s", got, want)
	}
	wantDefs := `{"Address":{"type":"object","properties":{"line":{"type":"string"}},"required":["line"],"additionalProperties":false},` +
		`"Address2":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}},"required":["street"],"additionalProperties":false}}`
	if gotDefs != wantDefs {
		t.Errorf("$defs:\n got %s\nwant %s", gotDefs, wantDefs)
	}
}

// endpointsTestAddress is the package-level Address under another name, so
// TestSchemaSameNameGetsSuffix can name both in one struct.
type endpointsTestAddress = Address

func TestSchemaTags(t *testing.T) {
	for _, tc := range []struct {
		name         string
		typ          reflect.Type // a struct with one field
		want         string       // the field's schema
		wantRequired bool
	}{
		{"doc", reflect.TypeFor[struct {
			F string `doc:"The name."`
		}](), `{"type":"string","description":"The name."}`, true},
		{"numeric bounds", reflect.TypeFor[struct {
			F int `minimum:"1" maximum:"100" exclusiveMinimum:"0" exclusiveMaximum:"101" multipleOf:"1"`
		}](), `{"type":"integer","minimum":1,"exclusiveMinimum":0,"maximum":100,"exclusiveMaximum":101,"multipleOf":1}`, true},
		{"exclusive bounds replace the type's", reflect.TypeFor[struct {
			F uint8 `exclusiveMinimum:"0" exclusiveMaximum:"200"`
		}](), `{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":200}`, true},
		{"exact integer bounds", reflect.TypeFor[struct {
			F uint64 `minimum:"9007199254740993" maximum:"18446744073709551615"`
		}](), `{"type":"integer","minimum":9007199254740993,"maximum":18446744073709551615}`, true},
		{"fractional bounds", reflect.TypeFor[struct {
			F float64 `minimum:"0.5" maximum:"1e3"`
		}](), `{"type":"number","minimum":0.5,"maximum":1000}`, true},
		{"a tighter minimum replaces the type's", reflect.TypeFor[struct {
			F uint `minimum:"1"`
		}](), `{"type":"integer","minimum":1,` + uintMaximum + `}`, true},
		{"a tighter maximum replaces the type's", reflect.TypeFor[struct {
			F int16 `maximum:"99"`
		}](), `{"type":"integer","minimum":-32768,"maximum":99}`, true},
		{"bounds at the type's own range", reflect.TypeFor[struct {
			F int8 `minimum:"-128" maximum:"127"`
		}](), `{"type":"integer","minimum":-128,"maximum":127}`, true},
		{"float32 bounds", reflect.TypeFor[struct {
			F float32 `minimum:"-1.5" maximum:"3.4e38"`
		}](), `{"type":"number","minimum":-1.5,"maximum":3.4e+38}`, true},
		{"string constraints", reflect.TypeFor[struct {
			F string `minLength:"1" maxLength:"100" pattern:"^[a-z]+$" format:"email"`
		}](), `{"type":"string","format":"email","minLength":1,"maxLength":100,"pattern":"^[a-z]+$"}`, true},
		{"string enum", reflect.TypeFor[struct {
			F string `enum:"asc,desc"`
		}](), `{"type":"string","enum":["asc","desc"]}`, true},
		{"integer enum and default", reflect.TypeFor[struct {
			F int `enum:"1,2,3" default:"2"`
		}](), `{"type":"integer","enum":[1,2,3],"default":2,` + intBounds + `}`, true},
		{"boolean default", reflect.TypeFor[struct {
			F bool `default:"true"`
		}](), `{"type":"boolean","default":true}`, true},
		{"number default", reflect.TypeFor[struct {
			F float64 `default:"2.50"`
		}](), `{"type":"number","default":2.5}`, true},
		{"example", reflect.TypeFor[struct {
			F string `example:"Ada"`
		}](), `{"type":"string","examples":["Ada"]}`, true},
		{"flags", reflect.TypeFor[struct {
			F string `deprecated:"true" readOnly:"true" writeOnly:"false"`
		}](), `{"type":"string","deprecated":true,"readOnly":true}`, true},
		{"slice value constraints apply to items", reflect.TypeFor[struct {
			F []string `enum:"a,b" minLength:"1" format:"uuid" pattern:"x" maxLength:"9"`
		}](), `{"type":"array","items":{"type":"string","format":"uuid","enum":["a","b"],"minLength":1,"maxLength":9,"pattern":"x"}}`, true},
		{"slice item bounds", reflect.TypeFor[struct {
			F []int `minimum:"1" maximum:"5"`
		}](), `{"type":"array","items":{"type":"integer","minimum":1,"maximum":5}}`, true},
		{"slice items keep the type's other bound", reflect.TypeFor[struct {
			F []uint32 `minimum:"1"`
		}](), `{"type":"array","items":{"type":"integer","minimum":1,"maximum":4294967295}}`, true},
		{"slice container constraints", reflect.TypeFor[struct {
			F []string `minItems:"1" maxItems:"3" uniqueItems:"true" doc:"Tags."`
		}](), `{"type":"array","description":"Tags.","items":{"type":"string"},"minItems":1,"maxItems":3,"uniqueItems":true}`, true},
		{"slice default as a list", reflect.TypeFor[struct {
			F []int `default:"1,2"`
		}](), `{"type":"array","default":[1,2],"items":{"type":"integer",` + intBounds + `}}`, true},
		{"slice default as JSON", reflect.TypeFor[struct {
			F []string `default:"[\"a\", \"b\"]"`
		}](), `{"type":"array","default":["a","b"],"items":{"type":"string"}}`, true},
		{"map constraints", reflect.TypeFor[struct {
			F map[string]int `minProperties:"1" maxProperties:"2" minimum:"0"`
		}](), `{"type":"object","additionalProperties":{"type":"integer","minimum":0,` + intMaximum + `},"minProperties":1,"maxProperties":2}`, true},
		{"struct default is JSON", reflect.TypeFor[struct {
			F struct {
				A int `json:"a"`
			} `default:"{\"a\": 1}"`
		}](), `{"type":"object","default":{"a":1},"properties":{"a":{"type":"integer",` + intBounds + `}},"required":["a"],"additionalProperties":false}`, true},
		{"any takes any tag", reflect.TypeFor[struct {
			F any `minimum:"1" minLength:"2"`
		}](), `{"minimum":1,"minLength":2}`, true},
		{"named struct keeps its reference", reflect.TypeFor[struct {
			F Address `doc:"Where." minProperties:"1"`
		}](), `{"$ref":"#/$defs/Address","description":"Where.","minProperties":1}`, true},
		{"required tag false", reflect.TypeFor[struct {
			F string `required:"false"`
		}](), `{"type":"string"}`, false},
		{"required tag true beats omitempty", reflect.TypeFor[struct {
			F string `json:",omitempty" required:"true"`
		}](), `{"type":"string"}`, true},
		// nullable: a NULLable column's pointer answered as JSON null.
		{"nullable pointer", reflect.TypeFor[struct {
			F *string `nullable:"true" doc:"The note's body." maxLength:"10"`
		}](), `{"anyOf":[{"type":"string","maxLength":10},{"type":"null"}],"description":"The note's body."}`, false},
		{"nullable named struct", reflect.TypeFor[struct {
			F *Address `nullable:"true"`
		}](), `{"anyOf":[{"$ref":"#/$defs/Address"},{"type":"null"}]}`, false},
		{"nullable slice, required", reflect.TypeFor[struct {
			F []int8 `nullable:"true" required:"true"`
		}](), `{"anyOf":[{"type":"array","items":{"type":"integer","minimum":-128,"maximum":127}},{"type":"null"}]}`, true},
		{"nullable false", reflect.TypeFor[struct {
			F *string `nullable:"false"`
		}](), `{"type":"string"}`, false},
		{"nullable any is any", reflect.TypeFor[struct {
			F any `nullable:"true"`
		}](), `{}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newBuilder().structSchema(tc.typ)
			if err != nil {
				t.Fatalf("structSchema: %v", err)
			}
			if len(s.Properties) != 1 {
				t.Fatalf("got %d properties, want 1", len(s.Properties))
			}
			got, _ := s.Properties[0].schema.json()
			if string(got) != tc.want {
				t.Errorf("schema:\n got %s\nwant %s", got, tc.want)
			}
			if gotRequired := len(s.Required) == 1; gotRequired != tc.wantRequired {
				t.Errorf("required = %v, want %v", gotRequired, tc.wantRequired)
			}
		})
	}
}

func TestSchemaBadTags(t *testing.T) {
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"minimum not a number", reflect.TypeFor[struct {
			Count int `minimum:"abc"`
		}](), `field Count: tag minimum:"abc": not a valid number`},
		{"minimum on a string", reflect.TypeFor[struct {
			Name string `minimum:"1"`
		}](), `field Name: tag minimum:"1": applies to number or integer values, not string`},
		{"minLength negative", reflect.TypeFor[struct {
			Name string `minLength:"-1"`
		}](), `field Name: tag minLength:"-1": not a valid non-negative integer`},
		{"minItems on a string", reflect.TypeFor[struct {
			Name string `minItems:"1"`
		}](), `field Name: tag minItems:"1": applies to array values, not string`},
		{"enum of wrong type", reflect.TypeFor[struct {
			Size int `enum:"small,large"`
		}](), `field Size: tag enum:"small,large": not a valid integer`},
		{"default of wrong type", reflect.TypeFor[struct {
			On bool `default:"yes"`
		}](), `field On: tag default:"yes": not a valid boolean`},
		{"default not JSON for a struct", reflect.TypeFor[struct {
			Where struct{} `default:"{a:1}"`
		}](), `field Where: tag default:"{a:1}": not valid JSON for a value of type object`},
		{"multipleOf zero", reflect.TypeFor[struct {
			Step float64 `multipleOf:"0"`
		}](), `field Step: tag multipleOf:"0": must be greater than 0`},
		{"pattern on a number", reflect.TypeFor[struct {
			N int `pattern:"x"`
		}](), `field N: tag pattern:"x": applies to string values, not integer`},
		{"bad boolean flag", reflect.TypeFor[struct {
			Old string `deprecated:"sure"`
		}](), `field Old: tag deprecated:"sure": not a valid boolean`},
		{"channel", reflect.TypeFor[struct {
			C chan int
		}](), `field C: chan int: a chan cannot be encoded as JSON`},
		{"a type example that is not JSON", reflect.TypeFor[struct {
			_ struct{} `example:"{x: 1}"`
		}](), `field _: tag example:"{x: 1}": not valid JSON`},
		{"nullable value", reflect.TypeFor[struct {
			N int `nullable:"true"`
		}](), `field N: tag nullable:"true": int values are never null in JSON: make the field a pointer (*int)`},
		{"nullable not a boolean", reflect.TypeFor[struct {
			N *int `nullable:"yes"`
		}](), `field N: tag nullable:"yes": want true or false`},
		{"map with struct keys", reflect.TypeFor[struct {
			M map[Address]int
		}](), `field M: map[endpoints.Address]int: map keys must be strings or integers for JSON, not endpoints.Address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newBuilder().structSchema(tc.typ)
			if err == nil {
				t.Fatalf("structSchema succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSanitizeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"User", "User"},
		{"Page[main.User]", "PageUser"},
		{"Page[github.com/acme/api/types.User]", "PageUser"},
		{"Pair[string,*main.User]", "PairStringUser"},
		{"Box[map[string]main.Item]", "BoxMapStringItem"},
		{"user_v2", "user_v2"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := sanitizeName(tc.in); got != tc.want {
				t.Errorf("sanitizeName(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
