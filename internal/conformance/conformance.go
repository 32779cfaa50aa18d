// Package conformance is the HTTP-level behaviour every port of the users
// example must show, whatever language its guests are written in: the
// validated GET /api/users/:id of examples/users, its framework errors, and
// the plain GET /health. The host's tests run it against the Go, C,
// AssemblyScript and Rust versions; `endpoints conformance APP` runs it
// against any app, so the author of a new SDK can check their port.
package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Case is one request and what the answer must be.
type Case struct {
	Name         string
	Method, Path string
	Status       int
	// Body is JSON compared by value when ContentType is application/json,
	// exact text otherwise; empty checks nothing (HEAD checks there is
	// none).
	Body        string
	ContentType string
	// Allow, when set, must appear in the Allow header.
	Allow string
	// Check, when set, checks the answer further.
	Check func(body []byte) error
}

// Route is one route an app serves, as `endpoints routes` prints it.
type Route struct {
	// Method is the upper-case method, "*" for a plain route serving all.
	Method string
	// Path is in client form: /api/users/:id.
	Path string
	// Endpoint is false for a plain route.
	Endpoint bool
}

// UsersRoutes are the routes a port of the users example serves, which
// the suite Users calls: an endpoint GET /api/users/:id and a plain route
// at /health (which may serve any method).
var UsersRoutes = []Route{
	{Method: "GET", Path: "/api/users/:id", Endpoint: true},
	{Method: "GET", Path: "/health"},
}

// MissingUsersRoutes returns the routes of UsersRoutes that served does
// not hold, described for a reader ("the endpoint GET /api/users/:id");
// none when the app can be a port of the users example. A path parameter
// may have any name (/api/users/:userId serves /api/users/:id).
func MissingUsersRoutes(served []Route) []string {
	var missing []string
	for _, want := range UsersRoutes {
		found := false
		for _, r := range served {
			if (r.Method == want.Method || r.Method == "*" && !want.Endpoint) && samePattern(r.Path, want.Path) && (r.Endpoint || !want.Endpoint) {
				found = true
				break
			}
		}
		if !found {
			kind := "the plain route"
			if want.Endpoint {
				kind = "the endpoint"
			}
			missing = append(missing, kind+" "+want.Method+" "+want.Path)
		}
	}
	return missing
}

// samePattern reports whether two client-form paths match the same
// requests: equal static segments, a :parameter against any :parameter.
func samePattern(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		ap, bp := strings.HasPrefix(as[i], ":"), strings.HasPrefix(bs[i], ":")
		if ap != bp || !ap && as[i] != bs[i] {
			return false
		}
	}
	return true
}

// Users is the suite of the users example. It expects the app to serve
// in development mode, where every answer is checked against its contract:
// an answer that breaks it becomes a 500 and fails its case.
var Users = []Case{
	{Name: "an existing user", Method: "GET", Path: "/api/users/2", Status: 200, Body: `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`, ContentType: "application/json"},
	{Name: "the first seed user", Method: "GET", Path: "/api/users/1", Status: 200, Body: `{"id":1,"name":"Ada Lovelace","email":"ada@example.com"}`, ContentType: "application/json"},
	{Name: "a declared 404", Method: "GET", Path: "/api/users/9", Status: 404, Body: `{"message":"user 9 not found"}`, ContentType: "application/json"},
	{Name: "id below the minimum", Method: "GET", Path: "/api/users/0", Status: 400, ContentType: "application/json",
		Body: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"must be greater than or equal to 1"}]}}`},
	{Name: "id not an integer", Method: "GET", Path: "/api/users/abc", Status: 400, ContentType: "application/json",
		Body: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"expected integer, received string"}]}}`},
	{Name: "a fractional id", Method: "GET", Path: "/api/users/1.5", Status: 400, ContentType: "application/json",
		Body: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"expected integer, received number"}]}}`},
	{Name: "an integer written as 2.0 reaches the guest as 2", Method: "GET", Path: "/api/users/2.0", Status: 200, Body: `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`, ContentType: "application/json"},
	{Name: "an integer written as 2e0 reaches the guest as 2", Method: "GET", Path: "/api/users/2e0", Status: 200, Body: `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`, ContentType: "application/json"},
	{Name: "an id beyond int64", Method: "GET", Path: "/api/users/9223372036854775808", Status: 400, ContentType: "application/json",
		Body: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"must be less than or equal to 9223372036854775807"}]}}`},
	{Name: "the largest id reaches the guest exactly", Method: "GET", Path: "/api/users/9223372036854775807", Status: 404, ContentType: "application/json",
		Body: `{"message":"user 9223372036854775807 not found"}`},
	{Name: "an id beyond float64", Method: "GET", Path: "/api/users/1e400", Status: 400, ContentType: "application/json",
		Body: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"number out of range: 1e400 exceeds the float64 range; send a number within ±1.7976931348623157e308"}]}}`},
	{Name: "HEAD has no body", Method: "HEAD", Path: "/api/users/3", Status: 200, ContentType: "application/json"},
	{Name: "a method the route does not serve", Method: "PUT", Path: "/api/users/1", Status: 405, ContentType: "application/json", Allow: "GET"},
	{Name: "an unknown path", Method: "GET", Path: "/api/nobody", Status: 404, ContentType: "application/json",
		Body: `{"statusCode":404,"statusMessage":"Not Found","data":{"path":"/api/nobody"}}`},
	{Name: "the plain health route", Method: "GET", Path: "/health", Status: 200, Body: "ok", ContentType: "text/plain; charset=utf-8"},
	{Name: "the document declares GET /api/users/{id}", Method: "GET", Path: "/_endpoints/schema", Status: 200, ContentType: "application/json", Check: usersDocument},
}

// usersDocument checks the operation of the users endpoint in the app's
// OpenAPI document: its parameter, its 200, 400 and 404 answers, and the
// host's 500 (a guest that failed) and 503 (no instance in time, a
// shutdown), which the host answers for every operation whatever its
// language.
func usersDocument(body []byte) error {
	var doc struct {
		Paths map[string]map[string]struct {
			Summary    string
			Parameters []struct {
				Name, In string
				Required bool
				Schema   struct {
					Type    string
					Minimum json.Number
				}
			}
			Responses map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("the document is not JSON: %w", err)
	}
	op, ok := doc.Paths["/api/users/{id}"]["get"]
	if !ok {
		return fmt.Errorf("the document has no GET /api/users/{id}")
	}
	var problems []string
	if op.Summary != "Get a user" {
		problems = append(problems, fmt.Sprintf("summary %q, want %q", op.Summary, "Get a user"))
	}
	if len(op.Parameters) != 1 || op.Parameters[0].Name != "id" || op.Parameters[0].In != "path" || !op.Parameters[0].Required ||
		op.Parameters[0].Schema.Type != "integer" || op.Parameters[0].Schema.Minimum != "1" {
		problems = append(problems, fmt.Sprintf("parameters %+v, want one required path parameter id, an integer of minimum 1", op.Parameters))
	}
	for _, status := range []string{"200", "400", "404", "500", "503"} {
		if _, ok := op.Responses[status]; !ok {
			problems = append(problems, "no "+status+" response")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("GET /api/users/{id}: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Result is the outcome of one case: Err is nil when it passed.
type Result struct {
	Case Case
	Err  error
}

// Run sends every case to the app at baseURL, one after another, and
// reports each.
func Run(ctx context.Context, client *http.Client, baseURL string, cases []Case) []Result {
	results := make([]Result, len(cases))
	for i, c := range cases {
		results[i] = Result{Case: c, Err: runCase(ctx, client, baseURL, c)}
	}
	return results
}

func runCase(ctx context.Context, client *http.Client, baseURL string, c Case) error {
	req, err := http.NewRequestWithContext(ctx, c.Method, baseURL+c.Path, nil)
	if err != nil {
		return err
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	var problems []string
	if res.StatusCode != c.Status {
		problems = append(problems, fmt.Sprintf("status %d, want %d (body %s)", res.StatusCode, c.Status, cut(body)))
	}
	if got := res.Header.Get("Content-Type"); got != c.ContentType {
		problems = append(problems, fmt.Sprintf("Content-Type %q, want %q", got, c.ContentType))
	}
	switch {
	case c.Method == "HEAD" && len(body) > 0:
		problems = append(problems, fmt.Sprintf("HEAD answered a body: %s", cut(body)))
	case c.Body == "":
	case c.ContentType == "application/json":
		if !jsonEqual(body, []byte(c.Body)) {
			problems = append(problems, fmt.Sprintf("body %s, want %s", cut(body), c.Body))
		}
	case string(body) != c.Body:
		problems = append(problems, fmt.Sprintf("body %q, want %q", cut(body), c.Body))
	}
	if c.Allow != "" && !strings.Contains(res.Header.Get("Allow"), c.Allow) {
		problems = append(problems, fmt.Sprintf("Allow %q, want it to list %s", res.Header.Get("Allow"), c.Allow))
	}
	if c.Check != nil && res.StatusCode == c.Status {
		if err := c.Check(body); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s %s: %s", c.Method, c.Path, strings.Join(problems, "; "))
	}
	return nil
}

// jsonEqual compares two JSON texts by value; numbers compare by their
// text, so 9223372036854775807 stays exact.
func jsonEqual(a, b []byte) bool {
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

// cut shortens a body for a message.
func cut(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
