package openapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	vconfig "github.com/pb33f/libopenapi-validator/config"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/wattest"
)

// echoModule is a WAT route module with contract that answers 200 with
// the request envelope it read (a JSON object).
func echoModule(contract string) string {
	var esc strings.Builder
	for i := 0; i < len(contract); i++ {
		c := contract[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			fmt.Fprintf(&esc, "\\%02x", c)
		} else {
			esc.WriteByte(c)
		}
	}
	return fmt.Sprintf(`(module
  (import "endpoints" "request_read" (func $request_read (param i32 i32) (result i32)))
  (import "endpoints" "response_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 4)
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (data (i32.const 1024) "%s")
  (func (export "endpoints_contract") (result i64) (i64.const %d))
  (func (export "endpoints_handle") (result i32)
    (local $n i32)
    (local.set $n (call $request_read (i32.const 65536) (i32.const 65536)))
    (drop (call $write (i32.const 65536) (local.get $n)))
    (i32.const 0)))
`, esc.String(), int64(1024)<<32|int64(len(contract)))
}

// TestWireCasesAgreeWithTheDocument sends the request shapes of issue 27
// (object query parameters in every style, int32 edges, JSON charsets, a
// multipart JSON part) to an app that declares them, and has the
// validator judge each request and answer by the document the host
// serves: a request is invalid to the document exactly when the host
// refused it.
func TestWireCasesAgreeWithTheDocument(t *testing.T) {
	const member = `{"type": "object", "properties": {"color": {"type": "string"}, "size": {"type": "integer", "format": "int32"}}, "additionalProperties": false}`
	dir := t.TempDir()
	// An exploded object takes its members from the whole query, so it
	// has an operation of its own.
	wattest.Write(t, dir, "server/api/filtered.get.wasm", echoModule(`{"request": {"query": {"type": "object", "properties": {
		"filter": `+member+`}}}, "responses": {"200": {"schema": {"type": "object"}}}}`))
	wattest.Write(t, dir, "server/api/items.get.wasm", echoModule(`{"request": {"query": {"type": "object", "properties": {
		"pick": `+member+`, "deep": `+member+`, "limit": {"type": "integer", "format": "int32"}}},
		"queryStyles": {"pick": {"style": "form", "explode": false}, "deep": {"style": "deepObject"}}},
		"responses": {"200": {"schema": {"type": "object"}}}}`))
	wattest.Write(t, dir, "server/api/items.post.wasm", echoModule(`{"request": {"body": {"content": {
		"application/json": {"schema": {"type": "object", "properties": {"n": {"type": "integer", "format": "int32"}}}},
		"multipart/form-data": {"schema": {"type": "object", "properties": {"name": {"type": "string"}, "meta": `+member+`}}}}}},
		"responses": {"200": {"schema": {"type": "object"}}}}`))
	h, err := host.New(context.Background(), dir, host.Options{Mode: host.Development, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL + config.DefaultOpenAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := io.ReadAll(res.Body)
	res.Body.Close()
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc, vconfig.WithFormatAssertions())
	if len(errs) > 0 {
		t.Fatalf("the validator cannot read the served document: %v", errs)
	}
	const mp = "multipart/form-data; boundary=b0undary"
	jsonPart := "--b0undary\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda\r\n" +
		"--b0undary\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"size\": 2}\r\n--b0undary--\r\n"
	for _, x := range []exchange{
		{"an object query, form with explode", "GET", "/api/filtered?color=red&size=2", "", nil, 200},
		{"an object query, form without explode", "GET", "/api/items?pick=color,blue,size,3", "", nil, 200},
		{"an object query, deepObject", "GET", "/api/items?deep%5Bcolor%5D=green&deep%5Bsize%5D=4", "", nil, 200},
		{"an exploded object member past int32", "GET", "/api/filtered?color=red&size=2147483648", "", nil, 400},
		{"an exploded object with a member it does not declare", "GET", "/api/filtered?color=red&shape=round", "", nil, 400},
		{"a deepObject member of the wrong type", "GET", "/api/items?deep%5Bsize%5D=big", "", nil, 400},
		{"the largest int32", "GET", "/api/items?limit=2147483647", "", nil, 200},
		{"one past the largest int32", "GET", "/api/items?limit=2147483648", "", nil, 400},
		{"one below the smallest int32", "GET", "/api/items?limit=-2147483649", "", nil, 400},
		{"an int32 body member in range", "POST", "/api/items", `{"n": -2147483648}`, []string{"Content-Type", "application/json"}, 200},
		{"an int32 body member past its range", "POST", "/api/items", `{"n": 2147483648}`, []string{"Content-Type", "application/json"}, 400},
		{"JSON with charset=utf-8", "POST", "/api/items", `{"n": 1}`, []string{"Content-Type", "application/json; charset=utf-8"}, 200},
		{"an object field as an application/json part", "POST", "/api/items", jsonPart, []string{"Content-Type", mp}, 200},
	} {
		t.Run(x.name, func(t *testing.T) {
			res, err := srv.Client().Do(x.request(t, srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != x.wantStatus {
				t.Fatalf("host answered %d %s, want %d", res.StatusCode, body, x.wantStatus)
			}
			reqOK, reqErrs := v.ValidateHttpRequest(x.request(t, srv.URL))
			if reqOK == x.refused(res.StatusCode) {
				t.Errorf("the document says the request is valid=%v, the host answered %d %s%s", reqOK, res.StatusCode, body, describe(reqErrs))
			}
			res.Body = io.NopCloser(bytes.NewReader(body))
			if ok, errs := v.ValidateHttpResponse(x.request(t, srv.URL), res); !ok {
				t.Errorf("the answer %d %s does not match the document:%s", res.StatusCode, body, describe(errs))
			}
		})
	}
}
