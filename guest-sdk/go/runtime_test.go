//go:build !wasip1

package endpoints

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func resetRuntime() {
	runtimeDecl.set, runtimeDecl.decl, runtimeDecl.json = false, Runtime{}, nil
}

func TestDeclareRuntime(t *testing.T) {
	defer resetRuntime()
	DeclareRuntime(Runtime{
		ResponseValidation: "always",
		OpenAPI: OpenAPI{
			Document: map[string]any{"servers": []any{map[string]any{"url": "https://api.example.com"}}},
			Extend:   func(Document) error { return nil },
		},
	})
	want := `{"openApi":{"document":{"servers":[{"url":"https://api.example.com"}]},"extend":true},"responseValidation":"always"}`
	if got := string(runtimeJSON()); got != want {
		t.Errorf("declaration = %s\nwant %s", got, want)
	}
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "called twice") {
			t.Errorf("a second DeclareRuntime: recover() = %v, want a panic saying it was called twice", v)
		}
	}()
	DeclareRuntime(Runtime{})
}

func TestDeclareRuntimeRejectsANonObjectDocument(t *testing.T) {
	defer resetRuntime()
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "must encode to a JSON object") {
			t.Errorf("recover() = %v, want a panic about the document", v)
		}
	}()
	DeclareRuntime(Runtime{OpenAPI: OpenAPI{Document: []int{1}}})
}

const extendDoc = `{"openapi":"3.1.0","paths":{"/b":{"get":{"operationId":"getB"}},"/a":{"post":{"operationId":"postA"},"get":{"operationId":"getA"}}}}`

func TestExtendOpenAPI(t *testing.T) {
	tests := []struct {
		name     string
		extend   func(Document) error
		wantCode int32
		wantDoc  string
		wantLog  string
		doc      string // the document read; extendDoc when empty
		exact    bool   // compare the document written byte for byte
	}{
		{
			name: "edits operations in path then method order",
			extend: func(d Document) error {
				var seen []string
				d.Operations(func(path, method string, op map[string]any) {
					seen = append(seen, method+" "+path)
					if method == "post" {
						op["security"] = []any{map[string]any{"bearer": []any{}}}
					}
				})
				d["x-seen"] = seen
				return nil
			},
			wantDoc: `{"openapi":"3.1.0","paths":{"/a":{"get":{"operationId":"getA"},"post":{"operationId":"postA","security":[{"bearer":[]}]}},"/b":{"get":{"operationId":"getB"}}},"x-seen":["get /a","post /a","get /b"]}`,
		},
		{
			name:    "numbers are written back as they were",
			extend:  func(d Document) error { d["x-limit"] = json.Number("18446744073709551615"); return nil },
			wantDoc: `{"openapi":"3.1.0","paths":{"/a":{"get":{"operationId":"getA","parameters":[{"in":"path","name":"id","required":true,"schema":{"maximum":9223372036854775807,"minimum":-9223372036854775808,"type":"integer"}}]}}},"x-limit":18446744073709551615}`,
			doc:     `{"openapi":"3.1.0","paths":{"/a":{"get":{"operationId":"getA","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}}]}}}}`,
			exact:   true,
		},
		{name: "an error is logged and fails the call", extend: func(Document) error { return errors.New("no tags") }, wantCode: 1, wantLog: "openApi.extend: no tags"},
		{name: "a panic is logged and fails the call", extend: func(Document) error { panic("boom") }, wantCode: 1, wantLog: "openApi.extend: panicked: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer resetRuntime()
			DeclareRuntime(Runtime{OpenAPI: OpenAPI{Extend: tt.extend}})
			doc := tt.doc
			if doc == "" {
				doc = extendDoc
			}
			fake = &fakeHost{inRequest: true, envelope: []byte(doc), header: Headers{}}
			defer func() { fake = &fakeHost{} }()
			if code := extendOpenAPI(); code != tt.wantCode {
				t.Fatalf("extendOpenAPI() = %d, want %d (logs %v)", code, tt.wantCode, fake.logs)
			}
			if tt.exact && string(fake.written) != tt.wantDoc {
				t.Errorf("document written = %s\nwant %s", fake.written, tt.wantDoc)
			}
			if tt.wantDoc != "" {
				var got, want any
				if err := json.Unmarshal(fake.written, &got); err != nil {
					t.Fatal(err)
				}
				_ = json.Unmarshal([]byte(tt.wantDoc), &want)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("document written = %s\nwant %s", fake.written, tt.wantDoc)
				}
			}
			if tt.wantLog != "" && (len(fake.logs) == 0 || !strings.Contains(fake.logs[0].msg, tt.wantLog)) {
				t.Errorf("logs = %v, want %q", fake.logs, tt.wantLog)
			}
		})
	}
}
