package host

import (
	"net/http"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/docspage"
)

// newDocs prepares the docs page (package docspage), or nil when it is
// off.
func (h loadSide) newDocs(s *settings) (*docspage.Page, error) {
	o := s.openAPI().Docs
	if o.Off {
		return nil, nil
	}
	// o, of the resolved openApi settings, has its defaults filled in.
	cfg := docspage.Config{
		Path:       o.Path,
		Assets:     o.Assets,
		AppDir:     h.app,
		Title:      s.openAPI().Title,
		Schema:     s.DocPath,
		ConfigFile: config.File,
		WriteError: writeDocsError,
	}
	return docspage.New(cfg)
}

// writeDocsError answers a request the docs page or the document route
// refuses as the host's other errors.
func writeDocsError(w http.ResponseWriter, r *http.Request, status int, data any) {
	writeError(w, r, status, "", data)
}
