package host

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/openapi"
)

// What the host adds to the settings of package config: Options over
// endpoints.json, and the checks of what an embedder sets in Go.

// openAPIOver returns o with the fields set in it, and the others from
// base: Options.OpenAPI over endpoints.json's.
func openAPIOver(o, base config.OpenAPI) config.OpenAPI {
	out := base
	out.Set = o.Set || base.Set
	if o.Enabled != nil {
		out.Enabled = o.Enabled
	}
	out.Title = cmp.Or(o.Title, base.Title)
	out.Version = cmp.Or(o.Version, base.Version)
	out.Path = cmp.Or(o.Path, base.Path)
	out.SpecVersion = cmp.Or(o.SpecVersion, base.SpecVersion)
	out.PlainRoutes = cmp.Or(o.PlainRoutes, base.PlainRoutes)
	if o.Docs != (config.Docs{}) {
		out.Docs = o.Docs
	}
	out.Document, out.Extend = o.Document, o.Extend
	return out
}

// checkOpenAPI checks the fields an embedder sets in Options.OpenAPI as
// endpoints.json's are checked.
func checkOpenAPI(o *config.OpenAPI) error {
	if o.Path != "" && !strings.HasPrefix(o.Path, "/") {
		return fmt.Errorf("Options.OpenAPI.Path %q must start with /", o.Path)
	}
	if v := o.SpecVersion; v != "" && v != openapi.Version31 && v != openapi.Version32 {
		return fmt.Errorf("Options.OpenAPI.SpecVersion %q: want %q (the default) or %q", v, openapi.Version31, openapi.Version32)
	}
	switch p := o.PlainRoutes; p {
	case "", config.PlainRoutesInclude, config.PlainRoutesWarn, config.PlainRoutesRequire, config.PlainRoutesExclude:
	default:
		return fmt.Errorf("Options.OpenAPI.PlainRoutes: %q: want %q (the default), %q, %q or %q", string(p), config.PlainRoutesInclude, config.PlainRoutesWarn, config.PlainRoutesRequire, config.PlainRoutesExclude)
	}
	return nil
}

// mergeServer fills the zero fields of c from other.
func mergeServer(c, other config.Server) config.Server {
	fill := func(d *config.Duration, v config.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	fill(&c.ReadHeaderTimeout, other.ReadHeaderTimeout)
	fill(&c.ReadTimeout, other.ReadTimeout)
	fill(&c.WriteTimeout, other.WriteTimeout)
	fill(&c.IdleTimeout, other.IdleTimeout)
	fill(&c.ShutdownTimeout, other.ShutdownTimeout)
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = other.MaxHeaderBytes
	}
	return c
}
