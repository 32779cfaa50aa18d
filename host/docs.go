package host

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
)

// DefaultDocsAssets is where the docs page loads its interactive reference
// (Scalar) from by default: a pinned version on a public CDN. Set
// openApi.docs.assets to a directory of the app holding the same files
// (the dist/browser folder of the npm package @scalar/api-reference) to
// serve them locally, offline.
const DefaultDocsAssets = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser"

// docsAssetsPath is where the host serves local docs assets, below the
// docs page's path.
const docsAssetsPath = "/assets/"

var docsPage = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
</head>
<body>
<script id="api-reference" data-url="{{.Schema}}"></script>
<script src="{{.Script}}"></script>
</body>
</html>
`))

// docs is the docs page of a host, rendered once.
type docs struct {
	path   string
	page   []byte
	csp    string
	assets http.Handler // local assets, nil when they come from a URL
}

// newDocs prepares the docs page, or nil when it is off.
func (h *Host) newDocs(s *settings) (*docs, error) {
	o := s.openAPI().Docs
	if o.Off {
		return nil, nil
	}
	d := &docs{path: o.Path}
	if d.path == "" {
		d.path = DefaultDocsPath
	}
	assets, origin := o.Assets, ""
	switch {
	case assets == "":
		assets = DefaultDocsAssets
		fallthrough
	case strings.HasPrefix(assets, "https://") || strings.HasPrefix(assets, "http://"):
		u, err := url.Parse(assets)
		if err != nil {
			return nil, fmt.Errorf("%s: /openApi/docs/assets: %v", AppConfigFile, err)
		}
		origin = u.Scheme + "://" + u.Host
	default:
		dir := assets
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(h.app, dir)
		}
		d.assets = http.StripPrefix(d.path+docsAssetsPath, http.FileServer(http.Dir(dir)))
		assets, origin = d.path+strings.TrimSuffix(docsAssetsPath, "/"), "'self'"
	}
	title := s.openAPI().Title
	if title == "" {
		title = DefaultOpenAPITitle
	}
	var b strings.Builder
	err := docsPage.Execute(&b, struct{ Title, Schema, Script string }{title, s.docPath, strings.TrimSuffix(assets, "/") + "/standalone.js"})
	if err != nil {
		return nil, err
	}
	d.page = []byte(b.String())
	// Scripts only from the assets' origin; the reference styles itself
	// inline and fetches the schema from this host.
	d.csp = fmt.Sprintf("default-src 'none'; script-src %[1]s; style-src %[1]s 'unsafe-inline'; font-src %[1]s data:; img-src 'self' data: %[1]s; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'", origin)
	return d, nil
}

// serve answers the docs page and its local assets; false when the path is
// not theirs.
func (d *docs) serve(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case r.URL.Path == d.path:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, r, http.StatusMethodNotAllowed, "", map[string]any{"method": r.Method, "allow": []string{"GET", "HEAD"}})
			return true
		}
		hdr := w.Header()
		hdr.Set("Content-Type", "text/html; charset=utf-8")
		hdr.Set("Content-Security-Policy", d.csp)
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("Referrer-Policy", "no-referrer")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(d.page)
		}
		return true
	case d.assets != nil && strings.HasPrefix(r.URL.Path, d.path+docsAssetsPath):
		w.Header().Set("X-Content-Type-Options", "nosniff")
		d.assets.ServeHTTP(w, r)
		return true
	}
	return false
}
