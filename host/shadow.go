package host

import (
	"fmt"
	"strings"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/docspage"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// shadowedBy returns an error when the host answers the route's path
// itself, before routing (the OpenAPI document, the docs page and its
// assets), so the route would never be called: the load refuses it
// rather than leave it silently unreachable. Only routes whose every
// segment is static text are checked; a [param] or catch-all route still
// answers its other paths.
func (s *settings) shadowedBy(rf routefile.Route) error {
	for _, seg := range rf.Segments {
		if seg.Kind != routefile.Static {
			return nil
		}
	}
	p := rf.Pattern()
	if s.Served && p == s.DocPath {
		return fmt.Errorf("%s: the route %s is where the host serves the OpenAPI document, which answers before routing: rename the route, or move the document (%s openApi.path)", rf.File, p, config.File)
	}
	if s.Docs != nil && (p == s.Docs.Path() || strings.HasPrefix(p, s.Docs.Path()+docspage.AssetsPath)) {
		return fmt.Errorf("%s: the route %s is where the host serves the docs page, which answers before routing: rename the route, or move the page (%s openApi.docs.path)", rf.File, p, config.File)
	}
	return nil
}
