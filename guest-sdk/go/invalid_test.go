//go:build !wasip1

package endpoints

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
)

// TestIntegralNumbersDecodeIntoIntegers: an integer field takes an
// integral JSON number written with a fraction or an exponent, as hosts
// that do not canonicalise numbers hand them over.
func TestIntegralNumbersDecodeIntoIntegers(t *testing.T) {
	type ints struct {
		I   int     `json:"i"`
		I8  int8    `json:"i8"`
		I64 int64   `json:"i64"`
		U8  uint8   `json:"u8"`
		U64 uint64  `json:"u64"`
		P   *int32  `json:"p"`
		S   []int16 `json:"s"`
	}
	two := int32(2)
	for _, tc := range []struct {
		name, data string
		want       ints
	}{
		{"fraction of zeros", `{"i":2.0}`, ints{I: 2}},
		{"exponent", `{"i":2e0}`, ints{I: 2}},
		{"capital exponent with sign", `{"i":2E+0}`, ints{I: 2}},
		{"negative exponent", `{"i":20e-1}`, ints{I: 2}},
		{"fraction and exponent", `{"i":0.25e2}`, ints{I: 25}},
		{"negative", `{"i8":-1.280e2}`, ints{I8: -128}},
		{"negative zero", `{"i":-0.0}`, ints{}},
		{"zero with a large exponent", `{"i":0e999999999999}`, ints{}},
		{"largest int64", `{"i64":9.223372036854775807e18}`, ints{I64: math.MaxInt64}},
		{"smallest int64", `{"i64":-9223372036854775808.000}`, ints{I64: math.MinInt64}},
		{"largest uint8", `{"u8":2.55e2}`, ints{U8: 255}},
		{"largest uint64", `{"u64":18446744073709551615.0}`, ints{U64: math.MaxUint64}},
		{"pointer", `{"p":2.0}`, ints{P: &two}},
		{"slice items", `{"s":[1.0,2e0,3]}`, ints{S: []int16{1, 2, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := planDecode[ints]([]byte(tc.data))
			if err != nil {
				t.Fatalf("decoding %s: %v", tc.data, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("decoding %s:\n got %+v\nwant %+v", tc.data, got, tc.want)
			}
		})
	}
}

// TestNumbersTheFieldCannotHold: a number outside the field's type, or
// with a fraction for an integer, is an inputError in the host's words.
func TestNumbersTheFieldCannotHold(t *testing.T) {
	type numbers struct {
		I   int     `json:"i"`
		I64 int64   `json:"i64"`
		U8  uint8   `json:"u8"`
		U64 uint64  `json:"u64"`
		F32 float32 `json:"f32"`
		F64 float64 `json:"f64"`
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"fraction", `{"i64":2.5}`, "i64: expected integer, received number"},
		{"tiny fraction", `{"i64":2.0000000000000000001}`, "i64: expected integer, received number"},
		{"small exponent", `{"i":1e-400}`, "i: expected integer, received number"},
		{"one past int64", `{"i64":9223372036854775808}`, "i64: must be less than or equal to 9223372036854775807"},
		{"one below int64", `{"i64":-9223372036854775809}`, "i64: must be greater than or equal to -9223372036854775808"},
		{"past int64 in exponent form", `{"i64":9.3e18}`, "i64: must be less than or equal to 9223372036854775807"},
		{"huge exponent", `{"i":1e400}`, fmt.Sprintf("i: must be less than or equal to %d", math.MaxInt)},
		{"enormous exponent", `{"i":-1e99999999999999999999}`, fmt.Sprintf("i: must be greater than or equal to %d", math.MinInt)},
		{"negative unsigned", `{"u8":-1}`, "u8: must be greater than or equal to 0"},
		{"past uint8", `{"u8":256}`, "u8: must be less than or equal to 255"},
		{"past uint64", `{"u64":18446744073709551616}`, "u64: must be less than or equal to 18446744073709551615"},
		{"past float32", `{"f32":3.5e38}`, "f32: must be less than or equal to 3.4028235e+38"},
		{"below float32", `{"f32":-1e39}`, "f32: must be greater than or equal to -3.4028235e+38"},
		{"past float64", `{"f64":1e400}`, "f64: must be less than or equal to 1.7976931348623157e+308"},
		{"string for a number", `{"f64":"1"}`, "f64: expected number, received string"},
		{"object for an integer", `{"u64":{}}`, "u64: expected integer, received object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := planDecode[numbers]([]byte(tc.data))
			if _, ok := err.(*inputError); !ok || err.Error() != tc.want {
				t.Errorf("decoding %s: error = %#v (%v), want an *inputError %q", tc.data, err, err, tc.want)
			}
		})
	}
}

// TestFloat32RangeDecodes: the bound the schema of a float32 states
// decodes into a float32, and so does every number up to it.
func TestFloat32RangeDecodes(t *testing.T) {
	for _, data := range []string{`{"f":3.4028235e+38}`, `{"f":-3.4028235e+38}`, `{"f":340282346638528859811704183484516925440}`} {
		got, err := planDecode[struct {
			F float32 `json:"f"`
		}]([]byte(data))
		if err != nil || math.Abs(float64(got.F)) != math.MaxFloat32 {
			t.Errorf("decoding %s: got %v, %v; want ±math.MaxFloat32", data, got.F, err)
		}
	}
}

// Inputs of TestValueTheInputCannotHoldIs400.
type (
	byID struct {
		ID int `path:"id"`
	}
	byLimit struct {
		Limit int64   `query:"limit"`
		IDs   []int32 `query:"id"`
	}
	byHeader struct {
		Tenant uint16 `header:"x-tenant"`
	}
	orderLine struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	}
	byBody struct {
		Body struct {
			Lines  []orderLine       `json:"lines"`
			Counts map[string]uint8  `json:"counts,omitempty"`
			Weight float32           `json:"weight,omitempty"`
			At     *time.Time        `json:"at,omitempty"`
			Tags   map[string][]bool `json:"tags,omitempty"`
		}
	}
)

// validation400 is the body of a 400 with one issue.
func validation400(part, path, message string) string {
	return `{"statusCode":400,"statusMessage":"Validation Error","data":{"` + part +
		`":[{"path":` + path + `,"message":"` + message + `"}]}}`
}

// TestValueTheInputCannotHoldIs400: a value the host passed but the
// input cannot hold (a host without the derived bounds, or a schema of
// Operation.Request wider than the type) is answered 400 in the host's
// shape, naming part and path; the call succeeds (0), so the host keeps
// the instance, and a warning says why.
func TestValueTheInputCannotHoldIs400(t *testing.T) {
	register := map[string]func(){
		"params":  func() { Handle(Operation{}, func(*byID) Reply { return Respond(204, nil) }) },
		"query":   func() { Handle(Operation{}, func(*byLimit) Reply { return Respond(204, nil) }) },
		"headers": func() { Handle(Operation{}, func(*byHeader) Reply { return Respond(204, nil) }) },
		"body": func() {
			HandleFunc(Operation{}, func(*byBody) (string, error) { return "ok", nil })
		},
	}
	for _, tc := range []struct {
		name     string
		part     string // of register
		envelope string
		want     string
	}{
		{"fraction into int", "params", `{"params":{"id":2.5}}`,
			validation400("params", `["id"]`, "expected integer, received number")},
		{"past int64", "query", `{"query":{"limit":9223372036854775808}}`,
			validation400("query", `["limit"]`, "must be less than or equal to 9223372036854775807")},
		{"huge exponent", "params", `{"params":{"id":1e400}}`,
			validation400("params", `["id"]`, fmt.Sprintf("must be less than or equal to %d", math.MaxInt))},
		{"repeated parameter", "query", `{"query":{"limit":1,"id":[1,2,3e10]}}`,
			validation400("query", `["id",2]`, "must be less than or equal to 2147483647")},
		{"string into a header integer", "headers", `{"headers":{"x-tenant":"acme"}}`,
			validation400("headers", `["x-tenant"]`, "expected integer, received string")},
		{"nested body field", "body", `{"body":{"lines":[{"sku":"a","qty":1},{"sku":"b","qty":1.5}]}}`,
			validation400("body", `["lines",1,"qty"]`, "expected integer, received number")},
		{"map value", "body", `{"body":{"lines":[],"counts":{"x":300}}}`,
			validation400("body", `["counts","x"]`, "must be less than or equal to 255")},
		{"float32", "body", `{"body":{"lines":[],"weight":1e39}}`,
			validation400("body", `["weight"]`, "must be less than or equal to 3.4028235e+38")},
		{"items of a map value", "body", `{"body":{"lines":[],"tags":{"a":[true,1]}}}`,
			validation400("body", `["tags","a",1]`, "expected boolean, received number")},
		{"a type of encoding/json", "body", `{"body":{"lines":[],"at":"noon"}}`,
			validation400("body", `["at"]`, `parsing time \"noon\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"noon\" as \"2006\"`)},
		{"body of the wrong type", "body", `{"body":[]}`,
			validation400("body", `[]`, "expected object, received array")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			register[tc.part]()
			resp := serveFake(fakeRequest{envelope: tc.envelope})
			if resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %q", resp.code, resp.logs)
			}
			if resp.status != 400 || resp.body != tc.want {
				t.Errorf("answer:\n got %d %s\nwant 400 %s", resp.status, resp.body, tc.want)
			}
			if len(resp.logs) != 1 || resp.logs[0].level != abi.LogWarn || !strings.HasPrefix(resp.logs[0].msg, "endpoints: answered 400: the request's "+tc.part) {
				t.Errorf("logs = %q, want one warning about the 400", resp.logs)
			}
		})
	}
}

// TestValueTheInputCannotHoldWarning: the warning names the value and
// says what to do.
func TestValueTheInputCannotHoldWarning(t *testing.T) {
	fresh(t)
	Handle(Operation{}, func(*byLimit) Reply { return Respond(204, nil) })
	resp := serveFake(fakeRequest{envelope: `{"query":{"id":[1,2.5]}}`})
	want := []logLine{{abi.LogWarn, "endpoints: answered 400: the request's query.id[1]: expected integer, received number; " +
		"the host validated the value, but the input's Go type cannot hold it: make the schema of Operation.Request fit the type, or update the host"}}
	if !slices.Equal(resp.logs, want) {
		t.Errorf("logs:\n got %q\nwant %q", resp.logs, want)
	}
}

// TestValueTheInputCannotHoldGoesToTheHook: the module's validation-error
// hook answers such a 400 as it answers the host's, with the same
// failure; when it declines, the default body answers.
func TestValueTheInputCannotHoldGoesToTheHook(t *testing.T) {
	for _, tc := range []struct {
		name       string
		answer     bool
		wantStatus int32
		wantBody   string
	}{
		{"hook answers", true, 422, `{"default":{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"expected integer, received number"}]}},` +
			`"issues":{"params":[{"path":["id"],"message":"expected integer, received number"}]},"kind":"schema","part":"params"}`},
		{"hook declines", false, 400, validation400("params", `["id"]`, "expected integer, received number")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			Handle(Operation{}, func(*byID) Reply { return Respond(204, nil) })
			OnValidationError(func(f *ValidationFailure) (Reply, bool) {
				if f.Status != 400 {
					t.Errorf("failure status = %d, want 400", f.Status)
				}
				return Respond(422, map[string]any{"kind": f.Kind, "part": f.Part, "issues": f.Issues, "default": f.Default}), tc.answer
			})
			resp := serveFake(fakeRequest{envelope: `{"params":{"id":7.5}}`})
			if resp.code != 0 || resp.status != tc.wantStatus || resp.body != tc.wantBody {
				t.Errorf("got %d: %d %s\nwant 0: %d %s", resp.code, resp.status, resp.body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

// TestBrokenEnvelopeStillFails: JSON that is not JSON is the host's
// fault, not the client's: the call fails, as before.
func TestBrokenEnvelopeStillFails(t *testing.T) {
	fresh(t)
	Handle(Operation{}, func(*byBody) Reply { return Respond(204, nil) })
	resp := serveFake(fakeRequest{envelope: `{"body":{"lines":[{"qty":1}}}`})
	if resp.code == 0 {
		t.Errorf("handle() = 0 (%d %s), want a failure", resp.status, resp.body)
	}
}
