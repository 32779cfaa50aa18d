package clientgen

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func init() {
	// -update rewrites the golden files. Another test file of the package
	// may define the flag first; then this one reads it.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

// updating reports whether the test run was given -update.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// checkGolden compares got with testdata/name, or writes it there under
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/clientgen -run TypeScript -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the generated client differs from %s; if the change is intended, run go test ./internal/clientgen -run TypeScript -update and review the diff\n%s",
			path, firstDifference(got, want))
	}
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return ""
}

// TestTypeScriptGolden pins the clients of the example app, without and
// with Vue. tests/client-ts compiles and runs them.
func TestTypeScriptGolden(t *testing.T) {
	m := exampleModel(t)
	for _, tc := range []struct {
		name   string
		opts   TSOptions
		golden string
	}{
		{"plain", TSOptions{}, "users.client.ts"},
		{"vue", TSOptions{Vue: true}, "users.client.vue.ts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TypeScript(m, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, got)
			again, err := TypeScript(m, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, again) {
				t.Errorf("two runs on the same model differ:\n%s", firstDifference(again, got))
			}
			imports := strings.Contains(string(got), `from "vue"`)
			if imports != tc.opts.Vue {
				t.Errorf("imports vue = %v, want %v", imports, tc.opts.Vue)
			}
		})
	}
}

// featuresModel reads testdata/features.openapi.json: one operation per
// feature of the generator the example app does not have.
func featuresModel(t *testing.T) *Model {
	t.Helper()
	return modelOf(t, "testdata/features.openapi.json")
}

// TestTypeScriptFeaturesGolden pins the client of a document that uses
// every schema construct and request shape; tests/client-ts compiles it.
func TestTypeScriptFeaturesGolden(t *testing.T) {
	got, err := TypeScript(featuresModel(t), TSOptions{Vue: true})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "features.client.ts", got)
}

func TestTypeScriptSchemaTypes(t *testing.T) {
	names := map[string]string{"User": "User", "Response": "ResponseSchema"}
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"empty schema is unknown", `{}`, `unknown`},
		{"true is unknown", `true`, `unknown`},
		{"false is never", `false`, `never`},
		{"string", `{"type": "string"}`, `string`},
		{"format stays string", `{"type": "string", "format": "date-time"}`, `string`},
		{"binary string in JSON stays string", `{"type": "string", "contentEncoding": "binary", "contentMediaType": "image/png"}`, `string`},
		{"integer is number", `{"type": "integer"}`, `number`},
		{"type array with null", `{"type": ["string", "null"]}`, `string | null`},
		{"string enum", `{"type": "string", "enum": ["a", "b\"c"]}`, `"a" | "b\"c"`},
		{"number enum", `{"enum": [400, -1, 2.5]}`, `400 | -1 | 2.5`},
		{"const", `{"const": true}`, `true`},
		{"const object", `{"const": {"a": [1, null], "b-c": "x"}}`, `{ a: [1, null]; "b-c": "x" }`},
		{"enum with null", `{"enum": ["a", null]}`, `"a" | null`},
		{"ref", `{"$ref": "#/components/schemas/User"}`, `User`},
		{"ref renamed", `{"$ref": "#/components/schemas/Response"}`, `ResponseSchema`},
		{"ref with a keyword that is no type", `{"$ref": "#/components/schemas/User", "minProperties": 1}`, `User`},
		{"array", `{"type": "array", "items": {"type": "integer"}}`, `number[]`},
		{"array of a union", `{"type": "array", "items": {"type": ["string", "integer"]}}`, `(string | number)[]`},
		{"array without items", `{"type": "array"}`, `unknown[]`},
		{"array of negative literal", `{"type": "array", "items": {"const": -1}}`, `(-1)[]`},
		{"tuple closed", `{"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2, "items": false}`, `[string, number]`},
		{"tuple optional and open", `{"prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 1}`, `[string, number?, ...unknown[]]`},
		{"tuple with rest", `{"prefixItems": [{"type": "string"}], "minItems": 1, "items": {"type": "boolean"}}`, `[string, ...boolean[]]`},
		{"oneOf", `{"oneOf": [{"$ref": "#/components/schemas/User"}, {"type": "string"}]}`, `User | string`},
		{"anyOf flattens", `{"anyOf": [{"type": ["string", "null"]}, {"type": "integer"}]}`, `string | null | number`},
		{"anyOf with empty is unknown", `{"anyOf": [{}, {"type": "integer"}]}`, `unknown`},
		{"allOf", `{"allOf": [{"$ref": "#/components/schemas/User"}, {"type": "object", "properties": {"x": {"type": "string"}}}]}`,
			"User & {\n  x?: string;\n}"},
		{"allOf of unions", `{"allOf": [{"type": ["string", "null"]}, {"type": ["string", "integer"]}]}`, `(string | null) & (string | number)`},
		{"object required and optional", `{"type": "object", "required": ["a"], "properties": {"b": {"type": "string", "description": "Bee."}, "a": {"type": "integer"}}}`,
			"{\n  a: number;\n  /** Bee. */\n  b?: string;\n}"},
		{"required without property", `{"type": "object", "required": ["z"]}`, "{\n  z: unknown;\n}"},
		{"quoted keys", `{"type": "object", "properties": {"x-tenant": {"type": "string"}, "$ok": {"type": "string"}}}`,
			"{\n  $ok?: string;\n  \"x-tenant\"?: string;\n}"},
		{"open object without properties", `{"type": "object"}`, `{ [key: string]: unknown }`},
		{"closed empty object", `{"type": "object", "additionalProperties": false}`, `Record<string, never>`},
		{"additionalProperties schema", `{"type": "object", "additionalProperties": {"type": "integer"}}`, "{\n  [key: string]: number;\n}"},
		{"additionalProperties with properties", `{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}`,
			"{\n  a?: string;\n  [key: string]: number | string | undefined;\n}"},
		{"patternProperties", `{"type": "object", "patternProperties": {"^x-": {"type": "string"}}}`, "{\n  [key: string]: string;\n}"},
		{"description with comment end", `{"type": "object", "properties": {"a": {"description": "ends */ here\nsecond line"}}}`,
			"{\n  /**\n   * ends *\\/ here\n   * second line\n   */\n  a?: unknown;\n}"},
		{"deprecated property", `{"type": "object", "properties": {"a": {"type": "string", "deprecated": true}}}`,
			"{\n  /** @deprecated */\n  a?: string;\n}"},
		{"nested object indents", `{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}}`,
			"{\n  a?: {\n    b?: string;\n  };\n}"},
		{"object or null", `{"type": ["object", "null"], "properties": {"a": {"type": "string"}}}`, "{\n  a?: string;\n} | null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tsSchemas{names: names}
			s, err := tsDecodeSchema(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.typeOf(s, "#", 0)
			if err != nil {
				t.Fatal(err)
			}
			if got.text != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got.text, tc.want)
			}
		})
	}
}

func TestTypeScriptSchemaErrors(t *testing.T) {
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"ref outside components", `{"properties": {"a": {"$ref": "#/$defs/X"}}}`, `#/properties/a/$ref: "#/$defs/X" is not supported`},
		{"ref to a missing schema", `{"$ref": "#/components/schemas/Nope"}`, `#/$ref: "#/components/schemas/Nope" names no schema`},
		{"ref into a schema", `{"$ref": "#/components/schemas/User/properties/id"}`, `is not supported`},
		{"unknown type", `{"type": "date"}`, `#/type: "date" is not a JSON Schema type`},
		{"bad enum", `{"enum": "a"}`, `#/enum: must be an array`},
		{"bad allOf", `{"allOf": {}}`, `#/allOf: must be an array of schemas`},
		{"schema of the wrong kind", `{"items": 3}`, `#/items: a schema must be an object or a boolean`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tsSchemas{names: map[string]string{"User": "User"}}
			s, err := tsDecodeSchema(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.typeOf(s, "#", 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestTypeScriptNames checks how schema and operation names become
// identifiers, and that no schema takes a name the module uses.
func TestTypeScriptNames(t *testing.T) {
	m := &Model{
		Schemas: map[string]json.RawMessage{
			"Response":             json.RawMessage(`{"type": "string"}`),
			"ResponseSchema":       json.RawMessage(`{"type": "integer"}`),
			"1st.thing-x":          json.RawMessage(`{"type": "boolean"}`),
			"string":               json.RawMessage(`{"type": "boolean"}`),
			"GetThingsOptions":     json.RawMessage(`{"type": "boolean"}`),
			"EndpointRequest":      json.RawMessage(`{"type": "boolean"}`),
			"UseEndpointReturn":    json.RawMessage(`{"type": "boolean"}`),
			"Uses.Response.Schema": json.RawMessage(`{"$ref": "#/components/schemas/Response"}`),
		},
		Operations: []Operation{{Method: "GET", Path: "/things", OperationID: "getThings",
			Responses: []Response{{Status: 200, Content: []Content{{MediaType: "application/json", Schema: json.RawMessage(`{"$ref": "#/components/schemas/ResponseSchema"}`)}}}}}},
	}
	out, err := TypeScript(m, TSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"export type ResponseSchema = string;",
		"export type ResponseSchemaSchema = number;",
		"export type _1st_thing_x = boolean;",
		"export type stringSchema = boolean;",
		"export type GetThingsOptionsSchema = boolean;",
		"export type EndpointRequestSchema = boolean;",
		"export type UseEndpointReturnSchema = boolean;",
		"export type Uses_Response_Schema = ResponseSchema;",
		`EndpointResponse<200, true, "application/json", ResponseSchemaSchema>`,
		"export type GetThingsOptions = {",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the module has no line %q", want)
		}
	}

	t.Run("operations whose names collide", func(t *testing.T) {
		m := &Model{Operations: []Operation{
			{Method: "GET", Path: "/a", OperationID: "get-a"},
			{Method: "GET", Path: "/b", OperationID: "getA"},
		}}
		_, err := TypeScript(m, TSOptions{})
		if err == nil || !strings.Contains(err.Error(), "GET /b: its type GetAOptions is already a type of GET /a") {
			t.Errorf("error %v, want one naming both operations", err)
		}
	})
}

// TestTypeScriptRuntimeNames checks that every type the fixed parts of the
// module declare is listed in tsRuntimeNames, so that no schema can take
// its name.
func TestTypeScriptRuntimeNames(t *testing.T) {
	decl := regexp.MustCompile(`(?m)^(?:export )?(?:type|interface|class) ([A-Za-z_$][\w$]*)`)
	fixed := []string{tsPublicTypes, tsVuePublicTypes, tsClientTypes, tsClientVueMembers, tsRuntime, tsVueRuntime}
	for _, src := range fixed {
		for _, match := range decl.FindAllStringSubmatch(src, -1) {
			if !slices.Contains(tsRuntimeNames, match[1]) {
				t.Errorf("the module declares %s, which tsRuntimeNames does not list", match[1])
			}
		}
	}
	if strings.Contains(strings.Join(fixed, ""), "`") {
		t.Errorf("the fixed TypeScript holds a backquote")
	}
}

// TestTypeScriptOptions checks the options and results of operations the
// example app does not have.
func TestTypeScriptOptions(t *testing.T) {
	out, err := TypeScript(featuresModel(t), TSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	module := string(out)
	for _, tc := range []struct {
		name, want string
	}{
		{"method required when a path has several", `export type PutItemOptions = {
  method: "PUT";`},
		{"method optional when a path has one", `export type UploadOptions = {
  method?: "POST";`},
		{"several body media types, JSON the default", `  | { contentType?: "application/json" | undefined; body: Item }
  | { contentType: "application/x-www-form-urlencoded"; body: Item | URLSearchParams }
  | { contentType: "text/plain"; body: EndpointBytes }`},
		{"multipart files are Blobs, through a $ref", `  body: {
    files?: Blob[];
    /** The note. */
    note?: string;
    photo: Blob;
  } | FormData;`},
		{"optional Idempotency-Key", `idempotencyKey?: string | boolean | undefined;`},
		{"optional body, which may be undefined", `  body?: Item | undefined;`},
		{"declared headers typed, others allowed", `  headers: {
    "x-tenant": "a" | "b";
    "x-trace"?: EndpointHeaderValue | undefined;
    [name: string]: EndpointHeaderValue | undefined;
  };`},
		{"query with arrays and an optional whole", `  query?: {
    page?: number | undefined;
    /** Only items with all these tags. */
    tag?: string[] | undefined;
  } | undefined;`},
		{"GET is the default method beside others", `export type ListItemsOptions = {
  method?: "GET";`},
		{"answer without content", `EndpointResponse<204, true, undefined, undefined>`},
		{"text events", `EndpointResponse<200, true, "text/event-stream", AsyncIterable<string>>`},
		{"accept from several 2xx media types", `accept?: "application/json" | "text/csv" | undefined;`},
		{"runtime table: body default first", `body: { "application/json": "json", "application/x-www-form-urlencoded": "form", "text/plain": "bytes" },`},
		{"runtime table: no content", `      204: {},`},
		{"runtime table: text events", `"text/event-stream": "text-events"`},
		{"routes callable without options", "export type EndpointPathWithoutOptions =\n  | \"/events\"\n  | \"/items\"\n  | \"/old\";"},
		{"operations by path and method", `  "/items/:id": {
    /** PUT /items/:id: Replace an item, as JSON, a form or text. */
    PUT: { options: PutItemOptions; result: PutItemResult };
    /** DELETE /items/:id. */
    DELETE: { options: DeleteItemOptions; result: DeleteItemResult };
  };`},
		{"deprecated operation", "     * @deprecated\n     */\n    GET: { options: OldOptions; result: OldResult };"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(module, tc.want) {
				t.Errorf("the module lacks\n%s", tc.want)
			}
		})
	}
}
