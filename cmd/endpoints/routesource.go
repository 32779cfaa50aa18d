package main

import (
	"strings"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// sourcesOfRoutes maps the routes of app's sources to the file each comes
// from, for `endpoints routes`: a Go route's file with its
// //endpoints:route line (a bundle's routes each their own), a C, WAT,
// AssemblyScript or Rust route's source file. Keys are a module of one
// route's file (a bundle's routes' own too, for an app built with
// --go-bundle=false), and a bundle's route as "bundle METHOD /path". Nil when
// the app's sources cannot be read (a deployed app without them): the
// routes then show their modules.
func sourcesOfRoutes(app string, ovs []config.Override) map[string]string {
	sources, err := appSources(app, ovs)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, s := range sources {
		if len(s.Routes) == 0 {
			out[s.Module] = sourceFile(s)
			continue
		}
		for _, r := range s.Routes {
			if rf, err := routefile.Parse(r.Module); err == nil {
				out[s.Module+" "+rf.String()] = sourceFile(r)
			}
			// Built with --go-bundle=false, which endpoints.json does not
			// say: the route's own module.
			out[r.Module] = sourceFile(r)
		}
	}
	return out
}

// sourceFile is the file a source's route is declared in: a Go source's
// directive's file (without its line), the source file of another
// language.
func sourceFile(s guestbuild.Source) string {
	if s.Directive != "" {
		file, _, _ := strings.Cut(s.Directive, ":")
		return file
	}
	return s.Path
}

// sourceOf is where route r comes from by sources (sourcesOfRoutes): its
// source file, or its module when no source builds it (a module copied
// in, built by the app's own command, or an app without its sources).
func sourceOf(r host.RouteInfo, sources map[string]string) string {
	if s, ok := sources[r.File+" "+r.Method+" "+r.Path]; ok {
		return s
	}
	if s, ok := sources[r.File]; ok {
		return s
	}
	// A bundle's route whose source builds alone by endpoints.json (built
	// with --go-bundle=true): the source of the route's own module.
	if rf, err := routefile.FromRoute(r.Method + " " + r.Path); err == nil {
		if s, ok := sources[rf.File]; ok {
			return s
		}
	}
	return r.File
}
