package openapi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/openapi"
)

// plain is a plain route: method "" for a module without a method suffix,
// which serves the methods in serves.
func plain(method, path, file string, serves ...string) openapi.Route {
	return openapi.Route{Method: method, Path: path, File: file, Plain: true, Serves: serves}
}

var allMethods = []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"}

func TestPlainRoutes(t *testing.T) {
	const notChecked = `{"description": "Not checked: the module answers the raw request as it likes"}`
	tests := []struct {
		name   string
		ops    []openapi.Route
		config string
		// want maps a JSON pointer below /paths to its content; "" says
		// there is none.
		want map[string]string
	}{
		{
			name: "a method suffix, no meta: defaults",
			ops:  []openapi.Route{plain("GET", "/feed.xml", "server/routes/feed.xml.get.wasm")},
			want: map[string]string{"/~1feed.xml": `{"get": {
				"operationId": "getFeedXml", "summary": "Plain route server/routes/feed.xml.get.wasm",
				"security": [], "x-endpoints-plain": true, "responses": {` + hostWideRefs + `, "default": ` + notChecked + `}}}`},
		},
		{
			name: "no method suffix, every method served: GET only",
			ops:  []openapi.Route{plain("", "/page", "server/routes/page.wasm", allMethods...)},
			want: map[string]string{"/~1page/get/operationId": `"getPage"`, "/~1page/post": "", "/~1page/head": ""},
		},
		{
			name: "no method suffix, GET claimed by another module: every other method but HEAD and OPTIONS",
			ops: []openapi.Route{
				op(t, "GET", "/hook", "server/routes/hook.get.wasm", `{"summary": "Status"}`),
				plain("", "/hook", "server/routes/hook.wasm", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
			},
			want: map[string]string{
				"/~1hook/get/summary":    `"Status"`,
				"/~1hook/post/summary":   `"Plain route server/routes/hook.wasm"`,
				"/~1hook/put/summary":    `"Plain route server/routes/hook.wasm"`,
				"/~1hook/patch/summary":  `"Plain route server/routes/hook.wasm"`,
				"/~1hook/delete/summary": `"Plain route server/routes/hook.wasm"`,
				"/~1hook/options":        "",
			},
		},
		{
			name: "path parameters are strings",
			ops:  []openapi.Route{plain("GET", "/blog/{slug}", "server/routes/blog/[slug].get.wasm")},
			want: map[string]string{"/~1blog~1{slug}/get/parameters": `[{"name": "slug", "in": "path", "required": true, "schema": {"type": "string"}}]`},
		},
		{
			name: "meta replaces the defaults and adds responses",
			ops:  []openapi.Route{plain("GET", "/feed.xml", "server/routes/feed.xml.get.wasm")},
			config: `{"plainRoutes": {"/feed.xml": {"summary": "The RSS feed", "description": "Every post.", "tags": ["blog"], "deprecated": true,
				"responses": {"200": {"description": "The feed", "media": ["application/rss+xml"]}, "304": {}}}}}`,
			want: map[string]string{
				"/~1feed.xml/get/summary":     `"The RSS feed"`,
				"/~1feed.xml/get/description": `"Every post."`,
				"/~1feed.xml/get/tags":        `["blog"]`,
				"/~1feed.xml/get/deprecated":  `true`,
				"/~1feed.xml/get/responses": `{
					"200": {"description": "The feed", "content": {"application/rss+xml": {"schema": {"type": "string", "contentEncoding": "binary"}}}},
					"304": {"description": "Not Modified"},
					` + hostWideRefs + `,
					"default": ` + notChecked + `}`,
			},
		},
		{
			name: "meta methods choose the methods; a method's meta wins",
			ops:  []openapi.Route{plain("", "/hooks/{source}", "server/routes/hooks/[source].wasm", allMethods...)},
			config: `{"plainRoutes": {"/hooks/:source": {"tags": ["hooks"], "responses": {"204": {"description": "Taken"}},
				"methods": {"post": {"summary": "Receive a webhook", "responses": {"204": {"description": "Received"}}}, "put": {"tags": ["admin"]}}}}}`,
			want: map[string]string{
				"/~1hooks~1{source}/get":                "",
				"/~1hooks~1{source}/post/summary":       `"Receive a webhook"`,
				"/~1hooks~1{source}/post/tags":          `["hooks"]`,
				"/~1hooks~1{source}/post/responses/204": `{"description": "Received"}`,
				"/~1hooks~1{source}/put/summary":        `"Plain route server/routes/hooks/[source].wasm"`,
				"/~1hooks~1{source}/put/tags":           `["admin"]`,
				"/~1hooks~1{source}/put/responses/204":  `{"description": "Taken"}`,
			},
		},
		{
			name: "meta methods span two plain modules of one route",
			ops: []openapi.Route{
				plain("GET", "/feed", "server/routes/feed.get.wasm"),
				plain("", "/feed", "server/routes/feed.wasm", "POST", "PUT", "PATCH", "DELETE"),
			},
			config: `{"plainRoutes": {"/feed": {"methods": {"get": {"summary": "Read"}, "post": {"summary": "Write"}}}}}`,
			want: map[string]string{
				"/~1feed/get/summary":  `"Read"`,
				"/~1feed/post/summary": `"Write"`,
				"/~1feed/put":          "",
			},
		},
		{
			name:   "meta responses may use the configuration's $defs",
			ops:    []openapi.Route{plain("GET", "/status", "server/routes/status.get.wasm")},
			config: `{"plainRoutes": {"/status": {"responses": {"200": {"schema": {"$ref": "#/$defs/Status"}}}}}, "$defs": {"Status": {"type": "object"}}}`,
			want: map[string]string{
				"/~1status/get/responses/200/content/application~1json/schema": `{"$ref": "#/components/schemas/Status"}`,
			},
		},
		{
			name:   "the routes configuration's responses are for endpoints only",
			ops:    []openapi.Route{plain("GET", "/status", "server/routes/status.get.wasm"), op(t, "GET", "/api/x", "server/api/x.get.wasm", `{}`)},
			config: `{"responses": {"500": {"description": "Failed"}}}`,
			want: map[string]string{
				// A plain route's 500 is the host's alone; an endpoint's
				// declared without a body describes the host's body.
				"/~1status/get/responses/500": `{"$ref": "#/components/responses/EndpointsInternalServerError"}`,
				"/~1api~1x/get/responses/500": `{"description": "Failed", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/EndpointsInternalServerError"},
					"example": {"statusCode": 500, "statusMessage": "Internal Server Error"}}}}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := openapi.Options{}
			if tt.config != "" {
				cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(tt.config))
				if err != nil {
					t.Fatal(err)
				}
				opts.Routes = cfg
			}
			doc := build(t, tt.ops, opts)
			for ptr, want := range tt.want {
				got := at(t, doc, "/paths"+ptr)
				if want == "" {
					if got != "" {
						t.Errorf("%s: got %s, want none", ptr, got)
					}
					continue
				}
				wantJSON(t, ptr, got, want)
			}
		})
	}
}

func TestPlainRoutesErrors(t *testing.T) {
	tests := []struct {
		name   string
		ops    []openapi.Route
		config string
		want   string
		is     error
	}{
		{
			name:   "meta for a route that is no plain route",
			ops:    []openapi.Route{op(t, "GET", "/api/x", "server/api/x.get.wasm", `{}`)},
			config: `{"plainRoutes": {"/api/x": {"summary": "X"}}}`,
			want:   `server/routes.config.json: /plainRoutes/~1api~1x: "/api/x" is not a plain route in the document`,
			is:     openapi.ErrUnmatchedPattern,
		},
		{
			name:   "a method the route does not serve",
			ops:    []openapi.Route{plain("GET", "/feed.xml", "server/routes/feed.xml.get.wasm")},
			config: `{"plainRoutes": {"/feed.xml": {"methods": {"post": {}}}}}`,
			want:   `server/routes.config.json: /plainRoutes/~1feed.xml/methods/post: no plain module of /feed.xml serves POST; its module is: server/routes/feed.xml.get.wasm (GET)`,
			is:     openapi.ErrUnmatchedPattern,
		},
		{
			name: "a method no module of the route serves",
			ops: []openapi.Route{
				plain("GET", "/feed", "server/routes/feed.get.wasm"),
				plain("", "/feed", "server/routes/feed.wasm", "POST", "PUT", "PATCH", "DELETE"),
			},
			config: `{"plainRoutes": {"/feed": {"methods": {"get": {}, "post": {}, "options": {}}}}}`,
			want:   `/plainRoutes/~1feed/methods/options: no plain module of /feed serves OPTIONS; its modules are: server/routes/feed.get.wasm (GET), server/routes/feed.wasm (PUT, POST, DELETE, PATCH)`,
			is:     openapi.ErrUnmatchedPattern,
		},
		{
			name: "an operationId shared with an endpoint",
			ops: []openapi.Route{
				op(t, "GET", "/user-groups", "server/routes/user-groups.get.wasm", `{}`),
				plain("GET", "/user_groups", "server/routes/user_groups.get.wasm"),
			},
			want: `operationId "getUserGroups" of GET /user_groups (server/routes/user_groups.get.wasm) is also the operationId of GET /user-groups (server/routes/user-groups.get.wasm)`,
			is:   openapi.ErrDuplicateOperationID,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := openapi.Options{}
			if tt.config != "" {
				cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(tt.config))
				if err != nil {
					t.Fatal(err)
				}
				opts.Routes = cfg
			}
			_, err := openapi.Build(tt.ops, opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, tt.is) {
				t.Errorf("Build error:\ngot  %v\nwant one containing %s, wrapping %v", err, tt.want, tt.is)
			}
		})
	}
}

func TestParsePlainRoutes(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"a pattern", `{"plainRoutes": {"/blog/**": {}}}`, `/plainRoutes/~1blog~1**: route "/blog/**": a plain route's meta names one route template`},
		{"an unknown member", `{"plainRoutes": {"/feed.xml": {"security": []}}}`, `/plainRoutes/~1feed.xml/security: unknown member "security"; allowed: summary, description, tags, deprecated, responses, methods`},
		{"tags not strings", `{"plainRoutes": {"/feed.xml": {"tags": "blog"}}}`, `/plainRoutes/~1feed.xml/tags: got a string, want an array of strings`},
		{"summary not a string", `{"plainRoutes": {"/feed.xml": {"methods": {"get": {"summary": 1}}}}}`, `/plainRoutes/~1feed.xml/methods/get/summary: got a number, want a string`},
		{"an upper-case method", `{"plainRoutes": {"/feed.xml": {"methods": {"GET": {}}}}}`, `/plainRoutes/~1feed.xml/methods/GET: unknown method "GET"`},
		{"a bad response", `{"plainRoutes": {"/feed.xml": {"responses": {"200": {"media": []}}}}}`, `/plainRoutes/~1feed.xml/responses/200/media: is empty`},
		{"a dangling reference", `{"plainRoutes": {"/feed.xml": {"responses": {"200": {"schema": {"$ref": "#/$defs/Feed"}}}}}}`, `/plainRoutes/~1feed.xml/responses/200/schema/$ref: names "#/$defs/Feed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(tt.config))
			if err == nil || !strings.Contains(err.Error(), "server/routes.config.json: "+tt.want) {
				t.Errorf("ParseRoutesConfig error:\ngot  %v\nwant one containing server/routes.config.json: %s", err, tt.want)
			}
		})
	}
}
