package clientgen

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func init() {
	// -update rewrites the golden files. Every test file of the package
	// that has golden files defines it the same way, whichever comes first.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

// checkGoGolden compares got with testdata/name, or writes it there under
// -update.
func checkGoGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/clientgen -run GoGolden -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		line := 0
		for line < len(gotLines) && line < len(wantLines) && gotLines[line] == wantLines[line] {
			line++
		}
		t.Errorf("the generated client differs from %s at line %d:\ngot  %q\nwant %q\n"+
			"if the change is intended, run go test ./internal/clientgen -run GoGolden -update and review the diff",
			path, line+1, lineAt(gotLines, line), lineAt(wantLines, line))
	}
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of file)"
}

// TestGoGolden pins the clients of the example app and of the features
// document; TestGoClientEndToEnd and TestGoClientFeatures compile and run
// them.
func TestGoGolden(t *testing.T) {
	tests := []struct {
		name   string
		model  func(*testing.T) *Model
		opts   GoOptions
		golden string
	}{
		{name: "examples/users", model: exampleModel, golden: "users.client.go.golden"},
		{name: "features", model: goFeaturesModel, opts: GoOptions{Package: "features"}, golden: "goclient/features.client.go.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Go(tt.model(t), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Go(tt.model(t), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, again) {
				t.Fatalf("two runs on one model differ: the output is not deterministic")
			}
			checkGoGolden(t, tt.golden, got)
		})
	}
}

func TestGoName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"getApiUsersById", "GetAPIUsersByID"},
		{"postApiUsersByIdPhoto", "PostAPIUsersByIDPhoto"},
		{"userId", "UserID"},
		{"ids", "IDs"},
		{"IDEMPOTENCY_KEY_REQUIRED", "IdempotencyKeyRequired"},
		{"application/problem+json", "ApplicationProblemJSON"},
		{"image/svg+xml", "ImageSvgXML"},
		{"HTTPServer", "HTTPServer"},
		{"x-tenant", "XTenant"},
		{"Weird-Name.v2", "WeirdNameV2"},
		{"sha256", "Sha256"},
		{"OK", "OK"},
		{"2fa", "X2fa"},
		{"", "X"},
		{"--", "X"},
		{"émoji", "Émoji"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := goName(tt.in); got != tt.want {
				t.Errorf("goName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestGoStatusAndMediaNames(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"200", goStatusName(200), "OK"},
		{"404", goStatusName(404), "NotFound"},
		{"422", goStatusName(422), "UnprocessableEntity"},
		{"an unregistered status", goStatusName(299), "Status299"},
		{"JSON", goMediaName("application/json"), "JSON"},
		{"a JSON profile with parameters", goMediaName("application/problem+json; charset=utf-8"), "ProblemJSON"},
		{"a range", goMediaName("image/*"), "Image"},
		{"any", goMediaName("*/*"), "Any"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// newTestGoGen returns a generator over named schemas, ready for typeOf.
func newTestGoGen(schemas map[string]string) *goGen {
	m := &Model{Schemas: map[string]json.RawMessage{}}
	for name, s := range schemas {
		m.Schemas[name] = json.RawMessage(s)
	}
	g := &goGen{
		m: m, pkg: "client", names: newGoNamer(),
		schemaTypes: map[string]string{}, declared: map[string]bool{}, inProgress: map[string]bool{},
		pointerTo: map[string]bool{}, under: map[string]string{}, decls: map[string][]string{},
		imports: map[string]bool{}, forms: map[string]goFormInfo{}, fieldTypes: map[string]map[string]string{},
		respFields: map[*Operation][]goResponseField{}, uses: map[string]bool{},
	}
	for _, name := range slices.Sorted(maps.Keys(m.Schemas)) {
		g.schemaTypes[name] = g.names.claim(goName(name))
	}
	return g
}

// TestGoSchemaTypes is the schema → Go mapping: the type of a schema at a
// place named Thing, and what its declarations hold.
func TestGoSchemaTypes(t *testing.T) {
	schemas := map[string]string{
		"User":  `{"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}`,
		"Color": `{"enum": ["red", "green"]}`,
		"Maybe": `{"type": ["object", "null"], "properties": {"v": {"type": "string"}}}`,
		"Node":  `{"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}, "required": ["next"]}`,
		"Tags":  `{"type": "array", "items": {"type": "string"}}`,
		"Stamp": `{"type": "string", "format": "date-time"}`,
	}
	tests := []struct {
		name, schema string
		want         string
		wantDecls    []string // each in the declarations made
	}{
		{name: "string", schema: `{"type": "string"}`, want: "string"},
		{name: "a format stays a string", schema: `{"type": "string", "format": "email"}`, want: "string"},
		{name: "a date stays a string", schema: `{"type": "string", "format": "date"}`, want: "string"},
		{name: "a date-time is a time.Time", schema: `{"type": "string", "format": "date-time"}`, want: "time.Time"},
		{name: "a nullable date-time is a pointer", schema: `{"type": ["string", "null"], "format": "date-time"}`, want: "*time.Time"},
		{name: "a named date-time is time.Time under its name", schema: `{"$ref": "#/components/schemas/Stamp"}`, want: "Stamp",
			wantDecls: []string{"type Stamp = time.Time"}},
		{name: "an enum of date-times stays an enum", schema: `{"type": "string", "format": "date-time", "enum": ["2026-01-01T00:00:00Z"]}`, want: "Thing"},
		{name: "integer", schema: `{"type": "integer", "minimum": 1}`, want: "int64"},
		{name: "number", schema: `{"type": "number"}`, want: "float64"},
		{name: "boolean", schema: `{"type": "boolean"}`, want: "bool"},
		{name: "the empty schema", schema: `{}`, want: "any"},
		{name: "true", schema: `true`, want: "any"},
		{name: "several types", schema: `{"type": ["string", "integer"]}`, want: "any"},
		{name: "nullable string", schema: `{"type": ["string", "null"]}`, want: "*string"},
		{name: "OpenAPI 3.0 nullable", schema: `{"type": "integer", "nullable": true}`, want: "*int64"},
		{name: "nullable array: a slice has nil", schema: `{"type": ["array", "null"], "items": {"type": "string"}}`, want: "[]string"},
		{name: "array", schema: `{"type": "array", "items": {"$ref": "#/components/schemas/User"}}`, want: "[]User"},
		{name: "array without items", schema: `{"type": "array"}`, want: "[]any"},
		{name: "tuple", schema: `{"type": "array", "prefixItems": [{"type": "string"}], "items": false}`, want: "[]any"},
		{name: "items infer an array", schema: `{"items": {"type": "boolean"}}`, want: "[]bool"},
		{name: "a map", schema: `{"type": "object", "additionalProperties": {"type": "integer"}}`, want: "map[string]int64"},
		{name: "an object without properties", schema: `{"type": "object"}`, want: "map[string]any"},
		{name: "$ref", schema: `{"$ref": "#/components/schemas/User"}`, want: "User",
			wantDecls: []string{"type User struct {\n\tID int64 `json:\"id\"`\n}"}},
		{name: "$ref with siblings keeps the type", schema: `{"$ref": "#/components/schemas/User", "minProperties": 1}`, want: "User"},
		{name: "$ref to a nullable schema", schema: `{"$ref": "#/components/schemas/Maybe"}`, want: "*Maybe"},
		{name: "$ref to a named slice", schema: `{"$ref": "#/components/schemas/Tags"}`, want: "Tags",
			wantDecls: []string{"type Tags []string"}},
		{name: "an object", schema: `{"type": "object", "description": "A thing.", "properties": {
				"name": {"type": "string", "description": "Its name."}, "size": {"type": "integer", "default": 3},
				"tags": {"type": "array", "items": {"type": "string"}}, "owner": {"$ref": "#/components/schemas/User"}},
				"required": ["name"]}`,
			want: "Thing",
			wantDecls: []string{
				"// Thing is the test schema.\n//\n// A thing.\ntype Thing struct {",
				"\t// Its name.\n\tName string `json:\"name\"`",
				"\tOwner *User `json:\"owner,omitzero\"`",
				"\t// Defaults to 3.\n\tSize *int64 `json:\"size,omitzero\"`",
				"\tTags []string `json:\"tags,omitzero\"`",
			}},
		{name: "properties infer an object", schema: `{"properties": {"a": {"type": "boolean"}}}`, want: "Thing",
			wantDecls: []string{"\tA *bool `json:\"a,omitzero\"`"}},
		{name: "an inline object in a property gets a name from its place",
			schema: `{"type": "object", "properties": {"data": {"type": "object", "properties": {"x": {"type": "number"}}}}}`,
			want:   "Thing",
			wantDecls: []string{"\tData *ThingData `json:\"data,omitzero\"`",
				"// ThingData is the property data of Thing.\ntype ThingData struct {"}},
		{name: "items of an inline object", schema: `{"type": "array", "items": {"properties": {"x": {"type": "number"}}}}`,
			want: "[]ThingItem", wantDecls: []string{"type ThingItem struct {"}},
		{name: "a property that cannot be a tag", schema: `{"type": "object", "properties": {"a\"b": {"type": "string"}}}`, want: "Thing",
			wantDecls: []string{"\t// The property \"a\\\"b\" has no Go field: a struct tag cannot name it."}},
		{name: "an enum of strings", schema: `{"type": "string", "enum": ["image/png", "IMAGE_JPEG"]}`, want: "Thing",
			wantDecls: []string{
				"type Thing string",
				"\tThingImagePng Thing = \"image/png\"\n\tThingImageJpeg Thing = \"IMAGE_JPEG\"",
			}},
		{name: "an enum with null", schema: `{"enum": ["a", null]}`, want: "*Thing", wantDecls: []string{"\tThingA Thing = \"a\""}},
		{name: "a const string", schema: `{"const": "only"}`, want: "Thing", wantDecls: []string{"\tThingOnly Thing = \"only\""}},
		{name: "an enum of integers keeps the base type", schema: `{"type": "integer", "enum": [1, 2]}`, want: "int64"},
		{name: "a named enum", schema: `{"$ref": "#/components/schemas/Color"}`, want: "Color",
			wantDecls: []string{"\tColorRed Color = \"red\""}},
		{name: "oneOf", schema: `{"oneOf": [{"$ref": "#/components/schemas/User"}, {"type": "integer"}]}`, want: "Thing",
			wantDecls: []string{
				"type Thing struct {\n\tjson.RawMessage\n}",
				"func (v Thing) AsUser() (User, error) {",
				"func (v Thing) AsVariant2() (int64, error) {",
			}},
		{name: "oneOf with null is a pointer", schema: `{"oneOf": [{"$ref": "#/components/schemas/User"}, {"type": "null"}]}`, want: "*User"},
		{name: "anyOf of several and null", schema: `{"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}`, want: "*Thing"},
		{name: "allOf with one member", schema: `{"allOf": [{"$ref": "#/components/schemas/User"}]}`, want: "User"},
		{name: "allOf of a type and constraints", schema: `{"allOf": [{"$ref": "#/components/schemas/Color"}, {"minLength": 2}]}`, want: "Color"},
		{name: "allOf of objects embeds them",
			schema: `{"allOf": [{"$ref": "#/components/schemas/User"}, {"properties": {"extra": {"type": "string"}}}]}`,
			want:   "Thing",
			wantDecls: []string{"type Thing struct {\n\tUser\n\tThingPart2\n}",
				"type ThingPart2 struct {\n\tExtra *string `json:\"extra,omitzero\"`\n}"}},
		{name: "allOf of an object and a string", schema: `{"allOf": [{"$ref": "#/components/schemas/User"}, {"type": "string"}]}`, want: "any"},
		{name: "a recursive schema holds itself through a pointer", schema: `{"$ref": "#/components/schemas/Node"}`, want: "Node",
			wantDecls: []string{"\tNext *Node `json:\"next\"`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGoGen(schemas)
			got := g.typeOf([]byte(tt.schema), goPlace{name: "Thing", where: "the test schema"})
			if g.err != nil {
				t.Fatal(g.err)
			}
			if got != tt.want {
				t.Errorf("type %s, want %s", got, tt.want)
			}
			var decls strings.Builder
			for _, group := range slices.Sorted(maps.Keys(g.decls)) {
				for _, d := range g.decls[group] {
					decls.WriteString(d + "\n")
				}
			}
			for _, want := range tt.wantDecls {
				if !strings.Contains(decls.String(), want) {
					t.Errorf("the declarations lack\n%s\nthey are\n%s", want, decls.String())
				}
			}
		})
	}
}

func TestGoErrors(t *testing.T) {
	op := func(schema string) *Model {
		return &Model{Operations: []Operation{{
			Method: "GET", Path: "/x", OpenAPIPath: "/x", OperationID: "getX",
			Responses: []Response{{Status: 200, Content: []Content{{MediaType: "application/json", Schema: json.RawMessage(schema)}}}},
		}}}
	}
	tests := []struct {
		name    string
		model   *Model
		opts    GoOptions
		wantErr string
	}{
		{name: "a package name that is not an identifier", model: &Model{}, opts: GoOptions{Package: "my-client"},
			wantErr: `Go client: package name "my-client": want a Go identifier`},
		{name: "a keyword as package name", model: &Model{}, opts: GoOptions{Package: "func"},
			wantErr: `Go client: package name "func": want a Go identifier`},
		{name: "a $ref outside components/schemas", model: op(`{"$ref": "#/$defs/User"}`),
			wantErr: `Go client: the 200 answer of GET /x: $ref "#/$defs/User": want a schema under #/components/schemas/`},
		{name: "a $ref to a missing schema", model: op(`{"$ref": "#/components/schemas/Gone"}`),
			wantErr: `Go client: the 200 answer of GET /x: $ref "#/components/schemas/Gone": want a schema under #/components/schemas/`},
		{name: "a schema that is not an object", model: op(`[1]`),
			wantErr: `Go client: the 200 answer of GET /x: schema [1]: json: cannot unmarshal array into Go value of type clientgen.goSchema`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Go(tt.model, tt.opts)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("got error %v\nwant %s", err, tt.wantErr)
			}
		})
	}
}

// TestGoDefaultPackage checks the package name defaults to client.
func TestGoDefaultPackage(t *testing.T) {
	src, err := Go(&Model{Title: "Empty"}, GoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte("\npackage client\n")) {
		t.Errorf("the file does not declare package client:\n%s", src)
	}
}
