package host

import (
	"net/http"

	"github.com/wasmendpoints/endpoints/host/internal/docspage"
)

// DefaultDocsAssets is where the docs page loads its interactive reference
// (Scalar) from by default: a pinned version on a public CDN. Set
// openApi.docs.assets to a directory of the app holding the same files
// (the dist/browser folder of the npm package @scalar/api-reference) to
// serve them locally, offline.
const DefaultDocsAssets = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser"

// newDocs prepares the docs page (package docspage), or nil when it is
// off.
func (h *Host) newDocs(s *settings) (*docspage.Page, error) {
	o := s.openAPI().Docs
	if o.Off {
		return nil, nil
	}
	cfg := docspage.Config{
		Path:       o.Path,
		Assets:     o.Assets,
		AppDir:     h.app,
		Title:      s.openAPI().Title,
		Schema:     s.docPath,
		ConfigFile: AppConfigFile,
		WriteError: writeDocsError,
	}
	if cfg.Path == "" {
		cfg.Path = DefaultDocsPath
	}
	if cfg.Assets == "" {
		cfg.Assets = DefaultDocsAssets
	}
	if cfg.Title == "" {
		cfg.Title = DefaultOpenAPITitle
	}
	return docspage.New(cfg)
}

// writeDocsError answers a request the docs page refuses as the host's
// other errors.
func writeDocsError(w http.ResponseWriter, r *http.Request, status int, data any) {
	writeError(w, r, status, "", data)
}
