package contract

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/abi"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSchemaCompilesOffline(t *testing.T) {
	// compiledSchema uses a loader that refuses every URL, so success means
	// the 2020-12 meta-schemas were resolved from jsonschema/v6 itself.
	c, err := compiledSchema()
	if err != nil {
		t.Fatalf("compiling contract.schema.json: %v", err)
	}
	if c.schema == nil {
		t.Fatal("compiled schema is nil")
	}
}

func TestSchemaMethodsMatchCode(t *testing.T) {
	var doc struct {
		Properties struct {
			Methods struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"methods"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(SchemaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for m := range doc.Properties.Methods.Properties {
		got = append(got, strings.ToUpper(m))
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(methodNames))
	if !slices.Equal(got, want) {
		t.Errorf("methods keys in contract.schema.json: got %v, want %v", got, want)
	}
}

func TestSchemaAcceptsSpecExample(t *testing.T) {
	// The schema alone, as an editor would apply it.
	c, err := compiledSchema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(readTestdata(t, "spec-example.json"))))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.schema.Validate(doc); err != nil {
		t.Errorf("got %v, want the SPEC example to be valid", err)
	}
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		name   string
		method string
		json   string
		check  func(t *testing.T, c *abi.Contract)
	}{
		{
			name:   "SPEC example with a PUT suffix",
			method: "PUT",
			json:   string(readTestdata(t, "spec-example.json")),
			check: func(t *testing.T, c *abi.Contract) {
				if got, want := c.Summary, "Replace a user"; got != want {
					t.Errorf("summary: got %q, want %q", got, want)
				}
				if got, want := len(c.Responses), 4; got != want {
					t.Errorf("responses: got %d, want %d", got, want)
				}
				if !c.Responses["206"].IsMedia() {
					t.Error("206: got IsMedia false, want true")
				}
				if got, want := c.Responses["201"].ContentType, "application/vnd.acme.user+json"; got != want {
					t.Errorf("201 contentType: got %q, want %q", got, want)
				}
				if c.Idempotency == nil || !c.Idempotency.Required {
					t.Errorf("idempotency: got %+v, want required", c.Idempotency)
				}
				if got, want := string(c.Request.Body.Schema), `{"$ref": "#/$defs/NewUser"}`; got != want {
					t.Errorf("body schema: got %s, want %s", got, want)
				}
				if !c.Request.Body.IsRequired() {
					t.Error("body: got IsRequired false, want true (the default)")
				}
			},
		},
		{
			name: "empty contract",
			json: `{}`,
		},
		{
			name: "methods without a suffix, $defs shared and per method",
			json: `{"summary": "Users", "$defs": {"User": {"type": "object"}},
				"methods": {
					"get": {"responses": {"200": {"schema": {"$ref": "#/$defs/User"}}}},
					"post": {"$defs": {"New": {}}, "request": {"body": {"schema": {"$ref": "#/$defs/New"}}},
						"idempotency": {"required": false, "replayStatuses": [409], "fingerprint": ["body", "params"]}}
				}}`,
			check: func(t *testing.T, c *abi.Contract) {
				if got := slices.Sorted(maps.Keys(c.Methods)); !slices.Equal(got, []string{"get", "post"}) {
					t.Errorf("methods: got %v, want [get post]", got)
				}
				if got := c.Methods["post"].Idempotency.ReplayStatuses; !slices.Equal(got, []int{409}) {
					t.Errorf("replayStatuses: got %v, want [409]", got)
				}
			},
		},
		{
			name:   "idempotency on DELETE",
			method: "delete",
			json:   `{"idempotency": {}}`,
		},
		{
			name:   "+json contentType in upper case with a charset",
			method: "GET",
			json:   `{"responses": {"200": {"schema": {}, "contentType": "Application/Problem+JSON; charset=utf-8"}}}`,
		},
		{
			name:   "body with several media types",
			method: "POST",
			json: `{"request": {"body": {"required": false, "description": "A file", "content": {
				"application/json": {"schema": {"type": "object"}}, "text/*": {}, "multipart/form-data": {}}}}}`,
			check: func(t *testing.T, c *abi.Contract) {
				if c.Request.Body.IsRequired() {
					t.Error("body: got IsRequired true, want false")
				}
				if got := len(c.Request.Body.Content); got != 3 {
					t.Errorf("content: got %d media types, want 3", got)
				}
			},
		},
		{
			name:   "$ref to the embedded schema's own $defs and into a def",
			method: "GET",
			json: `{"$defs": {"User": {"properties": {"id": {"type": "integer"}}}},
				"request": {"params": {"$defs": {"Id": {"type": "integer"}}, "properties": {"id": {"$ref": "#/$defs/Id"}}}},
				"responses": {"200": {"schema": {"$ref": "#/$defs/User/properties/id"}, "headers": {"x-count": {"type": "integer"}}}}}`,
		},
		{
			name:   "$ref under an $id is not ours to check",
			method: "GET",
			json:   `{"responses": {"200": {"schema": {"$id": "https://example.com/s", "$ref": "#/$defs/Elsewhere"}}}}`,
		},
		{
			name:   "a stream's timeout and idle timeout",
			method: "GET",
			json:   `{"timeout": "5m", "idleTimeout": "1.5s", "responses": {"200": {"media": ["text/event-stream"]}}}`,
			check: func(t *testing.T, c *abi.Contract) {
				if c.Timeout != "5m" || c.IdleTimeout != "1.5s" {
					t.Errorf("timeout, idleTimeout: got %q, %q; want \"5m\", \"1.5s\"", c.Timeout, c.IdleTimeout)
				}
			},
		},
		{
			name: "a timeout per method",
			json: `{"methods": {"get": {"timeout": "30s"}, "post": {"timeout": "500ms"}}}`,
			check: func(t *testing.T, c *abi.Contract) {
				if c.Methods["get"].Timeout != "30s" || c.Methods["post"].Timeout != "500ms" {
					t.Errorf("timeouts: got %q, %q", c.Methods["get"].Timeout, c.Methods["post"].Timeout)
				}
			},
		},
		{
			name:   "params type given as [\"object\"]",
			method: "GET",
			json:   `{"request": {"params": {"type": ["object"]}, "query": true}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("server/api/users/[id].wasm", []byte(tt.json), Options{Method: tt.method})
			if err != nil {
				t.Fatalf("got error:\n%v\nwant none", err)
			}
			if c == nil {
				t.Fatal("got nil contract, want one")
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

// want is one expected issue: exact pointer and rule, a fragment of the
// message.
type want struct {
	pointer, rule, message string
}

// issueCases are the invalid contracts, one behaviour each; FuzzParse is
// seeded from them too.
var issueCases = []struct {
	name   string
	method string
	json   string
	want   []want
}{
	{
		name: "unknown key at the root",
		json: `{"respones": {}}`,
		want: []want{{"/respones", "additionalProperties", `unknown key "respones" at the top level (did you mean "responses"?); allowed: summary, description, tags`}},
	},
	{
		name:   "unknown key nested in a response",
		method: "GET",
		json:   `{"responses": {"404": {"descripton": "Not found"}}}`,
		want:   []want{{"/responses/404/descripton", "additionalProperties", `unknown key "descripton" in /responses/404 (did you mean "description"?); allowed: description, schema, contentType, media, headers`}},
	},
	{
		name:   "each unknown key of one object is its own issue",
		method: "POST",
		json:   `{"request": {"bdy": {}, "cookies": {}}}`,
		want: []want{
			{"/request/bdy", "additionalProperties", `unknown key "bdy" in /request (did you mean "body"?)`},
			{"/request/cookies", "additionalProperties", `unknown key "cookies" in /request; allowed: params, query, headers, body`},
		},
	},
	{
		name:   "status key that is not three digits",
		method: "GET",
		json:   `{"responses": {"2xx": {}, "600": {}, "200": {}}}`,
		want: []want{
			{"/responses/2xx", "pattern", `key "2xx" is not an HTTP status code, three digits from 100 to 599`},
			{"/responses/600", "pattern", `key "600" is not an HTTP status code`},
		},
	},
	{
		name:   "embedded schema with a string minimum",
		method: "GET",
		json:   `{"request": {"query": {"type": "object", "properties": {"limit": {"type": "integer", "minimum": "1"}}}}}`,
		want:   []want{{"/request/query/properties/limit/minimum", "type", "got string, want number"}},
	},
	{
		name:   "embedded schema with a misspelt type",
		method: "GET",
		json:   `{"responses": {"200": {"schema": {"type": "integr"}}}}`,
		want:   []want{{"/responses/200/schema/type", "enum", `got "integr", want one of "array", "boolean", "integer", "null", "number", "object", "string" (did you mean "integer"?)`}},
	},
	{
		name:   "misspelt type inside a type array",
		method: "GET",
		json:   `{"$defs": {"Id": {"type": ["string", "integr"]}}}`,
		want:   []want{{"/$defs/Id/type/1", "enum", `got "integr"`}},
	},
	{
		name:   "schema that is neither object nor boolean",
		method: "GET",
		json:   `{"$defs": {"User": 5}, "responses": {"200": {"headers": {"x-count": "integer"}}}}`,
		want: []want{
			{"/$defs/User", "type", "got number, want boolean or object"},
			{"/responses/200/headers/x-count", "type", "got string, want boolean or object"},
		},
	},
	{
		name: "metadata of the wrong type",
		json: `{"summary": 1, "tags": "users", "deprecated": "yes"}`,
		want: []want{
			{"/deprecated", "type", "got string, want boolean"},
			{"/summary", "type", "got number, want string"},
			{"/tags", "type", "got string, want array"},
		},
	},
	{
		name: "contract that is not an object",
		json: `[]`,
		want: []want{{"", "type", "got array, want object"}},
	},
	{
		name:   "contentType that is not a +json profile",
		method: "GET",
		json:   `{"responses": {"200": {"schema": {}, "contentType": "text/csv"}, "201": {"contentType": "application/+json"}}}`,
		want: []want{
			{"/responses/200/contentType", RuleJSONProfile, `got "text/csv", want application/json or application/<name>+json; list other media types in "media"`},
			{"/responses/201/contentType", RuleJSONProfile, `got "application/+json"`},
		},
	},
	{
		name:   "media together with contentType",
		method: "GET",
		json:   `{"responses": {"200": {"media": ["image/png"], "contentType": "application/json"}}}`,
		want:   []want{{"/responses/200", RuleMediaContentType, `has both "media" and "contentType"`}},
	},
	{
		name:   "media that are ranges, malformed or repeated",
		method: "GET",
		json:   `{"responses": {"200": {"media": ["image/*", "image/png", "png", "IMAGE/PNG", "*/*"]}}}`,
		want: []want{
			{"/responses/200/media/0", RuleMediaType, `"image/*" is a media range`},
			{"/responses/200/media/2", RuleMediaType, `"png" is not a media type`},
			{"/responses/200/media/3", RuleMediaDuplicate, `"IMAGE/PNG" repeats item 1`},
			{"/responses/200/media/4", RuleMediaType, `"*/*" is a media range`},
		},
	},
	{
		name:   "empty media list",
		method: "GET",
		json:   `{"responses": {"200": {"media": []}}}`,
		want:   []want{{"/responses/200/media", "minItems", "got 0 items, want at least 1"}},
	},
	{
		name:   "methods in a module with a method suffix",
		method: "GET",
		json:   `{"methods": {"get": {}}}`,
		want:   []want{{"/methods", RuleMethodsSuffix, `the file name already fixes the method to GET; remove "methods" or the .get suffix`}},
	},
	{
		name: "operation fields beside methods",
		json: `{"methods": {"get": {}}, "request": {}, "responses": {}, "summary": "Users"}`,
		want: []want{
			{"/request", RuleMethodsExclusive, `"request" cannot stand beside "methods"`},
			{"/responses", RuleMethodsExclusive, `"responses" cannot stand beside "methods"`},
		},
	},
	{
		name: "methods nested inside a method",
		json: `{"methods": {"get": {"methods": {"get": {}}}}}`,
		want: []want{{"/methods/get/methods", "additionalProperties", `unknown key "methods" in /methods/get (a contract inside methods describes one operation and cannot have methods of its own)`}},
	},
	{
		name:   "timeouts that are no durations",
		method: "GET",
		json:   `{"timeout": "30", "idleTimeout": 5, "responses": {"200": {"media": ["text/event-stream"]}}}`,
		want: []want{
			{"/idleTimeout", "type", "got number, want string"},
			{"/timeout", "pattern", `"30"`},
		},
	},
	{
		name:   "a zero timeout and one too long for a duration",
		method: "GET",
		json:   `{"timeout": "0s", "idleTimeout": "9999999999h", "responses": {"200": {"media": ["text/event-stream"]}}}`,
		want: []want{
			{"/idleTimeout", RuleDuration, `"9999999999h" is not a positive duration`},
			{"/timeout", RuleDuration, `"0s" is not a positive duration`},
		},
	},
	{
		name:   "an idle timeout on a buffered answer",
		method: "GET",
		json:   `{"idleTimeout": "10s", "responses": {"200": {"schema": {"type": "object"}}}}`,
		want:   []want{{"/idleTimeout", RuleIdleTimeoutStream, "the operation declares no media response"}},
	},
	{
		name: "a timeout beside methods",
		json: `{"methods": {"get": {}}, "timeout": "1m"}`,
		want: []want{{"/timeout", RuleMethodsExclusive, `"timeout" cannot stand beside "methods"`}},
	},
	{
		name: "unknown and empty methods",
		json: `{"methods": {"gte": {}}}`,
		want: []want{{"/methods/gte", "additionalProperties", `unknown key "gte" in /methods (did you mean "get"?); allowed: get, post, put, patch, delete, head, options`}},
	},
	{
		name: "methods without any method",
		json: `{"methods": {}}`,
		want: []want{{"/methods", "minProperties", "got 0 keys, want at least 1"}},
	},
	{
		name: "methods: null as in the SPEC example",
		json: `{"methods": null}`,
		want: []want{{"/methods", "type", "got null, want object"}},
	},
	{
		name:   "idempotency on GET",
		method: "GET",
		json:   `{"idempotency": {"required": true}}`,
		want:   []want{{"/idempotency", RuleIdempotencyMethod, "GET is a safe method and takes no Idempotency-Key"}},
	},
	{
		name: "idempotency on HEAD and OPTIONS inside methods",
		json: `{"methods": {"head": {"idempotency": {}}, "options": {"idempotency": {}}, "post": {"idempotency": {}}}}`,
		want: []want{
			{"/methods/head/idempotency", RuleIdempotencyMethod, "HEAD is a safe method"},
			{"/methods/options/idempotency", RuleIdempotencyMethod, "OPTIONS is a safe method"},
		},
	},
	{
		name:   "idempotency fingerprint and replay statuses out of bounds",
		method: "POST",
		json:   `{"idempotency": {"fingerprint": ["params", "cookies", "params"], "replayStatuses": [199, 409, 409, 600, 404.0]}}`,
		want: []want{
			{"/idempotency/fingerprint/1", "enum", `got "cookies", want one of "params", "query", "body"`},
			{"/idempotency/fingerprint/2", "uniqueItems", "repeats item 0"},
			{"/idempotency/replayStatuses/0", "minimum", "got 199, want at least 200"},
			{"/idempotency/replayStatuses/2", "uniqueItems", "repeats item 1"},
			{"/idempotency/replayStatuses/3", "maximum", "got 600, want at most 599"},
			{"/idempotency/replayStatuses/4", RuleInteger, "got 404.0, want a status written as an integer"},
		},
	},
	{
		name:   "$ref to a missing def",
		method: "GET",
		json:   `{"$defs": {"User": {}, "Error": {}}, "responses": {"200": {"schema": {"type": "array", "items": {"$ref": "#/$defs/Usr"}}}}}`,
		want:   []want{{"/responses/200/schema/items/$ref", RuleRef, `"#/$defs/Usr" names no def: there is no "Usr" in $defs (did you mean "User"?); defined: Error, User`}},
	},
	{
		name:   "$ref into a def that has no such member",
		method: "GET",
		json:   `{"$defs": {"User": {"properties": {}}}, "request": {"query": {"properties": {"u": {"$ref": "#/$defs/User/properties/id"}}}}}`,
		want:   []want{{"/request/query/properties/u/$ref", RuleRef, `"#/$defs/User/properties/id" points nowhere: def "User" has no /properties/id`}},
	},
	{
		name: "$ref in one method to another method's def",
		json: `{"methods": {"get": {"$defs": {"A": {}}}, "put": {"request": {"body": {"schema": {"$ref": "#/$defs/A"}}}}}}`,
		want: []want{{"/methods/put/request/body/schema/$ref", RuleRef, `"#/$defs/A" names no def`}},
	},
	{
		name:   "$ref between defs",
		method: "GET",
		json:   `{"$defs": {"A": {"allOf": [{"$ref": "#/$defs/B"}]}}}`,
		want:   []want{{"/$defs/A/allOf/0/$ref", RuleRef, `"#/$defs/B" names no def`}},
	},
	{
		name:   "request parts that do not describe objects",
		method: "GET",
		json:   `{"request": {"params": {"type": "string"}, "query": {"type": ["object", "null"]}}}`,
		want: []want{
			{"/request/params/type", RuleObjectSchema, `got "string", want "object": the properties of params are the parameters`},
			{"/request/query/type", RuleObjectSchema, `got an array, want "object"`},
		},
	},
	{
		name:   "request header names in mixed case",
		method: "GET",
		json:   `{"request": {"headers": {"properties": {"X-Tenant": {}, "x-ok": {}}, "required": ["X-Tenant"]}}}`,
		want: []want{
			{"/request/headers/properties/X-Tenant", RuleHeaderCase, `header "X-Tenant" must be written in lower case: "x-tenant"`},
			{"/request/headers/required/0", RuleHeaderCase, `header "X-Tenant" must be written in lower case`},
		},
	},
	{
		name:   "body with both schema and content",
		method: "POST",
		json:   `{"request": {"body": {"schema": {}, "content": {"text/plain": {}}}}}`,
		want:   []want{{"/request/body", RuleBody, `has both "schema" and "content"`}},
	},
	{
		name:   "body with neither schema nor content",
		method: "POST",
		json:   `{"request": {"body": {"required": false}}}`,
		want:   []want{{"/request/body", RuleBody, `has neither "schema" nor "content"`}},
	},
	{
		name:   "body content with a bad and a repeated media type",
		method: "POST",
		json:   `{"request": {"body": {"content": {"text": {}, "Text/Plain": {}, "text/plain": {}}}}}`,
		want: []want{
			{"/request/body/content/text", RuleMediaType, `"text" is not a media type`},
			{"/request/body/content/text~1plain", RuleMediaDuplicate, `"text/plain" is the same media type as "Text/Plain"`},
		},
	},
	{
		name:   "encoding outside multipart, and a bad encoding type",
		method: "POST",
		json: `{"request": {"body": {"content": {
			"application/x-www-form-urlencoded": {"encoding": {"a": {"contentType": "text/plain"}}},
			"multipart/form-data": {"encoding": {"photo": {"contentType": "image/png, jpeg"}}}}}}}`,
		want: []want{
			{"/request/body/content/application~1x-www-form-urlencoded/encoding", RuleEncoding, `encoding applies to the parts of a multipart/form-data body`},
			{"/request/body/content/multipart~1form-data/encoding/photo/contentType", RuleEncoding, `"image/png, jpeg" is not a comma-separated list of media types`},
		},
	},
	{
		name:   "maxBytes below one",
		method: "POST",
		json:   `{"request": {"body": {"schema": {}, "maxBytes": 0}}}`,
		want:   []want{{"/request/body/maxBytes", "minimum", "got 0, want at least 1"}},
	},
	{
		name:   "several mistakes reported together, sorted by pointer",
		method: "GET",
		json: `{"tgas": [], "idempotency": {}, "responses": {"abc": {}, "200": {"contentType": "text/html"}},
			"request": {"query": {"properties": {"n": {"minimum": "0"}}}}}`,
		want: []want{
			{"/idempotency", RuleIdempotencyMethod, "GET is a safe method"},
			{"/request/query/properties/n/minimum", "type", "got string, want number"},
			{"/responses/200/contentType", RuleJSONProfile, `got "text/html"`},
			{"/responses/abc", "pattern", `key "abc" is not an HTTP status code`},
			{"/tgas", "additionalProperties", `unknown key "tgas" at the top level (did you mean "tags"?)`},
		},
	},
}

func TestParseIssues(t *testing.T) {
	for _, tt := range issueCases {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("server/api/users/[id].wasm", []byte(tt.json), Options{Method: tt.method})
			if c != nil {
				t.Errorf("got contract %+v, want nil", c)
			}
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("got error %v (%T), want *Error", err, err)
			}
			if cerr.File != "server/api/users/[id].wasm" {
				t.Errorf("File: got %q, want the file given to Parse", cerr.File)
			}
			if len(cerr.Issues) != len(tt.want) {
				t.Fatalf("got %d issues:\n%v\nwant %d: %v", len(cerr.Issues), err, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				got := cerr.Issues[i]
				if got.Pointer != w.pointer || got.Rule != w.rule || !strings.Contains(got.Message, w.message) {
					t.Errorf("issue %d:\ngot  %q %q %q\nwant %q %q containing %q", i, got.Pointer, got.Rule, got.Message, w.pointer, w.rule, w.message)
				}
			}
		})
	}
}

func TestParseMalformedJSON(t *testing.T) {
	tests := []struct {
		name string
		json string
		want string
	}{
		{"empty input", "", "line 1, column 1: unexpected end of JSON input"},
		{"truncated object", "{\n  \"summary\": \"x\"", "line 2, column 17: unexpected end of JSON input"},
		{"trailing comma", "{\n  \"summary\": \"x\",\n}", "line 3, column 1: invalid character '}' looking for beginning of object key string"},
		{"column counts characters, not bytes", `{"summary": "héllo" x}`, "line 1, column 21: invalid character 'x' after object key:value pair"},
		{"data after the contract", "{}\n{}", "line 2, column 1: invalid character '{' after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("a.get.wasm", []byte(tt.json), Options{Method: "GET"})
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("got error %v (%T), want *Error", err, err)
			}
			want := []Issue{{Pointer: "", Rule: RuleJSON, Message: tt.want}}
			if !slices.Equal(cerr.Issues, want) {
				t.Errorf("got %+v, want %+v", cerr.Issues, want)
			}
		})
	}
}

func TestParseRejectsUnknownMethodOption(t *testing.T) {
	_, err := Parse("a.wasm", []byte(`{}`), Options{Method: "FETCH"})
	if err == nil {
		t.Fatal("got no error, want one for method FETCH")
	}
	var cerr *Error
	if errors.As(err, &cerr) {
		t.Errorf("got *Error %v, want a plain error (the caller's mistake)", err)
	}
	if !strings.Contains(err.Error(), `unknown method "FETCH"`) {
		t.Errorf("got %q, want it to name the method", err)
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{
			name: "root pointer printed as a slash",
			err:  &Error{File: "server/api/a.get.wasm", Issues: []Issue{{Pointer: "", Rule: "type", Message: "got array, want object"}}},
			want: "server/api/a.get.wasm: contract: /: type: got array, want object",
		},
		{
			name: "one line per issue",
			err: &Error{File: "server/api/users/[id].get.wasm", Issues: []Issue{
				{Pointer: "/request/query/properties/limit/minimum", Rule: "type", Message: "got string, want number"},
				{Pointer: "/tgas", Rule: "additionalProperties", Message: `unknown key "tgas"`},
			}},
			want: "server/api/users/[id].get.wasm: contract: /request/query/properties/limit/minimum: type: got string, want number\n" +
				`server/api/users/[id].get.wasm: contract: /tgas: additionalProperties: unknown key "tgas"`,
		},
		{
			name: "no file",
			err:  &Error{Issues: []Issue{{Pointer: "/a", Rule: "r", Message: "m"}}},
			want: "contract: /a: r: m",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestSortIssues(t *testing.T) {
	in := []Issue{
		{Pointer: "/media/10", Rule: "b"},
		{Pointer: "/a/b", Rule: "b"},
		{Pointer: "/media/2", Rule: "b"},
		{Pointer: "/a-b", Rule: "b"},
		{Pointer: "", Rule: "z"},
		{Pointer: "/a", Rule: "b"},
		{Pointer: "/a", Rule: "a"},
		{Pointer: "/a", Rule: "a"},
	}
	want := []Issue{
		{Pointer: "", Rule: "z"},
		{Pointer: "/a", Rule: "a"},
		{Pointer: "/a", Rule: "b"},
		{Pointer: "/a/b", Rule: "b"},
		{Pointer: "/a-b", Rule: "b"},
		{Pointer: "/media/2", Rule: "b"},
		{Pointer: "/media/10", Rule: "b"},
	}
	if got := sortIssues(in); !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestParseIsDeterministic(t *testing.T) {
	data := readTestdata(t, "many-mistakes.json")
	_, first := Parse("server/api/users.wasm", data, Options{})
	for range 20 {
		_, err := Parse("server/api/users.wasm", data, Options{})
		if err.Error() != first.Error() {
			t.Fatalf("got\n%v\nwant the same text as the first run\n%v", err, first)
		}
	}
}

func TestGoldenManyMistakes(t *testing.T) {
	_, err := Parse("server/api/users.wasm", readTestdata(t, "many-mistakes.json"), Options{})
	if err == nil {
		t.Fatal("got no error, want many issues")
	}
	got := err.Error() + "\n"
	golden := filepath.Join("testdata", "many-mistakes.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := string(readTestdata(t, "many-mistakes.golden"))
	if got != want {
		t.Errorf("Error() text differs from %s (run go test -update to accept):\ngot\n%s\nwant\n%s", golden, got, want)
	}
}

func TestParseConcurrent(t *testing.T) {
	// Many goroutines released at once share the lazily compiled schema.
	data := readTestdata(t, "spec-example.json")
	bad := readTestdata(t, "many-mistakes.json")
	want := string(readTestdata(t, "many-mistakes.golden"))
	start := make(chan struct{})
	errs := make(chan error, 32)
	for i := range 32 {
		go func() {
			<-start
			if i%2 == 0 {
				_, err := Parse("a.put.wasm", data, Options{Method: "PUT"})
				errs <- err
				return
			}
			_, err := Parse("server/api/users.wasm", bad, Options{})
			if err == nil || err.Error()+"\n" != want {
				errs <- fmt.Errorf("got %v, want the golden text", err)
				return
			}
			errs <- nil
		}()
	}
	close(start)
	for range 32 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
