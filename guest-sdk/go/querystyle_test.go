//go:build !wasip1

package endpoints

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi/contract"
)

// Types of the object query parameter tests.
type (
	Shape struct {
		Color string `json:"color" enum:"red,blue"`
		Size  int    `json:"size,omitempty" minimum:"1"`
	}
	shapeQuery struct {
		Filter Shape  `query:"filter" style:"deepObject"`
		Pick   *Shape `query:"pick" explode:"false"`
		Plain  struct {
			Page int `json:"page"`
		} `query:"plain"`
	}
)

// TestQueryStyles: a struct field tagged query is an object query
// parameter, written whole into the contract with the style its tags give
// (queryStyles), and the object the host passes fills it.
func TestQueryStyles(t *testing.T) {
	fresh(t)
	var got *shapeQuery
	Handle(Operation{}, func(in *shapeQuery) Reply {
		got = in
		return Respond(204, nil)
	})
	shape := `{"type":"object","properties":{"color":{"type":"string","enum":["red","blue"]},"size":{"type":"integer","minimum":1,` + intMaximum + `}},"required":["color"],"additionalProperties":false}`
	want := `"request":{"query":{"type":"object","properties":{"filter":` + shape + `,"pick":` + shape +
		`,"plain":{"type":"object","properties":{"page":{"type":"integer",` + intBounds + `}},"required":["page"],"additionalProperties":false}}},` +
		`"queryStyles":{"filter":{"style":"deepObject"},"pick":{"style":"form","explode":false}}}`
	if c := string(reg.contractJSON()); !strings.Contains(c, want) {
		t.Errorf("contract:\n got %s\nwant it to contain %s", c, want)
	}
	if _, err := contract.Parse("server/api/shapes.get.wasm", reg.contractJSON(), contract.Options{Method: "GET"}); err != nil {
		t.Errorf("contract.Parse: %v", err)
	}
	resp := serveFake(fakeRequest{envelope: `{"kind":"endpoint","method":"GET","query":{"filter":{"color":"red","size":2},"pick":{"color":"blue"},"plain":{"page":3}}}`})
	if resp.code != 0 {
		t.Fatalf("handle() = %d, want 0; logs %v", resp.code, resp.logs)
	}
	wantIn := shapeQuery{Filter: Shape{Color: "red", Size: 2}, Pick: &Shape{Color: "blue"}}
	wantIn.Plain.Page = 3
	if !reflect.DeepEqual(*got, wantIn) {
		t.Errorf("input:\n got %+v\nwant %+v", *got, wantIn)
	}
}

func TestQueryStyleErrors(t *testing.T) {
	type nested struct {
		Inner struct {
			A int `json:"a"`
		} `json:"inner"`
	}
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"a member that is an object", reflect.TypeFor[struct {
			F nested `query:"f"`
		}](), `field F: an object query parameter's members must be strings, integers, numbers or booleans, or slices of them; member "inner" is object`},
		{"an unknown style", reflect.TypeFor[struct {
			F Shape `query:"f" style:"pipeDelimited"`
		}](), `field F: tag style:"pipeDelimited": want "form" (the default) or "deepObject"`},
		{"deepObject not exploded", reflect.TypeFor[struct {
			F Shape `query:"f" style:"deepObject" explode:"false"`
		}](), `tag explode:"false": deepObject is always exploded`},
		{"explode not a boolean", reflect.TypeFor[struct {
			F Shape `query:"f" explode:"no"`
		}](), `tag explode:"no": not a valid boolean`},
		{"a style on a scalar", reflect.TypeFor[struct {
			F string `query:"f" style:"form"`
		}](), `field F: tags style and explode apply to object query parameters`},
		{"an object header", reflect.TypeFor[struct {
			F Shape `header:"x-f"`
		}](), `field F: a header parameter must be a string, integer, number or boolean, or a slice of them, not endpoints.Shape`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := newBuilder().planInput(tc.typ, RequestSchemas{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("planInput error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
