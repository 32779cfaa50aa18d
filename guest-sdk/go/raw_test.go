//go:build !wasip1

package endpoints

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// rawFields is what a plain route's handler reads of its RawRequest, Body
// aside.
type rawFields struct {
	Method, Route, Path, RawQuery string
	Params                        map[string]string
	Headers                       Headers
}

func fieldsOf(r *RawRequest) rawFields {
	return rawFields{r.Method, r.Route, r.Path, r.RawQuery, r.Params, r.Headers}
}

func TestRawRequestDecoding(t *testing.T) {
	for _, tc := range []struct {
		name     string
		envelope string
		want     rawFields
	}{
		{
			name: "every member, several headers and values",
			envelope: `{"kind":"plain","method":"GET","route":"/files/:dir/:name","path":"/files/a/b.txt","rawQuery":"x=1&y=2",` +
				`"params":{"dir":"a","name":"b.txt"},"headers":{"accept":["*/*"],"host":["[::1]:8080"],"x-multi":["1","2","3"]}}`,
			want: rawFields{"GET", "/files/:dir/:name", "/files/a/b.txt", "x=1&y=2",
				map[string]string{"dir": "a", "name": "b.txt"},
				Headers{"accept": {"*/*"}, "host": {"[::1]:8080"}, "x-multi": {"1", "2", "3"}}},
		},
		{
			name: "escapes are decoded, in names too",
			envelope: `{"kind":"plain","method":"GET","route":"/q/:w","path":"/q/\"a\\b\"","rawQuery":"\u0041=1",` +
				`"params":{"w\u00e9":"caf\u00e9 \ud83d\ude00"},"headers":{"x-\u0062":["tab\there","plain"],"x-c":["\/"]}}`,
			want: rawFields{"GET", "/q/:w", `/q/"a\b"`, "A=1",
				map[string]string{"wé": "café 😀"},
				Headers{"x-b": {"tab\there", "plain"}, "x-c": {"/"}}},
		},
		{
			name:     "UTF-8 is kept as sent",
			envelope: `{"kind":"plain","method":"GET","route":"/","path":"/caf%C3%A9","params":{"n":"café"},"headers":{"x-name":["Zoë","日本"]}}`,
			want:     rawFields{"GET", "/", "/caf%C3%A9", "", map[string]string{"n": "café"}, Headers{"x-name": {"Zoë", "日本"}}},
		},
		{
			name:     "invalid UTF-8 becomes U+FFFD, as encoding/json decodes it",
			envelope: "{\"kind\":\"plain\",\"method\":\"GET\",\"route\":\"/\",\"path\":\"/\xff\",\"params\":{\"n\":\"a\xc3\"},\"headers\":{\"x-a\":[\"b\xffc\",\"ok\"]}}",
			want:     rawFields{"GET", "/", "/\uFFFD", "", map[string]string{"n": "a\uFFFD"}, Headers{"x-a": {"b\uFFFDc", "ok"}}},
		},
		{
			name:     "null members are left out; maps stay non-nil",
			envelope: `{"kind":"plain","method":"GET","route":"/","path":"/","rawQuery":null,"params":null,"headers":null}`,
			want:     rawFields{"GET", "/", "/", "", map[string]string{}, Headers{}},
		},
		{
			name:     "no params nor headers: empty maps",
			envelope: `{"kind":"plain","method":"DELETE","route":"/x","path":"/x"}`,
			want:     rawFields{"DELETE", "/x", "/x", "", map[string]string{}, Headers{}},
		},
		{
			name:     "an empty list of values is a nil slice",
			envelope: `{"kind":"plain","method":"GET","route":"/","path":"/","params":{},"headers":{"x-none":[],"x-one":["1"]}}`,
			want:     rawFields{"GET", "/", "/", "", map[string]string{}, Headers{"x-none": nil, "x-one": {"1"}}},
		},
		{
			name:     "the last of a repeated name wins",
			envelope: `{"kind":"plain","method":"GET","route":"/","path":"/","params":{"a":"1","a":"2"},"headers":{"x":["1"],"x":["2","3"]}}`,
			want:     rawFields{"GET", "/", "/", "", map[string]string{"a": "2"}, Headers{"x": {"2", "3"}}},
		},
		{
			name:     "strings and header values past the room a request has inline",
			envelope: bigRawEnvelope(),
			want:     bigRawFields(),
		},
		{
			name: "spaces between tokens and members the route does not read",
			envelope: " { \"kind\" : \"plain\" , \"requestId\" : \"r1\" , \"traceId\":\"0af7651916cd43dd8448eb211c80319c\", " +
				"\"auth\":{\"scheme\":\"bearer\",\"subject\":\"u\"}, \"context\":{\"k\":\"v\"}, \"future\":[1,{\"a\":null}], " +
				"\"method\" : \"PUT\" , \"route\":\"/\", \"path\":\"/p\", \"headers\" : { \"a\" : [ \"1\" , \"2\" ] , \"b\":[\"3\"] } } ",
			want: rawFields{"PUT", "/", "/p", "", map[string]string{}, Headers{"a": {"1", "2"}, "b": {"3"}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var got *RawRequest
			HandleRaw(func(w ResponseWriter, r *RawRequest) { got = r })
			resp := serveFake(fakeRequest{envelope: tc.envelope})
			if resp.code != 0 || got == nil {
				t.Fatalf("handle() = %d, handler called: %v; logs %v", resp.code, got != nil, resp.logs)
			}
			if f := fieldsOf(got); !reflect.DeepEqual(f, tc.want) {
				t.Errorf("request:\n got %#v\nwant %#v", f, tc.want)
			}
			if got.Body == nil {
				t.Error("Body is nil, want the body reader")
			}
		})
	}
}

func TestRawRequestEnvelopeErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		envelope string
		wantLog  string
	}{
		{"a method that is not a string", `{"kind":"plain","method":5,"route":"/","path":"/"}`,
			"endpoints: decoding the request envelope: method: got 5, want a string"},
		{"a parameter that is not a string", `{"kind":"plain","method":"GET","params":{"id":7}}`,
			"endpoints: decoding the request envelope: params: got 7, want a string"},
		{"params that are not an object", `{"kind":"plain","method":"GET","params":["a"]}`,
			`endpoints: decoding the request envelope: params: invalid character '[' at offset 0: want an object`},
		{"a header that is not a list", `{"kind":"plain","method":"GET","headers":{"x-a":"1"}}`,
			`endpoints: decoding the request envelope: headers: invalid character '"' at offset 0: want an array`},
		{"a header value that is null", `{"kind":"plain","method":"GET","headers":{"x-a":["1",null]}}`,
			"endpoints: decoding the request envelope: headers: got null, want a string"},
		{"a bad separator in a list", `{"kind":"plain","method":"GET","headers":{"x-a":["1" "2"]}}`,
			`endpoints: decoding the request envelope: headers: invalid character '"' at offset 5: want ',' or ']'`},
		{"a truncated envelope", `{"kind":"plain","method":"GET","path":"/`,
			"endpoints: decoding the request envelope: unexpected end of JSON input"},
		{"not an object", `["plain"]`,
			`endpoints: decoding the request envelope: invalid character '[' at offset 0: want an object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			called := false
			HandleRaw(func(ResponseWriter, *RawRequest) { called = true })
			resp := serveFake(fakeRequest{envelope: tc.envelope})
			if resp.code != 1 || called {
				t.Errorf("handle() = %d, handler called: %v; want 1, not called", resp.code, called)
			}
			if want := []logLine{{abi.LogError, tc.wantLog}}; !reflect.DeepEqual(resp.logs, want) {
				t.Errorf("logs = %q\nwant %q", resp.logs, want)
			}
		})
	}
}

// TestRawRequestKept checks that a handler may keep its request, the
// request's maps and strings, and its response headers after it returns:
// the next request shares none of them.
func TestRawRequestKept(t *testing.T) {
	fresh(t)
	var reqs []*RawRequest
	var headers []Headers
	HandleRaw(func(w ResponseWriter, r *RawRequest) {
		reqs = append(reqs, r)
		w.Header().Set("X-Path", r.Path)
		headers = append(headers, w.Header())
	})
	first := `{"kind":"plain","method":"GET","route":"/:id","path":"/one","params":{"id":"one"},"headers":{"x-a":["1"]}}`
	second := `{"kind":"plain","method":"PUT","route":"/:id","path":"/two","params":{"id":"two"},"headers":{"x-a":["2"],"x-b":["3"]}}`
	for _, env := range []string{first, second} {
		if resp := serveFake(fakeRequest{envelope: env}); resp.code != 0 {
			t.Fatalf("handle() = %d; logs %v", resp.code, resp.logs)
		}
	}
	want := []rawFields{
		{"GET", "/:id", "/one", "", map[string]string{"id": "one"}, Headers{"x-a": {"1"}}},
		{"PUT", "/:id", "/two", "", map[string]string{"id": "two"}, Headers{"x-a": {"2"}, "x-b": {"3"}}},
	}
	for i, r := range reqs {
		if got := fieldsOf(r); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("request %d after the next:\n got %#v\nwant %#v", i+1, got, want[i])
		}
		if wantPath := want[i].Path; !reflect.DeepEqual(headers[i], Headers{"x-path": {wantPath}}) {
			t.Errorf("response headers %d = %v, want x-path %s", i+1, headers[i], wantPath)
		}
	}
	if reqs[0] == reqs[1] {
		t.Error("both requests are the same *RawRequest")
	}
	// A value appended to a kept header list changes no other list.
	reqs[1].Headers["x-a"] = append(reqs[1].Headers["x-a"], "4")
	if got := reqs[1].Headers["x-b"]; !reflect.DeepEqual(got, []string{"3"}) {
		t.Errorf("x-b = %q after an append to x-a, want [3]", got)
	}
}

func TestLowerName(t *testing.T) {
	for _, name := range []string{
		"Accept", "Authorization", "Cache-Control", "Content-Disposition", "Content-Encoding", "Content-Length",
		"Content-Type", "Etag", "ETag", "If-None-Match", "Last-Modified", "Link", "Location", "Retry-After",
		"Set-Cookie", "User-Agent", "Vary", "Www-Authenticate", "WWW-Authenticate",
		"content-type", "CONTENT-TYPE", "X-Tenant", "x-tenant", "Content-Typo", "", "Ünïcode-Ä",
	} {
		if got, want := lowerName(name), strings.ToLower(name); got != want {
			t.Errorf("lowerName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestSetCommonHeaderAllocs checks that setting a header by its canonical
// name allocates only its list of values: no lower-case copy of the name.
func TestSetCommonHeaderAllocs(t *testing.T) {
	h := Headers{}
	h.Set("Content-Type", "text/plain") // the map's room
	if n := testing.AllocsPerRun(100, func() { h.Set("Content-Type", "text/plain") }); n != 1 {
		t.Errorf("Set(Content-Type) allocates %v times, want 1 (the list)", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = h.Get("Content-Type") }); n != 0 {
		t.Errorf("Get(Content-Type) allocates %v times, want 0", n)
	}
}

func TestCountQuotes(t *testing.T) {
	for _, tc := range []struct {
		in      string
		atLeast int
		atMost  int
	}{
		{``, 0, 0},
		{`"`, 1, 1},
		{`{}`, 0, 0},
		{`{"accept":["*/*"],"host":["localhost:8080"],"user-agent":["curl/8.5.0"]}`, 12, 12},
		{`"1234567"`, 2, 2},              // the second in the last byte of the word
		{`"12345678"`, 2, 2},             // the second in the tail
		{"\"\x80\xff\x00\x01\"", 2, 2},   // bytes a borrow test could take for a '"'
		{`"#"##"`, 3, 6},                 // a '#' right after a '"' may count
		{`{"x-a":["\"quoted\""]}`, 6, 6}, // escaped quotes count: an upper bound still
	} {
		if got := countQuotes([]byte(tc.in)); got < tc.atLeast || got > tc.atMost {
			t.Errorf("countQuotes(%q) = %d, want %d to %d", tc.in, got, tc.atLeast, tc.atMost)
		}
	}
}

// bigRawEnvelope is a plain route's envelope whose strings (a path of 600
// bytes, a header value of 2000) and header values (24) do not fit in the
// room a rawCall has inline for them; bigRawFields is its RawRequest.
func bigRawEnvelope() string {
	var b strings.Builder
	b.WriteString(`{"kind":"plain","method":"GET","route":"/**:rest","path":"/` + strings.Repeat("p", 600) + `",`)
	b.WriteString(`"params":{"rest":"` + strings.Repeat("p", 600) + `"},"headers":{`)
	for i := range 12 {
		fmt.Fprintf(&b, `"x-h%02d":["%d","%s"],`, i, i, strings.Repeat("v", i*20))
	}
	b.WriteString(`"cookie":["` + strings.Repeat("c", 2000) + `"]}}`)
	return b.String()
}

func bigRawFields() rawFields {
	h := Headers{"cookie": {strings.Repeat("c", 2000)}}
	for i := range 12 {
		h[fmt.Sprintf("x-h%02d", i)] = []string{strconv.Itoa(i), strings.Repeat("v", i*20)}
	}
	return rawFields{"GET", "/**:rest", "/" + strings.Repeat("p", 600), "",
		map[string]string{"rest": strings.Repeat("p", 600)}, h}
}
