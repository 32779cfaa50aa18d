package docspage

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The reference built into the binary: Scalar's standalone bundle,
// gzip-compressed (about 1.2 MB instead of 4.3), refreshed by
// scalar/update.sh.
//
//go:embed scalar/standalone.js.gz
var scalarGzip []byte

// EmbeddedPath is where the built-in reference is served, below the
// page's path: its version is in the path, so that it can be cached for
// good.
const EmbeddedPath = AssetsPath + "scalar-" + ScalarVersion + "/standalone.js"

// embeddedETag is the ETag of the built-in reference.
var embeddedETag = `"scalar-` + ScalarVersion + "-" + scalarSHA256[:16] + `"`

// serveEmbedded answers a GET or HEAD of the built-in reference: the
// compressed bytes as they are to a client that accepts gzip, inflated for
// one that does not, 304 to a client that has them.
func serveEmbedded(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	hdr.Set("ETag", embeddedETag)
	hdr.Set("Vary", "Accept-Encoding")
	hdr.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(r.Header.Get("If-None-Match"), embeddedETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hdr.Set("Content-Type", "text/javascript; charset=utf-8")
	if !acceptsGzip(r.Header.Values("Accept-Encoding")) {
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			zr, err := gzip.NewReader(bytes.NewReader(scalarGzip))
			if err == nil {
				_, _ = io.Copy(w, zr)
			}
		}
		return
	}
	hdr.Set("Content-Encoding", "gzip")
	hdr.Set("Content-Length", strconv.Itoa(len(scalarGzip)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(scalarGzip)
	}
}

// etagMatches reports whether an If-None-Match header names etag (or *),
// weak comparison as RFC 9110 §13.1.2 asks.
func etagMatches(header, etag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether Accept-Encoding values accept gzip: named
// with a q above 0, or not named and "*" accepted (RFC 9110 §12.5.3).
func acceptsGzip(values []string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(item, ";")
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					}
				}
			}
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "gzip", "x-gzip":
				gzipQ = q
			case "*":
				starQ = q
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}
