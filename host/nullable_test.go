package host_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// nullableGuest builds the guest of guest-sdk/go/testdata/nullable once
// per test binary.
var nullableGuest = sdkTestGuest("nullable", "notes.post.wasm")

// TestNullableField: a Go field tagged nullable:"true" (a NULLable
// column's *string) may be null in a request and in an answer: the
// document says so, the host's checks accept null there and nothing
// else of another type, and development's answer check passes a nil
// pointer answered as null, where without the tag it answered 500.
func TestNullableField(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a Go guest")
	}
	wasm, err := nullableGuest()
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newApp(t).copyModule("server/api/notes.post.wasm", wasm).serve(host.Options{Mode: host.Development})
	post := func(query, body string) (int, string) {
		t.Helper()
		res, err := http.Post(srv.URL+"/api/notes"+query, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, tc := range []struct {
		name, query, body string
		status            int
		want              string
	}{
		{"a body", "", `{"title":"a","body":"text"}`, 200, `{"title":"a","body":"text"}`},
		{"a null body", "", `{"title":"a","body":null}`, 200, `{"title":"a","body":null}`},
		{"answered null", "?drop=true", `{"title":"a","body":"text"}`, 200, `{"title":"a","body":null}`},
		{"a number is refused", "", `{"title":"a","body":5}`, 400, `body`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := post(tc.query, tc.body)
			if status != tc.status || !strings.Contains(got, tc.want) {
				t.Errorf("POST %s = %d %s, want %d and %s", tc.body, status, got, tc.status, tc.want)
			}
		})
	}
	res, err := http.Get(srv.URL + "/_endpoints/schema")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	doc, _ := io.ReadAll(res.Body)
	if want := `"anyOf":[{"type":"string"},{"type":"null"}]`; !strings.Contains(strings.Join(strings.Fields(string(doc)), ""), want) {
		t.Errorf("the document does not say the body may be null (%s):\n%.3000s", want, doc)
	}
}
