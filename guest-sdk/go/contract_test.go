package endpoints_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/abi/contract"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/contracts")

// The users example of the package documentation.
type (
	User struct {
		ID      int       `json:"id" minimum:"1"`
		Name    string    `json:"name" minLength:"1" maxLength:"100"`
		Email   string    `json:"email" format:"email"`
		Created time.Time `json:"created" readOnly:"true"`
	}
	NotFound struct {
		Message string `json:"message"`
	}
	UserPatch struct {
		Name  *string `json:"name,omitempty" minLength:"1" maxLength:"100"`
		Email *string `json:"email,omitempty" format:"email"`
	}
	getUser struct {
		ID int `path:"id" minimum:"1" doc:"The user's id."`
	}
	patchUser struct {
		ID   int       `path:"id" minimum:"1"`
		Body UserPatch `minProperties:"1" doc:"The fields to change."`
	}
	searchUsers struct {
		Q     string `query:"q" required:"true" minLength:"1" doc:"Text to look for."`
		Limit int    `query:"limit" minimum:"1" maximum:"100" default:"10"`
	}
	putUser struct {
		ID     int    `path:"id" minimum:"1"`
		Tenant string `header:"X-Tenant" required:"true"`
		Body   User
	}
	// Presence is one event of the media example's stream.
	Presence struct {
		User   int  `json:"user"`
		Online bool `json:"online"`
	}
	// ProblemDetails is an RFC 9457 problem.
	ProblemDetails struct {
		Type   string `json:"type" format:"uri"`
		Title  string `json:"title"`
		Status int    `json:"status"`
	}
	// SignupForm is a body sent as a form or as JSON.
	SignupForm struct {
		Email      string `json:"email" format:"email"`
		Name       string `json:"name" minLength:"1"`
		Newsletter bool   `json:"newsletter,omitempty"`
	}
	signup struct {
		Body SignupForm `content:"application/x-www-form-urlencoded, application/json" maxBytes:"4096" doc:"The new account."`
	}
	// AvatarUpload is a multipart body with files.
	AvatarUpload struct {
		Caption     string           `json:"caption,omitempty" maxLength:"200"`
		Image       endpoints.File   `json:"image" accept:"image/png, image/jpeg" doc:"The picture."`
		Thumbnail   *endpoints.File  `json:"thumbnail,omitempty" accept:"image/*"`
		Attachments []endpoints.File `json:"attachments,omitempty" maxItems:"3"`
	}
	uploadAvatar struct {
		ID   int          `path:"id" minimum:"1"`
		Body AvatarUpload `content:"multipart/form-data" maxBytes:"5242880"`
	}
	importCSV struct {
		Body []byte `content:"text/csv" doc:"One user a line."`
	}
	putBlob struct {
		Body io.Reader `content:"application/octet-stream, text/*" required:"false" maxBytes:"1048576"`
	}
)

// contractCases register the operations of one module each; their
// contracts are the golden files testdata/contracts/<name>.json.
var contractCases = []struct {
	name     string
	method   string // the file-name suffix of the module, for contract.Parse
	register func()
}{
	{"users-get", "GET", func() {
		endpoints.Handle(endpoints.Operation{
			Summary: "Get a user", Description: "Returns one user by id.", Tags: []string{"users"},
			Responses: endpoints.Responses{
				200: endpoints.JSON[User]("The user"),
				404: endpoints.JSON[NotFound]("No such user"),
			},
		}, func(in *getUser) endpoints.Reply { return endpoints.Respond(404, NotFound{"no such user"}) })
	}},
	{"users-patch", "PATCH", func() {
		endpoints.Handle(endpoints.Operation{
			Summary: "Change a user", Tags: []string{"users"},
			Responses: endpoints.Responses{
				200: endpoints.JSON[User]("The changed user"),
				404: endpoints.JSON[NotFound]("No such user"),
			},
		}, func(in *patchUser) endpoints.Reply { return endpoints.Respond(404, NotFound{"no such user"}) })
	}},
	{"users-search", "GET", func() {
		endpoints.Handle(endpoints.Operation{
			Summary: "Search users", Tags: []string{"users"},
			Responses: endpoints.Responses{200: endpoints.JSON[[]User]("The users found, at most limit")},
		}, func(in *searchUsers) endpoints.Reply { return endpoints.Respond(200, []User{}) })
	}},
	{"handlefunc-inferred", "POST", func() {
		endpoints.HandleFunc(endpoints.Operation{Summary: "Create a user", Status: 201},
			func(in *struct{ Body UserPatch }) (User, error) { return User{}, nil })
	}},
	{"methods", "", func() {
		endpoints.Handle(endpoints.Operation{
			Method: "GET", Summary: "Get a user",
			Responses: endpoints.Responses{200: endpoints.JSON[User]("The user")},
		}, func(in *getUser) endpoints.Reply { return endpoints.Respond(200, User{}) })
		endpoints.HandleFunc(endpoints.Operation{
			Method: "put", Summary: "Replace a user",
			Idempotency: &abi.Idempotency{Required: true},
			Responses: endpoints.Responses{
				200: endpoints.JSON[User]("The user"),
				204: endpoints.NoContent("Nothing changed"),
			},
		}, func(in *putUser) (User, error) { return in.Body, nil })
	}},
	{"raw-schemas", "POST", func() {
		endpoints.Handle(endpoints.Operation{
			Summary: "Tag things",
			Request: endpoints.RequestSchemas{
				Query: json.RawMessage(`{"type": "object", "properties": {"dry": {"type": "boolean"}}}`),
				Body:  json.RawMessage(`{"$ref": "#/$defs/Tags"}`),
			},
			Defs: map[string]json.RawMessage{
				"Tags": json.RawMessage(`{"type": "array", "items": {"type": "string"}, "uniqueItems": true}`),
			},
			Responses: endpoints.Responses{
				200: endpoints.RawJSON("The tags now", `{"$ref": "#/$defs/Tags"}`),
				204: endpoints.NoContent("Dry run"),
			},
		}, func(in *struct {
			Dry  bool `query:"dry"`
			Body []string
		}) endpoints.Reply {
			return endpoints.Respond(200, in.Body)
		})
	}},
	{"media", "GET", func() {
		endpoints.Handle(endpoints.Operation{
			Summary:     "A user's avatar or presence",
			Timeout:     time.Hour + 30*time.Second,
			IdleTimeout: 1500 * time.Millisecond,
			Responses: endpoints.Responses{
				200: endpoints.MediaOf[Presence]("Presence changes, one event each", "text/event-stream"),
				203: endpoints.Media("The avatar", "image/png", "image/webp"),
				404: endpoints.JSONAs[ProblemDetails]("No such user", "application/problem+json"),
			},
		}, func(in *getUser) endpoints.Reply { return endpoints.Bytes(203, endpoints.MediaType(), nil) })
	}},
}

// bodyCases are the contracts of request media types and of the
// validation-error hook, golden files like contractCases.
var bodyCases = []struct {
	name     string
	method   string
	register func()
}{
	{"form", "POST", func() {
		endpoints.Handle(endpoints.Operation{Summary: "Sign up"},
			func(in *signup) endpoints.Reply { return endpoints.Respond(204, nil) })
	}},
	{"upload", "PUT", func() {
		endpoints.Handle(endpoints.Operation{
			Summary:   "Upload an avatar",
			Responses: endpoints.Responses{204: endpoints.NoContent("Stored")},
		}, func(in *uploadAvatar) endpoints.Reply { return endpoints.Respond(204, nil) })
	}},
	{"raw-bodies", "", func() {
		endpoints.HandleFunc(endpoints.Operation{Method: "POST", Summary: "Import users"},
			func(in *importCSV) (int, error) { return len(in.Body), nil })
		endpoints.Handle(endpoints.Operation{Method: "PUT", Summary: "Store a blob"},
			func(in *putBlob) endpoints.Reply { return endpoints.Respond(204, nil) })
	}},
	{"on-validation-error", "GET", func() {
		endpoints.OnValidationError(func(f *endpoints.ValidationFailure) (endpoints.Reply, bool) {
			return endpoints.Respond(422, ProblemDetails{Title: "Invalid " + f.Part, Status: 422}), true
		})
		endpoints.Handle(endpoints.Operation{
			Summary: "Search users",
			Responses: endpoints.Responses{
				200: endpoints.JSON[[]User]("The users found"),
				422: endpoints.JSONAs[ProblemDetails]("Invalid input", "application/problem+json"),
			},
		}, func(in *searchUsers) endpoints.Reply { return endpoints.Respond(200, []User{}) })
	}},
}

func TestContractGolden(t *testing.T) {
	for _, tc := range slices.Concat(contractCases, bodyCases) {
		t.Run(tc.name, func(t *testing.T) {
			endpoints.Reset()
			t.Cleanup(endpoints.Reset)
			tc.register()
			got := endpoints.ContractJSON()

			var indented bytes.Buffer
			if err := json.Indent(&indented, got, "", "  "); err != nil {
				t.Fatalf("the contract is not JSON: %v\n%s", err, got)
			}
			indented.WriteByte('\n')
			golden := filepath.Join("testdata", "contracts", tc.name+".json")
			if *update {
				if err := os.WriteFile(golden, indented.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(indented.Bytes(), want) {
				t.Errorf("contract differs from %s (go test -update rewrites it):\n got %s\nwant %s", golden, indented.Bytes(), want)
			}

			// The host accepts it.
			file := "server/api/x." + strings.ToLower(tc.method) + ".wasm"
			if _, err := contract.Parse(file, got, contract.Options{Method: tc.method}); err != nil {
				t.Errorf("contract.Parse: %v", err)
			}

			// Same code, same bytes.
			endpoints.Reset()
			tc.register()
			if again := endpoints.ContractJSON(); !bytes.Equal(again, got) {
				t.Errorf("a second registration gives other bytes:\n got %s\nwant %s", again, got)
			}
		})
	}
}

// TestContractSchemasValidate checks what the derived schemas accept, as the
// host will validate requests and answers with them.
func TestContractSchemasValidate(t *testing.T) {
	for _, tc := range []struct {
		module   string
		pointer  string
		instance string
		valid    bool
	}{
		{"users-get", "/request/params", `{"id": 1}`, true},
		{"users-get", "/request/params", `{"id": 0}`, false},
		{"users-get", "/request/params", `{}`, false},
		{"users-get", "/responses/200/schema", `{"id": 1, "name": "Ada", "email": "ada@example.com", "created": "2024-01-02T03:04:05Z"}`, true},
		{"users-get", "/responses/200/schema", `{"id": 1, "name": "Ada", "email": "ada@example.com"}`, false},
		{"users-get", "/responses/200/schema", `{"id": 1, "name": "Ada", "email": "ada", "created": "2024-01-02T03:04:05Z"}`, false},
		{"users-patch", "/request/body/schema", `{"name": "Ada"}`, true},
		{"users-patch", "/request/body/schema", `{"email": "ada@example.com"}`, true},
		{"users-patch", "/request/body/schema", `{}`, false},
		{"users-patch", "/request/body/schema", `{"name": ""}`, false},
		{"users-patch", "/request/body/schema", `{"name": "` + strings.Repeat("a", 101) + `"}`, false},
		{"users-patch", "/request/body/schema", `{"nmae": "Ada"}`, false},
		{"users-patch", "/request/body/schema", `{"email": "not an address"}`, false},
		{"users-search", "/request/query", `{"q": "ad", "limit": 100}`, true},
		{"users-search", "/request/query", `{"q": "ad"}`, true},
		{"users-search", "/request/query", `{"q": ""}`, false},
		{"users-search", "/request/query", `{"limit": 10}`, false},
		{"users-search", "/request/query", `{"q": "ad", "limit": 101}`, false},
		{"users-search", "/request/query", `{"q": "ad", "utm_source": "x"}`, true},
		{"methods", "/methods/put/request/body/schema", `{"id": 1, "name": "Ada", "email": "ada@example.com", "created": "2024-01-02T03:04:05Z"}`, true},
		{"methods", "/methods/put/request/headers", `{}`, false},
		{"raw-schemas", "/request/body/schema", `["a", "b"]`, true},
		{"raw-schemas", "/request/body/schema", `["a", "a"]`, false},
		{"media", "/responses/200/schema", `{"user": 1, "online": true}`, true},
		{"media", "/responses/200/schema", `{"user": 1}`, false},
		{"media", "/responses/404/schema", `{"type": "https://example.com/no-user", "title": "No such user", "status": 404}`, true},
		{"form", "/request/body/content/application~1x-www-form-urlencoded/schema", `{"email": "ada@example.com", "name": "Ada", "newsletter": true}`, true},
		{"form", "/request/body/content/application~1json/schema", `{"email": "ada@example.com"}`, false},
		{"upload", "/request/body/content/multipart~1form-data/schema", `{"image": "me.png", "attachments": ["a.pdf"]}`, true},
		{"upload", "/request/body/content/multipart~1form-data/schema", `{"caption": "Me"}`, false},
		{"upload", "/request/body/content/multipart~1form-data/schema", `{"image": "me.png", "attachments": ["a", "b", "c", "d"]}`, false},
		{"upload", "/request/body/content/multipart~1form-data/schema", `{"image": ["a.png", "b.png"]}`, false},
		{"raw-bodies", "/methods/post/request/body/content/text~1csv/schema", `"1,Ada"`, true},
	} {
		t.Run(tc.module+tc.pointer+" "+tc.instance, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "contracts", tc.module+".json"))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			c.AssertFormat()
			if err := c.AddResource("file:///contract.json", doc); err != nil {
				t.Fatal(err)
			}
			sch, err := c.Compile("file:///contract.json#" + tc.pointer)
			if err != nil {
				t.Fatalf("compiling %s: %v", tc.pointer, err)
			}
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.instance))
			if err != nil {
				t.Fatal(err)
			}
			err = sch.Validate(v)
			if got := err == nil; got != tc.valid {
				t.Errorf("valid = %v, want %v (%v)", got, tc.valid, err)
			}
		})
	}
}

func TestRegistrationPanics(t *testing.T) {
	type badTag struct {
		Limit int `query:"limit" minimum:"abc"`
	}
	type untagged struct {
		ID    int `path:"id"`
		Extra string
	}
	type twoParts struct {
		ID int `path:"id" query:"id"`
	}
	type optionalPath struct {
		ID int `path:"id" required:"false"`
	}
	type structQuery struct {
		Filter putUser `query:"filter"`
	}
	type duplicate struct {
		A string `query:"q"`
		B string `query:"q"`
	}
	type badBody struct {
		Body struct {
			N int `json:"n" maximum:"ten"`
		}
	}
	type fileInJSON struct {
		Body struct {
			Avatar endpoints.File `json:"avatar"`
		}
	}
	type fileInForm struct {
		Body struct {
			Avatar *endpoints.File `json:"avatar"`
		} `content:"application/x-www-form-urlencoded"`
	}
	type nestedFile struct {
		Body struct {
			Meta struct {
				Avatar endpoints.File `json:"avatar"`
			} `json:"meta"`
		} `content:"multipart/form-data"`
	}
	type fileQuery struct {
		Avatar endpoints.File `query:"avatar"`
	}
	type badAccept struct {
		Body struct {
			Avatar endpoints.File `json:"avatar" accept:"image/png,png"`
		} `content:"multipart/form-data"`
	}
	type acceptOnString struct {
		Body struct {
			Name string `json:"name" accept:"text/plain"`
		} `content:"multipart/form-data"`
	}
	type fileSliceOfPointers struct {
		Body struct {
			Avatars []*endpoints.File `json:"avatars"`
		} `content:"multipart/form-data"`
	}
	type quotedWithFile struct {
		Body struct {
			N      int            `json:"n,string"`
			Avatar endpoints.File `json:"avatar"`
		} `content:"multipart/form-data"`
	}
	type badContent struct {
		Body SignupForm `content:"json"`
	}
	type duplicateContent struct {
		Body SignupForm `content:"application/json, Application/JSON"`
	}
	type mixedContent struct {
		Body []byte `content:"text/csv, application/json"`
	}
	type structRaw struct {
		Body SignupForm `content:"text/csv"`
	}
	type readerJSON struct {
		Body io.Reader
	}
	type formArray struct {
		Body []string `content:"application/x-www-form-urlencoded"`
	}
	type rawWithConstraint struct {
		Body string `content:"text/plain" maxLength:"10"`
	}
	type badMaxBytes struct {
		Body SignupForm `maxBytes:"0"`
	}
	noop := func(*struct{}) endpoints.Reply { return endpoints.Respond(204, nil) }
	for _, tc := range []struct {
		name     string
		register func()
		want     string
	}{
		{"a negative timeout", func() {
			endpoints.Handle(endpoints.Operation{Timeout: -time.Second}, noop)
		}, `endpoints: Operation.Timeout -1s is negative; use 0 for the app's default`},
		{"File in a JSON body", func() {
			endpoints.Handle(endpoints.Operation{}, func(*fileInJSON) endpoints.Reply { return endpoints.Reply{} })
		}, `endpoints: endpoints_test.fileInJSON field Body: struct { Avatar endpoints.File "json:\"avatar\"" } field Avatar is an endpoints.File: list multipart/form-data in the content tag of Body (it has no content tag: it is JSON)`},
		{"File in a form body", func() {
			endpoints.Handle(endpoints.Operation{}, func(*fileInForm) endpoints.Reply { return endpoints.Reply{} })
		}, `field Avatar is an endpoints.File: list multipart/form-data in the content tag of Body (it has content:"application/x-www-form-urlencoded")`},
		{"File nested in a multipart body", func() {
			endpoints.Handle(endpoints.Operation{}, func(*nestedFile) endpoints.Reply { return endpoints.Reply{} })
		}, `field Avatar: endpoints.File is only for the fields of a Body struct whose content tag lists multipart/form-data, typed File, *File or []File`},
		{"File as a query parameter", func() {
			endpoints.Handle(endpoints.Operation{}, func(*fileQuery) endpoints.Reply { return endpoints.Reply{} })
		}, `endpoints_test.fileQuery field Avatar: endpoints.File is only for the fields of a Body struct`},
		{"File in a response", func() {
			endpoints.Handle(endpoints.Operation{Responses: endpoints.Responses{200: endpoints.JSON[AvatarUpload]("")}}, noop)
		}, `Responses[200]: endpoints_test.AvatarUpload field Image: endpoints.File is only for the fields of a Body struct`},
		{"multipart body struct reused in a response", func() {
			endpoints.Handle(endpoints.Operation{Responses: endpoints.Responses{200: endpoints.JSON[AvatarUpload]("")}},
				func(*uploadAvatar) endpoints.Reply { return endpoints.Reply{} })
		}, `Responses[200]: endpoints_test.AvatarUpload holds endpoints.File fields: it can only be the Body of a multipart/form-data request`},
		{"[]*File", func() {
			endpoints.Handle(endpoints.Operation{}, func(*fileSliceOfPointers) endpoints.Reply { return endpoints.Reply{} })
		}, `field Avatars: endpoints.File is only for the fields of a Body struct whose content tag lists multipart/form-data, typed File, *File or []File`},
		{"bad accept tag", func() {
			endpoints.Handle(endpoints.Operation{}, func(*badAccept) endpoints.Reply { return endpoints.Reply{} })
		}, `field Avatar: tag accept:"image/png,png": "png" is not a media type`},
		{"accept on a field that is not a File", func() {
			endpoints.Handle(endpoints.Operation{}, func(*acceptOnString) endpoints.Reply { return endpoints.Reply{} })
		}, `field Name: tag accept:"text/plain": applies to endpoints.File fields only`},
		{"File beside a ,string field", func() {
			endpoints.Handle(endpoints.Operation{}, func(*quotedWithFile) endpoints.Reply { return endpoints.Reply{} })
		}, `has endpoints.File fields, which the SDK fills itself: drop its ",string" options`},
		{"content that is not a media type", func() {
			endpoints.Handle(endpoints.Operation{}, func(*badContent) endpoints.Reply { return endpoints.Reply{} })
		}, `endpoints_test.badContent field Body: tag content:"json": "json" is not a media type`},
		{"content listed twice", func() {
			endpoints.Handle(endpoints.Operation{}, func(*duplicateContent) endpoints.Reply { return endpoints.Reply{} })
		}, `tag content:"application/json, Application/JSON": "Application/JSON" is the same media type as "application/json"`},
		{"raw and decoded content together", func() {
			endpoints.Handle(endpoints.Operation{}, func(*mixedContent) endpoints.Reply { return endpoints.Reply{} })
		}, `tag content:"text/csv, application/json": text/csv is delivered raw and application/json decoded by the host: list either kind, not both`},
		{"a struct for a raw media type", func() {
			endpoints.Handle(endpoints.Operation{}, func(*structRaw) endpoints.Reply { return endpoints.Reply{} })
		}, `tag content:"text/csv": text/csv is delivered raw: make Body an io.Reader, []byte or string, not endpoints_test.SignupForm`},
		{"io.Reader without content", func() {
			endpoints.Handle(endpoints.Operation{}, func(*readerJSON) endpoints.Reply { return endpoints.Reply{} })
		}, `field Body: an io.Reader Body is read raw: list its media types in a content tag, such as content:"text/csv"`},
		{"a form that is not an object", func() {
			endpoints.Handle(endpoints.Operation{}, func(*formArray) endpoints.Reply { return endpoints.Reply{} })
		}, `field Body: tag content:"application/x-www-form-urlencoded": a body of application/x-www-form-urlencoded is an object of fields: make Body a struct or a map, not []string`},
		{"a constraint on a raw body", func() {
			endpoints.Handle(endpoints.Operation{}, func(*rawWithConstraint) endpoints.Reply { return endpoints.Reply{} })
		}, `field Body: tag maxLength:"10": a body delivered raw is not validated: only doc and required apply`},
		{"maxBytes not positive", func() {
			endpoints.Handle(endpoints.Operation{}, func(*badMaxBytes) endpoints.Reply { return endpoints.Reply{} })
		}, `field Body: tag maxBytes:"0": want a positive number of bytes`},
		{"bad tag names type, field and tag", func() {
			endpoints.Handle(endpoints.Operation{}, func(*badTag) endpoints.Reply { return endpoints.Reply{} })
		}, `endpoints: endpoints_test.badTag field Limit: tag minimum:"abc": not a valid number`},
		{"bad tag in the body type", func() {
			endpoints.Handle(endpoints.Operation{}, func(*badBody) endpoints.Reply { return endpoints.Reply{} })
		}, `field Body: struct { N int "json:\"n\" maximum:\"ten\"" } field N: tag maximum:"ten": not a valid number`},
		{"untagged field", func() {
			endpoints.Handle(endpoints.Operation{}, func(*untagged) endpoints.Reply { return endpoints.Reply{} })
		}, `endpoints_test.untagged field Extra: has no path, query or header tag and is not named Body`},
		{"field in two parts", func() {
			endpoints.Handle(endpoints.Operation{}, func(*twoParts) endpoints.Reply { return endpoints.Reply{} })
		}, `field ID: has both path and query tags`},
		{"optional path parameter", func() {
			endpoints.Handle(endpoints.Operation{}, func(*optionalPath) endpoints.Reply { return endpoints.Reply{} })
		}, `field ID: tag required: path parameters are always required`},
		{"struct query parameter", func() {
			endpoints.Handle(endpoints.Operation{}, func(*structQuery) endpoints.Reply { return endpoints.Reply{} })
		}, `field Filter: an object query parameter's members must be strings, integers, numbers or booleans, or slices of them; member "Body" is object`},
		{"duplicate parameter", func() {
			endpoints.Handle(endpoints.Operation{}, func(*duplicate) endpoints.Reply { return endpoints.Reply{} })
		}, `field B: tag query:"q": another field already has this name`},
		{"input is not a struct", func() {
			endpoints.Handle(endpoints.Operation{}, func(*string) endpoints.Reply { return endpoints.Reply{} })
		}, `input type string is a string, not a struct`},
		{"two handlers without Method", func() {
			endpoints.Handle(endpoints.Operation{}, noop)
			endpoints.Handle(endpoints.Operation{}, noop)
		}, `Handle called twice without Operation.Method`},
		{"Method after a handler without", func() {
			endpoints.Handle(endpoints.Operation{}, noop)
			endpoints.Handle(endpoints.Operation{Method: "PUT"}, noop)
		}, `Handle called twice without Operation.Method`},
		{"same Method twice", func() {
			endpoints.Handle(endpoints.Operation{Method: "get"}, noop)
			endpoints.Handle(endpoints.Operation{Method: "GET"}, noop)
		}, `endpoints (Method GET): a handler for method GET is already registered`},
		{"unknown Method", func() {
			endpoints.Handle(endpoints.Operation{Method: "FETCH"}, noop)
		}, `Operation.Method "FETCH" is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS`},
		{"HandleRaw after Handle", func() {
			endpoints.Handle(endpoints.Operation{}, noop)
			endpoints.HandleRaw(func(endpoints.ResponseWriter, *endpoints.RawRequest) {})
		}, `HandleRaw called in a module that registered an endpoint`},
		{"Handle after HandleRaw", func() {
			endpoints.HandleRaw(func(endpoints.ResponseWriter, *endpoints.RawRequest) {})
			endpoints.Handle(endpoints.Operation{}, noop)
		}, `Handle called in a module that registered HandleRaw`},
		{"Status with Handle", func() {
			endpoints.Handle(endpoints.Operation{Status: 201}, noop)
		}, `Operation.Status applies to HandleFunc`},
		{"nil handler", func() {
			endpoints.Handle[struct{}](endpoints.Operation{}, nil)
		}, `Handle: the handler is nil`},
		{"HandleFunc returning a Reply", func() {
			endpoints.HandleFunc(endpoints.Operation{}, func(*struct{}) (endpoints.Reply, error) { return endpoints.Reply{}, nil })
		}, `HandleFunc: the handler returns a Reply: register it with Handle`},
		{"HandleFunc status out of range", func() {
			endpoints.HandleFunc(endpoints.Operation{Status: 42}, func(*struct{}) (int, error) { return 0, nil })
		}, `Operation.Status 42 is not a status an answer may have (200-599; a 1xx is informational, never the answer)`},
		{"HandleFunc status informational", func() {
			endpoints.HandleFunc(endpoints.Operation{Status: 101}, func(*struct{}) (int, error) { return 0, nil })
		}, `Operation.Status 101 is not a status an answer may have (200-599; a 1xx is informational, never the answer)`},
		{"bad response status", func() {
			endpoints.Handle(endpoints.Operation{Responses: endpoints.Responses{2000: endpoints.NoContent("")}}, noop)
		}, `Responses[2000]: not an HTTP status (100-599)`},
		{"RawJSON that is not JSON", func() {
			endpoints.Handle(endpoints.Operation{Responses: endpoints.Responses{200: endpoints.RawJSON("", `{"type":`)}}, noop)
		}, `Responses[200]: RawJSON schema is not valid JSON`},
		{"raw request schema that is not JSON", func() {
			endpoints.Handle(endpoints.Operation{Request: endpoints.RequestSchemas{Query: json.RawMessage(`{`)}}, noop)
		}, `Request.Query: not valid JSON`},
		{"Media without types", func() {
			endpoints.Handle(endpoints.Operation{Summary: "Avatar", Responses: endpoints.Responses{200: endpoints.Media("The avatar")}}, noop)
		}, `endpoints (Summary "Avatar"): Responses[200]: Media declares no media type: list the types the response sends, such as "image/png"`},
		{"Media type that does not parse", func() {
			endpoints.Handle(endpoints.Operation{Method: "GET", Summary: "Avatar",
				Responses: endpoints.Responses{200: endpoints.Media("The avatar", "image/png", "png")}}, noop)
		}, `endpoints (Method GET, Summary "Avatar"): Responses[200]: Media: "png" is not a media type: `},
		{"Media range", func() {
			endpoints.Handle(endpoints.Operation{Responses: endpoints.Responses{206: endpoints.MediaOf[User]("", "image/*")}}, noop)
		}, `Responses[206]: Media: "image/*" is a media range; declare the concrete types the response sends, such as "image/png"`},
		{"Media type twice", func() {
			endpoints.Handle(endpoints.Operation{Responses: endpoints.Responses{200: endpoints.Media("", "text/csv; charset=utf-8", "Text/CSV;charset=utf-8")}}, noop)
		}, `Responses[200]: Media: "Text/CSV;charset=utf-8" is the same media type as "text/csv; charset=utf-8" (media types are case-insensitive)`},
		{"JSONAs with a type that is not JSON", func() {
			endpoints.Handle(endpoints.Operation{Responses: endpoints.Responses{400: endpoints.JSONAs[NotFound]("", "text/plain")}}, noop)
		}, `Responses[400]: JSONAs: content type "text/plain" is not application/json or application/<name>+json; declare other media types with Media`},
		{"Defs name taken by a Go type", func() {
			endpoints.Handle(endpoints.Operation{Method: "GET", Responses: endpoints.Responses{200: endpoints.JSON[User]("")}}, noop)
			endpoints.Handle(endpoints.Operation{Method: "PUT", Defs: map[string]json.RawMessage{"User": json.RawMessage(`{}`)}}, noop)
		}, `Operation.Defs["User"]: the name is already used by another schema of the module`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpoints.Reset()
			t.Cleanup(endpoints.Reset)
			got := func() (msg string) {
				defer func() {
					if v := recover(); v != nil {
						msg, _ = v.(string)
					}
				}()
				tc.register()
				return ""
			}()
			if got == "" {
				t.Fatalf("no panic, want one containing %q", tc.want)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("panic = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

func TestContractJSONPlainRoute(t *testing.T) {
	for _, tc := range []struct {
		name     string
		register func()
	}{
		{"nothing registered", func() {}},
		{"HandleRaw", func() { endpoints.HandleRaw(func(endpoints.ResponseWriter, *endpoints.RawRequest) {}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpoints.Reset()
			t.Cleanup(endpoints.Reset)
			tc.register()
			if got := endpoints.ContractJSON(); got != nil {
				t.Errorf("ContractJSON() = %s, want nil", got)
			}
		})
	}
}

// TestStatusErrorMessage checks what a logged StatusError says.
func TestStatusErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{endpoints.Error(404, NotFound{"no such user"}), `status 404: {"message":"no such user"}`},
		{endpoints.Error(409, nil), `status 409`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			var se *endpoints.StatusError
			if !errors.As(tc.err, &se) {
				t.Errorf("errors.As(%v, *StatusError) = false", tc.err)
			}
		})
	}
}
