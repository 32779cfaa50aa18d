package host_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// FuzzRequestBodies: whatever Content-Type and body a client sends to a
// route accepting five kinds of body, the host answers 200 or refuses
// with 400, 413 or 415 in the framework's error shape; never 500, never a
// panic.
func FuzzRequestBodies(f *testing.F) {
	h, logs := newApp(f).wat("server/api/items.post.wasm", watModule{contract: bodiesContract, handle: echoAll, extra: separator}).host(host.Options{})

	const mp = "multipart/form-data; boundary=b0undary"
	png := "\x89PNG\r\n\x1a\nfake image bytes"
	for _, s := range []struct {
		contentType, body string
	}{
		// The bodies of TestRequestMediaTypes.
		{"application/json", `{"name":"pen"}`},
		{"application/x-www-form-urlencoded", "name=pen+case&tags=a&tags=b%2Fc"},
		{"application/x-www-form-urlencoded", "name=pen&qty=many"},
		{"application/x-www-form-urlencoded", "name=%zz"},
		{mp, multipartBody(f, part{name: "name", content: "Ada"}, part{name: "qty", content: "2"}, part{name: "photo", filename: "me.png", contentType: "image/png", content: png})},
		{mp, multipartBody(f, part{name: "name", content: "Ada"}, part{name: "photo", filename: "notes.txt", contentType: "text/plain", content: "hi"})},
		{mp, multipartBody(f, part{name: "name", content: "Ada"}, part{name: "photo", filename: "", contentType: "application/octet-stream"})},
		{"multipart/form-data", "--x--"},
		{mp, "--b0undary\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda"},
		{"text/csv; charset=utf-8", "id,name\n1,Ada\n"},
		{"application/octet-stream", "\x00\x01\x02"},
		{"image/gif", "GIF89a"},
		{"application/json; charset=latin1", `{"name":"pen"}`},
		{"", ""},
		{mp, multipartBody(f, part{name: "name", content: "Ada"}, part{name: "photo", filename: "big.png", contentType: "image/png", content: strings.Repeat("x", 5000)})},
		// More of each kind.
		{"application/json", `{"name":"pen","qty":"2","extra":true}`},
		{"application/json", `{"name":`},
		{"application/problem+json", `[1,2]`},
		{"application/x-www-form-urlencoded", "a=1;b=2"},
		// Regression (a bug once): a form field whose name is not UTF-8 is refused by
		// additionalProperties with the name in the path;
		// writeError (host/errors.go) cannot marshal it (json v2 refuses
		// invalid UTF-8) and answers 500 instead of 400, logging nothing.
		{"application/x-www-form-urlencoded", "name=a&%FF=%FE"},
		// Regression (a bug once): same cause; a Content-Type that is not UTF-8 is echoed in
		// the 415's "received" member, and the answer is a 500.
		{"text/plain\xff", "x"},
		{mp, multipartBody(f, part{name: "\xff", content: "\xfe"}, part{name: "photo", filename: "\xfd.png", contentType: "image/png", content: png})},
		{"multipart/form-data; boundary=\"a b\"", "--a b\r\nContent-Disposition: form-data; name=name\r\n\r\nAda\r\n--a b--\r\n"},
		{"text/plain", strings.Repeat("y", 5000)},
		{"not a media type", "x"},
	} {
		f.Add(s.contentType, []byte(s.body), false)
		f.Add(s.contentType, []byte(s.body), true)
	}
	f.Fuzz(func(t *testing.T, contentType string, body []byte, chunked bool) {
		req := httptest.NewRequest(http.MethodPost, "/api/items", bytes.NewReader(body))
		if chunked {
			// A body of unknown length, as with Transfer-Encoding: chunked.
			req.ContentLength = -1
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		got := w.Body.String()
		switch w.Code {
		case http.StatusOK:
			return
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		default:
			t.Fatalf("Content-Type %q, body %q: status %d, want 200, 400, 413 or 415; answer %s\nlogs:\n%s", contentType, body, w.Code, got, logs.String())
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q, body %q: a %d is %q, want application/json", contentType, body, w.Code, ct)
		}
		var answer struct {
			StatusCode    int             `json:"statusCode"`
			StatusMessage string          `json:"statusMessage"`
			Data          json.RawMessage `json:"data"`
		}
		dec := json.NewDecoder(strings.NewReader(got))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&answer); err != nil {
			t.Fatalf("Content-Type %q, body %q: a %d answer %s is not the framework's shape: %v", contentType, body, w.Code, got, err)
		}
		if answer.StatusCode != w.Code || answer.StatusMessage == "" || !bytes.HasPrefix(answer.Data, []byte("{")) {
			t.Errorf("Content-Type %q, body %q: a %d answer %s, want {statusCode:%d, statusMessage, data:{...}}", contentType, body, w.Code, got, w.Code)
		}
	})
}
