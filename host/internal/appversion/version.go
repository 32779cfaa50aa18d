// Package appversion is one version of an app as the host serves it
// ([Version]): its route table (package routetable), the settings of the
// endpoints.json it was loaded with, its middleware, runtime declaration,
// OpenAPI document and security plan ([Security], [PlanSecurity]), what
// a development version left out of its document, and its retirement once
// a reload replaces it: the references its requests hold ([State]) and,
// when the last one ends, the modules only it held closed ([Version.Drained],
// [Version.Discard]).
//
// Loading a version, swapping it in and serving requests with it stay
// with the host (host/reload.go, host/serve.go).
package appversion

import (
	"context"
	"slices"

	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/resolved"
	"github.com/wasmendpoints/endpoints/host/internal/retire"
	"github.com/wasmendpoints/endpoints/host/internal/routetable"
	"github.com/wasmendpoints/endpoints/host/internal/runtimedecl"
	"github.com/wasmendpoints/endpoints/internal/cors"
)

// Version is one loaded version of the app. It is built whole and
// swapped in atomically; requests keep the version they started with.
type Version struct {
	// Table holds the route modules by path in the app, with their
	// hashes, so a reload loads only what changed; the routes, their
	// router and the routes configuration (package routetable).
	routetable.Table
	// RuntimeHash is that of the runtime declaration module (zero when
	// absent).
	RuntimeHash [32]byte
	// State is what lets the version be retired while requests still
	// use it.
	State *State
	// Set are the settings of endpoints.json this version serves with;
	// AppConfigHash is the hash of the file they came from.
	Set           *resolved.Settings
	AppConfigHash [32]byte

	// Problems are the version's files that failed to load, and why.
	Problems []error
	// Runtime is the runtime declaration, nil without one.
	Runtime *runtimedecl.Module
	// Doc is the OpenAPI document, nil when it could not be built;
	// DocErr says why (and is in Problems too).
	Doc    *document.Served
	DocErr error
	// Middleware are the modules of server/middleware in order, by file
	// in MWFiles; Security is what the version enforces, nil when the
	// document could not be built (then every endpoint fails closed).
	Middleware []*edge.Middleware
	MWFiles    map[string]*edge.MiddlewareFile
	Security   *Security
	// CORS is the CORS policy the version answers with: the settings' one,
	// allowing also the headers of the app's API-key schemes when
	// endpoints.json lists no allowHeaders. Nil without a "cors" member.
	CORS *cors.Policy

	// LeftOut are, in Development, what a document that failed to build
	// whole was built without (the host's salvage): each route module
	// and the runtime declaration's OpenAPI part left out, and why; the
	// dev 404, the docs page and the served document show them.
	// RuntimeDocOut is why the runtime declaration's openApi document and
	// extend were left out, nil when they were not.
	LeftOut       []error
	RuntimeDocOut error

	// Warnings are what the version serves despite: in Development, the
	// entries of the routes configuration that apply to no route (left
	// behind by a deleted route), which fail a Production load; in either
	// mode, an Idempotency-Key operation whose timeout is over half
	// idempotency.lease.
	Warnings []error
}

// State is what lets a version be retired while requests still use it.
// Each request holds a reference; a retired version's modules that the
// next version does not share are closed when the last request ends.
type State struct {
	// Refs are the references of the version's requests.
	Refs retire.Refs
	// Leaving are the modules only this version has, closed when it
	// drains.
	Leaving []*engine.Pool
	// Next is the security plan of the version that follows; verifiers
	// it shares stay open when this version drains.
	Next *Security
	// StoppedCompiles are the previous version's pools whose background
	// compilation the load of this version stopped, to load their files'
	// new bytes on free cores (routetable.Load.StoppedCompiles); the
	// reload clears it once it resumed those that still serve, so that
	// the version does not hold the previous one's retired pools.
	StoppedCompiles []*engine.Pool
}

// Drained closes what a retired version alone held, once its last
// request ended.
func (t *Version) Drained() {
	ctx := context.Background()
	for _, p := range t.State.Leaving {
		p.Retire(ctx)
	}
	t.Security.closeExcept(t.State.Next)
}

// Discard closes what a version that is never served opened and prev,
// which keeps serving, does not share.
func (t *Version) Discard(prev *Version) {
	t.State.Leaving = retire.Exclusive(t.Pools(), prev.Pools())
	t.State.Next = prev.Security
	if t.State.Refs.Retire() {
		t.Drained()
	}
}

// Pools lists the pools of t's modules, each once: its route modules'
// (every version of a bundle that serves routes, routetable.File.Pools),
// its runtime declaration's while loaded, its middleware's (a bundle's
// middleware share the bundle's pool).
func (t *Version) Pools() []*engine.Pool {
	out := t.Table.Pools()
	add := func(p *engine.Pool) {
		if p != nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(t.Runtime.LivePool())
	for _, m := range t.Middleware {
		add(m.Pool)
	}
	return out
}

// Close closes every module of t and its security plan's verifiers, at
// the host's close.
func (t *Version) Close(ctx context.Context) {
	for _, p := range t.Table.Pools() {
		p.Close(ctx)
	}
	t.Runtime.Close(ctx)
	for _, m := range t.Middleware {
		m.Pool.Close(ctx)
	}
	t.Security.closeExcept(nil)
}

// CORSPolicy is the CORS policy t answers with: the one its security plan
// completed, else the settings' (a version whose document failed).
func (t *Version) CORSPolicy() *cors.Policy {
	if t.CORS != nil {
		return t.CORS
	}
	return t.Set.CORS
}

// NoteLeftOut lists what t's document was built without in the document
// itself (document.ProblemsExtension), for the docs page and every reader
// of the development document.
func (t *Version) NoteLeftOut() {
	if t.Doc != nil {
		// Encoding a list of strings does not fail.
		_ = document.NoteLeftOut(t.Doc.Doc, t.LeftOut)
	}
}

// LeftOutLines are the texts of what t left out, for the docs page.
func (t *Version) LeftOutLines() []string {
	if len(t.LeftOut) == 0 {
		return nil
	}
	lines := make([]string, len(t.LeftOut))
	for i, p := range t.LeftOut {
		lines[i] = p.Error()
	}
	return lines
}
