// Package docspage serves an app's docs page: an HTML page that loads an
// interactive reference (Scalar) for the app's OpenAPI document, under a
// strict Content-Security-Policy, and the reference's script below the
// page's path: by default the copy built into the binary (scalar/, see
// [ScalarVersion]), so that the page works offline; or the app's own files.
//
// The page is rendered once, by [New], when the host loads its settings;
// [Page.Serve] answers requests from those bytes.
package docspage

import (
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// AssetsPath is where local assets are served, below the page's path.
const AssetsPath = "/assets/"

var pageTemplate = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
</head>
<body>
{{if .Problems}}<section role="alert" style="font:14px/1.5 system-ui,sans-serif;background:#fff4e5;color:#5f2b00;border-bottom:2px solid #e07b00;padding:12px 20px;margin:0">
<strong>The app serves without what its OpenAPI document could not be built with:</strong>
<ul style="margin:6px 0 0;padding-left:20px">{{range .Problems}}<li><code style="white-space:pre-wrap">{{.}}</code></li>{{end}}</ul>
</section>
{{end}}<script id="api-reference" data-url="{{.Schema}}"></script>
<script src="{{.Script}}"></script>
</body>
</html>
`))

// Config is what the page is made of; the host fills in its defaults.
type Config struct {
	// Path is the page's path, such as /_endpoints/docs.
	Path string
	// Assets is where the reference's files (standalone.js) come from:
	// empty for the copy built into the binary, served at
	// Path+[EmbeddedPath]; an http or https URL; or a directory, served
	// below Path+AssetsPath, as config.Docs.AssetsDir found it (it
	// exists, holds the script, and does not hold the app).
	Assets string
	// Title is the page's title.
	Title string
	// Schema is the path of the OpenAPI document the reference shows.
	Schema string
	// ConfigFile names the file Assets comes from, in errors.
	ConfigFile string
	// WriteError answers a request the page refuses (a method other than
	// GET or HEAD) with status and the data of the error body.
	WriteError func(w http.ResponseWriter, r *http.Request, status int, data any)
}

// Page is the docs page of a host, rendered once. It is immutable, and so
// safe for concurrent use.
type Page struct {
	path       string
	page       []byte
	data       pageData // what page was rendered from, for a page with problems
	csp        string
	assetsDir  string // the directory of local assets, "" when they come from a URL or are built in
	embedded   bool   // the built-in reference is served
	writeError func(w http.ResponseWriter, r *http.Request, status int, data any)
}

// New renders the page of cfg. An Assets URL that does not parse is an
// error naming cfg.ConfigFile.
func New(cfg Config) (*Page, error) {
	d := &Page{path: cfg.Path, writeError: cfg.WriteError}
	assets, origin, script := cfg.Assets, "", ""
	switch {
	case assets == "":
		d.embedded = true
		script, origin = d.path+EmbeddedPath, "'self'"
	case strings.HasPrefix(assets, "https://") || strings.HasPrefix(assets, "http://"):
		u, err := url.Parse(assets)
		if err != nil {
			return nil, fmt.Errorf("%s: /openApi/docs/assets: %v", cfg.ConfigFile, err)
		}
		origin = u.Scheme + "://" + u.Host
		script = strings.TrimSuffix(assets, "/") + "/standalone.js"
	default:
		d.assetsDir = assets
		script, origin = d.path+AssetsPath+"standalone.js", "'self'"
	}
	d.data = pageData{Title: cfg.Title, Schema: cfg.Schema, Script: script}
	page, err := d.render(nil)
	if err != nil {
		return nil, err
	}
	d.page = page
	// Scripts only from the assets' origin; the reference styles itself
	// inline and fetches the schema from this host.
	d.csp = fmt.Sprintf("default-src 'none'; script-src %[1]s; style-src %[1]s 'unsafe-inline'; font-src %[1]s data:; img-src 'self' data: %[1]s; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'", origin)
	return d, nil
}

// pageData is what the page template shows.
type pageData struct {
	Title, Schema, Script string
	Problems              []string
}

// render renders the page, with problems above the reference.
func (d *Page) render(problems []string) ([]byte, error) {
	data := d.data
	data.Problems = problems
	var b strings.Builder
	if err := pageTemplate.Execute(&b, data); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// Path is the page's path.
func (d *Page) Path() string { return d.path }

// Serve answers the docs page and its script (built in or local assets);
// false when the path is not theirs.
func (d *Page) Serve(w http.ResponseWriter, r *http.Request) bool {
	return d.ServeProblems(w, r, nil)
}

// ServeProblems is Serve, with the page showing problems (HTML-escaped)
// above the reference: what the app serves without, in development.
func (d *Page) ServeProblems(w http.ResponseWriter, r *http.Request, problems []string) bool {
	switch {
	case r.URL.Path == d.path:
		if !d.readOnly(w, r) {
			return true
		}
		hdr := w.Header()
		hdr.Set("Content-Type", "text/html; charset=utf-8")
		hdr.Set("Content-Security-Policy", d.csp)
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("Referrer-Policy", "no-referrer")
		page := d.page
		if len(problems) > 0 {
			var err error
			if page, err = d.render(problems); err != nil {
				page = d.page
			}
		}
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(page)
		}
		return true
	case d.embedded && r.URL.Path == d.path+EmbeddedPath:
		if !d.readOnly(w, r) {
			return true
		}
		serveEmbedded(w, r)
		return true
	case d.assetsDir != "" && strings.HasPrefix(r.URL.Path, d.path+AssetsPath):
		if d.readOnly(w, r) {
			d.serveAsset(w, r, strings.TrimPrefix(r.URL.Path, d.path+AssetsPath))
		}
		return true
	}
	return false
}

// serveAsset answers the file name of the assets directory: a regular
// file within it (a symbolic link that leads out of it is refused, as
// os.OpenInRoot opens), whose path has no element starting with a dot
// (.git, .env). Anything else, a directory too (none is listed), is
// 404.
func (d *Page) serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	f, err := d.openAsset(name)
	if err != nil {
		d.writeError(w, r, http.StatusNotFound, nil)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		d.writeError(w, r, http.StatusNotFound, nil)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, name, st.ModTime(), f)
}

// openAsset opens the asset name, a slash-separated path below the
// assets directory, refusing a hidden one.
func (d *Page) openAsset(name string) (*os.File, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, fs.ErrNotExist
	}
	for elem := range strings.SplitSeq(name, "/") {
		if strings.HasPrefix(elem, ".") {
			return nil, fs.ErrNotExist
		}
	}
	return os.OpenInRoot(d.assetsDir, filepath.FromSlash(name))
}

// readOnly answers 405 to a method other than GET or HEAD, and reports
// whether the request may go on.
func (d *Page) readOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	d.writeError(w, r, http.StatusMethodNotAllowed, map[string]any{"method": r.Method, "allow": []string{"GET", "HEAD"}})
	return false
}
