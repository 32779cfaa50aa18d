package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// TestContractJSON holds appendContract, which writes every contract, to
// encoding/json's encoding of the same contract (marshalJSON): contracts
// whose every field, in every type they hold, is set at random, with odd
// strings and JSON values, nil and empty containers. A field added to the
// ABI's types and not to the writer fails here.
func TestContractJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 13))
	set := map[string]bool{} // the fields some contract set
	for i := range 3000 {
		var c abi.Contract
		fillRandom(t, r, reflect.ValueOf(&c).Elem(), 3, "Contract", set)
		checkContractJSON(t, fmt.Sprintf("random contract %d", i), &c)
	}
	// Every field of every type reachable from Contract was set at least
	// once (fillRandom notes them): the comparison covered them all.
	var unset []string
	var walk func(t reflect.Type, seen map[reflect.Type]bool)
	walk = func(typ reflect.Type, seen map[reflect.Type]bool) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !set[typ.Name()+"."+f.Name] {
				unset = append(unset, typ.Name()+"."+f.Name)
			}
			walk(f.Type, seen)
		}
	}
	walk(reflect.TypeFor[abi.Contract](), map[reflect.Type]bool{})
	if len(unset) > 0 {
		t.Fatalf("no random contract set %v", unset)
	}

	t.Run("invalid JSON", func(t *testing.T) {
		for _, raw := range []string{`{`, `01`, `1 2`} {
			checkContractJSON(t, "response schema "+raw, &abi.Contract{Responses: map[string]*abi.Response{"200": {Schema: json.RawMessage(raw)}}})
			checkContractJSON(t, "params "+raw, &abi.Contract{Request: &abi.Request{Params: json.RawMessage(raw)}})
		}
	})
}

func checkContractJSON(t *testing.T, what string, c *abi.Contract) {
	t.Helper()
	want, wantErr := marshalJSON(c)
	got, err := appendContract(nil, c)
	switch {
	case (err != nil) != (wantErr != nil):
		t.Fatalf("%s: error %v, encoding/json's %v", what, err, wantErr)
	case err == nil && !bytes.Equal(got, want):
		t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// fillRandom sets v, of any type the ABI's contract is made of, at random:
// strings and JSON values from the odd ones of TestSchemaJSON, numbers
// at their edges, pointers, slices and maps nil, empty or holding up to
// three values (nil ones included), structs field by field, each set
// with probability one half (noted in set by type and field name).
// depth bounds the nesting of containers.
func fillRandom(t *testing.T, r *rand.Rand, v reflect.Value, depth int, what string, set map[string]bool) {
	t.Helper()
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.Set(reflect.ValueOf(oddRaws[r.IntN(len(oddRaws))]))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(oddStrings[r.IntN(len(oddStrings))])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt([]int64{0, 1, -1, 200, math.MaxInt32, math.MinInt32}[r.IntN(6)])
	case reflect.Pointer:
		if r.IntN(4) == 0 || depth == 0 && v.Type().Elem() == reflect.TypeFor[abi.Contract]() {
			return
		}
		p := reflect.New(v.Type().Elem())
		fillRandom(t, r, p.Elem(), depth, what, set)
		v.Set(p)
	case reflect.Slice:
		switch r.IntN(4) {
		case 0:
			return
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		n := 1 + r.IntN(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			if depth > 0 {
				fillRandom(t, r, s.Index(i), depth-1, what, set)
			}
		}
		v.Set(s)
	case reflect.Map:
		switch r.IntN(4) {
		case 0:
			return
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
			return
		}
		m := reflect.MakeMap(v.Type())
		for range 1 + r.IntN(3) {
			val := reflect.New(v.Type().Elem()).Elem()
			if depth > 0 {
				fillRandom(t, r, val, depth-1, what, set)
			}
			m.SetMapIndex(reflect.ValueOf(oddStrings[r.IntN(len(oddStrings))]).Convert(v.Type().Key()), val)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if r.IntN(2) == 0 {
				set[v.Type().Name()+"."+v.Type().Field(i).Name] = true
				fillRandom(t, r, v.Field(i), depth, what+"."+v.Type().Field(i).Name, set)
			}
		}
	default:
		t.Fatalf("%s: a %s, which fillRandom does not set: add it", what, v.Type())
	}
}

// TestBundleMiddlewareJSON holds appendBundleMiddleware, which writes a
// bundle's middleware into its declaration, to json.Marshal (which
// escapes <, > and &, also inside JSON values, unlike the contracts'
// encoding): middleware filled at random as TestContractJSON fills
// contracts, appended after bytes already in the buffer.
func TestBundleMiddlewareJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	set := map[string]bool{}
	for i := range 2000 {
		var mws []abi.BundleMiddleware
		fillRandom(t, r, reflect.ValueOf(&mws).Elem(), 3, "[]BundleMiddleware", set)
		want, wantErr := json.Marshal(mws)
		got, err := appendBundleMiddleware([]byte("prefix "), mws)
		switch {
		case (err != nil) != (wantErr != nil):
			t.Fatalf("middleware %d: error %v, json.Marshal's %v", i, err, wantErr)
		case err == nil && string(got) != "prefix "+string(want):
			t.Fatalf("middleware %d:\n got %s\nwant prefix %s", i, got, want)
		}
	}
	for _, field := range []string{"BundleMiddleware.Name", "Middleware.Routes", "Middleware.Methods", "Middleware.Phases", "Middleware.Responses", "Response.Schema"} {
		if !set[field] {
			t.Errorf("no random middleware set %s", field)
		}
	}
}
