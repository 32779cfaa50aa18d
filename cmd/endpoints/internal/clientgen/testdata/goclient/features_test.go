// Tests of the Go client generated for features.openapi.json, run by
// TestGoClientFeatures (internal/clientgen/golang_e2e_test.go): it copies
// this file beside the generated client.go into a temporary module
// example.com/features and runs go test there. Each test serves scripted
// answers with net/http/httptest and checks the requests the client sends
// and the responses it reads.
package features_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"example.com/features"
)

func ptr[T any](v T) *T { return &v }

// request is what the server received.
type request struct {
	method, path, query string
	header              http.Header
	body                []byte
}

// serve answers every request with status, Content-Type and body, and
// returns a client for it (its BaseURL ending in a slash) and the last
// request received.
func serve(t *testing.T, status int, contentType, body string) (*features.Client, *request) {
	t.Helper()
	got := &request{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		*got = request{method: r.Method, path: r.URL.EscapedPath(), query: r.URL.RawQuery, header: r.Header, body: data}
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return features.New(srv.URL + "/"), got
}

func TestParameters(t *testing.T) {
	c, got := serve(t, 200, "application/json", `{"name":"n","size":null,"labels":{"k":"v"},"mixed":7}`)
	c.Header = http.Header{"Authorization": {"Bearer t"}, "X-Count": {"overridden"}}
	res, err := c.GetThing(context.Background(), &features.GetThingRequest{
		Name: "a b/c", IDs: []int64{1, 2}, Ratio: ptr(0.5), Flag: true, Color: ptr(features.ColorDarkGreen),
		XCount: ptr[int64](3), XTags: []string{"x", "y"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, got, want string }{
		{"method", got.method, "GET"},
		{"path", got.path, "/things/a%20b%2Fc"},
		{"query", got.query, "color=dark-green&flag=true&ids=1&ids=2&ratio=0.5"},
		{"X-Count", strings.Join(got.header.Values("X-Count"), ","), "3"},
		{"X-Tags", strings.Join(got.header.Values("X-Tags"), ","), "x,y"},
		{"Authorization", got.header.Get("Authorization"), "Bearer t"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	want := &features.Thing{Name: "n", Labels: features.Labels{"k": "v"}, Mixed: float64(7)}
	if !reflect.DeepEqual(res.OK, want) || res.NotFound != nil {
		t.Errorf("got OK %+v, NotFound %+v; want OK %+v", res.OK, res.NotFound, want)
	}
}

func TestBodies(t *testing.T) {
	tests := []struct {
		name            string
		req             features.PutThingRequest
		wantContentType string
		wantBody        string
		wantErr         string
	}{
		{name: "JSON: optional fields left out", req: features.PutThingRequest{BodyJSON: &features.Thing{Name: "n"}},
			wantContentType: "application/json", wantBody: `{"name":"n"}`},
		{name: "a form", req: features.PutThingRequest{BodyForm: &features.PutThingBodyForm{Name: "n", Color: ptr(features.ColorRed), Size: ptr[int64](2)}},
			wantContentType: "application/x-www-form-urlencoded", wantBody: "color=red&name=n&size=2"},
		{name: "text of a type in the declared range", req: features.PutThingRequest{BodyText: strings.NewReader("# hello"), BodyContentType: "text/markdown"},
			wantContentType: "text/markdown", wantBody: "# hello"},
		{name: "no body", req: features.PutThingRequest{}, wantErr: "PUT /things/:name: set one of BodyJSON, BodyForm, BodyText"},
		{name: "two bodies", req: features.PutThingRequest{BodyJSON: &features.Thing{}, BodyText: strings.NewReader("")},
			wantErr: "PUT /things/:name: set one of BodyJSON, BodyForm, BodyText"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, got := serve(t, 204, "", "")
			tt.req.Name = "t"
			res, err := c.PutThing(context.Background(), &tt.req)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || got.method != "" {
					t.Errorf("got %v (request sent: %v), want %q and no request", err, got.method != "", tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ct := got.header.Get("Content-Type"); ct != tt.wantContentType || string(got.body) != tt.wantBody {
				t.Errorf("sent %s %q, want %s %q", ct, got.body, tt.wantContentType, tt.wantBody)
			}
			if !res.NoContent || res.BadRequest != nil || res.Status != 204 {
				t.Errorf("got %+v, want NoContent only", res)
			}
		})
	}
}

// TestMediaTypesOfOneStatus reads a status declared in two media types
// with one schema into one field, and a status declared as JSON and */*
// by Content-Type.
func TestMediaTypesOfOneStatus(t *testing.T) {
	for _, ct := range []string{"application/json", "application/problem+json; charset=utf-8"} {
		t.Run("400 as "+ct, func(t *testing.T) {
			c, _ := serve(t, 400, ct, `{"title":"bad"}`)
			res, err := c.PutThing(context.Background(), &features.PutThingRequest{BodyJSON: &features.Thing{}})
			if err != nil {
				t.Fatal(err)
			}
			if res.BadRequest == nil || res.BadRequest.Title != "bad" {
				t.Errorf("got %+v, want BadRequest", res)
			}
		})
	}
	tests := []struct {
		name, contentType, body string
		want                    func(*features.UploadResponse) bool
	}{
		{name: "JSON", contentType: "application/json", body: `{"a":"b"}`,
			want: func(r *features.UploadResponse) bool {
				return r.OKJSON != nil && (*r.OKJSON)["a"] == "b" && r.OKAny == nil
			}},
		{name: "anything else streams", contentType: "text/plain", body: "raw",
			want: func(r *features.UploadResponse) bool {
				data, err := io.ReadAll(r.OKAny)
				return err == nil && string(data) == "raw" && r.OKJSON == nil
			}},
	}
	for _, tt := range tests {
		t.Run("200 as "+tt.name, func(t *testing.T) {
			c, _ := serve(t, 200, tt.contentType, tt.body)
			res, err := c.Upload(context.Background(), &features.UploadRequest{Body: features.UploadBody{Files: []features.File{}}})
			if err != nil {
				t.Fatal(err)
			}
			defer res.Close()
			if !tt.want(res) {
				t.Errorf("got %+v", res)
			}
		})
	}
}

func TestMultipart(t *testing.T) {
	c, got := serve(t, 201, "application/json", `{"ok":true}`)
	png := []byte("\x89PNG\r\n\x1a\nrest")
	req := &features.UploadRequest{Body: features.UploadBody{
		Files: []features.File{
			{Name: "a.bin", ContentType: "application/octet-stream", Content: strings.NewReader("AAA")},
			{Content: bytes.NewReader(png)},
		},
		Count:  2,
		Labels: []string{"x", "y"},
	}}
	res, err := c.Upload(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if key := got.header.Get("Idempotency-Key"); !uuid.MatchString(key) || key != req.IdempotencyKey || key != res.IdempotencyKey {
		t.Errorf("sent key %q, request %q, response %q: want one UUID", key, req.IdempotencyKey, res.IdempotencyKey)
	}
	if m, ok := (*res.Created).(map[string]any); !ok || m["ok"] != true {
		t.Errorf("Created = %#v, want the decoded JSON", *res.Created)
	}
	mt, params, err := mime.ParseMediaType(got.header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("Content-Type %q: %v", got.header.Get("Content-Type"), err)
	}
	var parts []string
	mr := multipart.NewReader(bytes.NewReader(got.body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		parts = append(parts, p.FormName()+" "+p.FileName()+" "+p.Header.Get("Content-Type")+" "+string(data))
	}
	want := []string{
		"count   2",
		"files a.bin application/octet-stream AAA",
		"files files image/png " + string(png),
		"labels   x",
		"labels   y",
	}
	if !reflect.DeepEqual(parts, want) {
		t.Errorf("parts\n%q\nwant\n%q", parts, want)
	}
}

func TestEvents(t *testing.T) {
	c, _ := serve(t, 200, "text/event-stream",
		"\xef\xbb\xbfdata: a\r\ndata: b\r\n\r\n: a comment\revent: x\rid: 7\rretry: 1500\rdata: second\r\r\n\ndata: not ended")
	res, err := c.Feed(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	want := []features.Event[string]{
		{Type: "message", Data: "a\nb"},
		{Type: "x", ID: "7", Retry: 1500 * time.Millisecond, Data: "second"},
	}
	for i, w := range want {
		ev, err := res.OK.Next()
		if err != nil || ev != w {
			t.Errorf("event %d: got %+v, %v; want %+v", i, ev, err, w)
		}
	}
	if ev, err := res.OK.Next(); err != io.EOF {
		t.Errorf("after the last event: got %+v, %v; want io.EOF", ev, err)
	}
}

func TestEventDecodeError(t *testing.T) {
	const stream = "data: {\"n\":1}\n\ndata: oops\n\ndata: {\"n\":3}\n\n"
	t.Run("Next goes on after the error", func(t *testing.T) {
		c, _ := serve(t, 200, "text/event-stream", stream)
		res, err := c.Ticks(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		var got []string
		for {
			ev, err := res.OK.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				got = append(got, "error")
				continue
			}
			got = append(got, string(rune('0'+ev.Data.N)))
		}
		if strings.Join(got, " ") != "1 error 3" {
			t.Errorf("got %v, want 1 error 3", got)
		}
	})
	t.Run("All stops at the error", func(t *testing.T) {
		c, _ := serve(t, 200, "text/event-stream", stream)
		res, err := c.Ticks(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		var ticks []int64
		var last error
		for ev, err := range res.OK.All() {
			if err != nil {
				last = err
				continue
			}
			ticks = append(ticks, ev.Data.N)
		}
		var syntax *json.SyntaxError
		if len(ticks) != 1 || ticks[0] != 1 || !errors.As(last, &syntax) || !strings.Contains(last.Error(), `"oops"`) {
			t.Errorf("got %v then %v, want [1] then the JSON error naming the data", ticks, last)
		}
	})
}

func TestUndecodableAnswer(t *testing.T) {
	c, _ := serve(t, 200, "application/json", "not json")
	res, err := c.GetThing(context.Background(), &features.GetThingRequest{Name: "x"})
	var re *features.ResponseError
	var syntax *json.SyntaxError
	if res != nil || !errors.As(err, &re) || !errors.As(err, &syntax) || string(re.Body) != "not json" || re.Status != 200 {
		t.Errorf("got %+v, %v; want a ResponseError with the body and the JSON error", res, err)
	}
}

// TestTypes checks the JSON of the types the schemas give.
func TestTypes(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{name: "allOf embeds its members", v: features.Pair{Thing: features.Thing{Name: "n"}, Tick: features.Tick{N: 1}}, want: `{"name":"n","n":1}`},
		{name: "a required nullable object", v: features.HoldsMaybe{}, want: `{"maybe":null}`},
		{name: "a recursive type", v: features.Node{Next: &features.Node{}}, want: `{"next":{"next":null}}`},
		{name: "a union keeps its JSON", v: features.Either{RawMessage: json.RawMessage(`{"name":"e"}`)}, want: `{"name":"e"}`},
		{name: "a renamed schema", v: features.Event2{At: ptr(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))}, want: `{"at":"2025-01-01T00:00:00Z"}`},
		{name: "a tuple", v: features.Tuple{"a", 1}, want: `["a",1]`},
		{name: "the schema named Client", v: features.Client2("c"), want: `"c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.v)
			if err != nil || string(data) != tt.want {
				t.Errorf("got %s, %v; want %s", data, err, tt.want)
			}
		})
	}
	var e *features.Either
	if err := json.Unmarshal([]byte(`{"name":"e"}`), &e); err != nil {
		t.Fatal(err)
	}
	if thing, err := e.AsThing(); err != nil || thing.Name != "e" {
		t.Errorf("AsThing = %+v, %v; want the thing named e", thing, err)
	}
	if _, err := e.AsVariant2(); err == nil {
		t.Errorf("AsVariant2 decoded an object as an integer")
	}
}

// TestUnionVariants: a union's As method decodes the JSON only when it is
// that variant: of its JSON type, with its required properties, no
// property a closed schema does not declare, and the values its const or
// enum properties allow; otherwise it fails naming the union's place and
// the variant, and what does not fit.
func TestUnionVariants(t *testing.T) {
	type as struct {
		name string
		fn   func() error
	}
	either := func(raw string) features.Either { return features.Either{RawMessage: json.RawMessage(raw)} }
	outcome := func(raw string) features.Outcome { return features.Outcome{RawMessage: json.RawMessage(raw)} }
	thing := func(e features.Either) as {
		return as{"Thing", func() error { _, err := e.AsThing(); return err }}
	}
	integer := func(e features.Either) as {
		return as{"int64", func() error { _, err := e.AsVariant2(); return err }}
	}
	ok := func(o features.Outcome) as { return as{"OK", func() error { _, err := o.AsOK(); return err }} }
	failure := func(o features.Outcome) as {
		return as{"Failure", func() error { _, err := o.AsFailure(); return err }}
	}
	tests := []struct {
		name    string
		matches []as
		refuses []as
		whyNot  string // in each refusal's error
	}{
		{name: "a thing", matches: []as{thing(either(`{"name":"e"}`))}, refuses: []as{integer(either(`{"name":"e"}`))}, whyNot: "object"},
		{name: "an integer", matches: []as{integer(either(`3`))}, refuses: []as{thing(either(`3`))}, whyNot: "integer"},
		{name: "an object without a thing's required name", refuses: []as{thing(either(`{"size":2}`))}, whyNot: `"name"`},
		{name: "ok", matches: []as{ok(outcome(`{"kind":"ok","value":1}`))}, refuses: []as{failure(outcome(`{"kind":"ok","value":1}`))}},
		{name: "a failure", matches: []as{failure(outcome(`{"code":"E1"}`))}, refuses: []as{ok(outcome(`{"code":"E1"}`))}, whyNot: `"kind"`},
		{name: "a code the enum does not list", refuses: []as{failure(outcome(`{"code":"E9"}`)), ok(outcome(`{"code":"E9"}`))}},
		// JSON has more than one text for a value: a server may escape
		// what it need not (Python's json.dumps escapes every non-ASCII
		// character) or write an integer with a fraction.
		{name: "an escaped const", matches: []as{ok(outcome(`{"kind":"\u006fk","value":1}`))}},
		{name: "an escaped enum value", matches: []as{failure(outcome(`{"code":"\u0045\u0031"}`))}},
		{name: "a discriminating const", refuses: []as{ok(outcome(`{"kind":"failure","value":1}`)), failure(outcome(`{"kind":"failure","value":1}`))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range tt.matches {
				if err := m.fn(); err != nil {
					t.Errorf("As%s: %v, want it decoded", m.name, err)
				}
			}
			for _, r := range tt.refuses {
				err := r.fn()
				if err == nil {
					t.Errorf("As%s succeeded, want an error: the JSON is not a %s", r.name, r.name)
					continue
				}
				if !strings.Contains(err.Error(), tt.whyNot) || !strings.Contains(err.Error(), r.name) {
					t.Errorf("As%s: %q, want it to name %s and %s", r.name, err, r.name, tt.whyNot)
				}
				if !errors.Is(err, features.ErrNotVariant) {
					t.Errorf("As%s: %q does not wrap ErrNotVariant", r.name, err)
				}
			}
		})
	}
}
