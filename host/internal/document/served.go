package document

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/wasmendpoints/endpoints/openapi"
)

// Served is one built OpenAPI document, ready to serve: its bytes and
// their ETag. It is immutable once made.
type Served struct {
	// JSON is the document, encoded deterministically (Encode).
	JSON []byte
	// ETag is the strong validator of JSON: a quoted hash.
	ETag string
	// Doc is the document JSON encodes. It must not be changed: a change
	// is served after Encode makes a new Served of it.
	Doc *openapi.Document
}

// Encode returns the served form of doc: the same document gives the same
// bytes and ETag.
func Encode(doc *openapi.Document) (*Served, error) {
	b, err := encode(doc)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return &Served{JSON: b, ETag: `"` + hex.EncodeToString(sum[:12]) + `"`, Doc: doc}, nil
}

// encode encodes doc deterministically: the same document gives the same
// bytes.
func encode(doc *openapi.Document) ([]byte, error) {
	b, err := doc.MarshalIndent()
	if err != nil {
		return nil, fmt.Errorf("encoding the OpenAPI document: %w", err)
	}
	return b, nil
}

// Serve answers a request for the document: GET or HEAD with its ETag,
// 304 when the client has it (RFC 9110 §13.1.2); another method gets a
// 405 with Allow, which refuse writes as the host writes its errors (data
// names the method and those allowed).
func (d *Served) Serve(w http.ResponseWriter, r *http.Request, refuse func(w http.ResponseWriter, r *http.Request, status int, data any)) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		allow := []string{"GET", "HEAD"}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		refuse(w, r, http.StatusMethodNotAllowed, map[string]any{"method": r.Method, "allow": allow})
		return
	}
	hdr := w.Header()
	hdr.Set("ETag", d.ETag)
	hdr.Set("Cache-Control", "no-cache")
	if etagMatches(r.Header.Get("If-None-Match"), d.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", fmt.Sprint(len(d.JSON)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(d.JSON)
	}
}

// etagMatches implements the weak comparison of If-None-Match.
func etagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}
