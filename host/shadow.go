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
	if s.served && p == s.docPath {
		return fmt.Errorf("%s: the route %s is where the host serves the OpenAPI document, which answers before routing: rename the route, or move the document (%s openApi.path)", rf.File, p, config.File)
	}
	if s.docs != nil && (p == s.docs.Path() || strings.HasPrefix(p, s.docs.Path()+docspage.AssetsPath)) {
		return fmt.Errorf("%s: the route %s is where the host serves the docs page, which answers before routing: rename the route, or move the page (%s openApi.docs.path)", rf.File, p, config.File)
	}
	return nil
}
