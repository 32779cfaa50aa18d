// Package testhook lets tests learn of events that production code reports
// nowhere else, or hold what production code does in the background,
// through a hook carried by a context: that a file watcher is set up, so
// that a test edits files once the edit can be seen instead of sleeping
// and hoping; and a host's background work held until the test lets it go.
//
//	ready := make(chan string, 3)
//	ctx = testhook.WithWatching(ctx, func(name string) { ready <- name })
//	go h.Watch(ctx, host.WatchOptions{})
//	<-ready // "app": a file written from now on is seen
//
// Without a hook in the context a call costs one context lookup and does
// nothing.
package testhook

import (
	"context"
	"time"
)

type watchingKey struct{}

// WithWatching returns a copy of ctx whose watchers call f with their name
// once they are set up: a change made to a file they watch after f is
// called is seen. f may be called from any goroutine, once per watcher
// started with the context.
func WithWatching(ctx context.Context, f func(name string)) context.Context {
	return context.WithValue(ctx, watchingKey{}, f)
}

// Watching calls the hook of ctx, if any, with name. A watcher calls it
// once it has added its watches, before it waits for the first change.
func Watching(ctx context.Context, name string) {
	if f, ok := ctx.Value(watchingKey{}).(func(string)); ok {
		f(name)
	}
}

type holdKey struct{}

// WithHold returns a copy of ctx whose hosts (host.New called with it)
// start no background work (compiling, loading deferred code) before
// release is closed: a test sees a host as it is the moment New returns.
func WithHold(ctx context.Context, release <-chan struct{}) context.Context {
	return context.WithValue(ctx, holdKey{}, release)
}

// Hold returns the release channel of ctx, or nil when ctx holds nothing.
func Hold(ctx context.Context) <-chan struct{} {
	c, _ := ctx.Value(holdKey{}).(<-chan struct{})
	return c
}

type compilingKey struct{}

// WithCompiling returns a copy of ctx whose hosts (host.New called with it)
// call f in their background compiler right before it compiles a module's
// code: f learns that a compilation is under way, and may block to make it
// last as long as the test needs (a cold start's compilation takes
// seconds).
func WithCompiling(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, compilingKey{}, f)
}

// Compiling returns the hook of ctx set by WithCompiling, or nil.
func Compiling(ctx context.Context) func() {
	f, _ := ctx.Value(compilingKey{}).(func())
	return f
}

type closedKey struct{}

// WithClosed returns a copy of ctx whose hosts (host.New called with it)
// call f once each when they close, with a channel closed once nothing of
// theirs runs any more: a compilation still under way when a host closes
// is abandoned, not stopped, and writes its cache entry when it ends. A
// test that removes the cache directory waits for the channel first.
func WithClosed(ctx context.Context, f func(done <-chan struct{})) context.Context {
	return context.WithValue(ctx, closedKey{}, f)
}

// Closed returns the hook of ctx set by WithClosed, or nil.
func Closed(ctx context.Context) func(done <-chan struct{}) {
	f, _ := ctx.Value(closedKey{}).(func(<-chan struct{}))
	return f
}

type heapReleasedKey struct{}

type heapReleased struct {
	rest time.Duration
	f    func()
}

// WithHeapReleased returns a copy of ctx whose hosts (host.New called with
// it) give the heap their background compilations freed back to the
// system rest after a reload's compilations end (instead of a production
// host's half minute), and call f each time they give it back: a test
// learns that the memory was released instead of reading RSS.
func WithHeapReleased(ctx context.Context, rest time.Duration, f func()) context.Context {
	return context.WithValue(ctx, heapReleasedKey{}, heapReleased{rest, f})
}

// HeapReleased returns the rest and the hook of ctx set by
// WithHeapReleased, or a nil hook.
func HeapReleased(ctx context.Context) (rest time.Duration, f func()) {
	h, _ := ctx.Value(heapReleasedKey{}).(heapReleased)
	return h.rest, h.f
}

type loadingCodeKey struct{}

// WithLoadingCode returns a copy of ctx whose hosts (host.New called with
// it) call f right before they load a route's deferred code (a module
// routed from its sections, whose code a request or the background loader
// loads): f may block to make the load last as long as the test needs, so
// that a request meets code still loading.
func WithLoadingCode(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, loadingCodeKey{}, f)
}

// LoadingCode returns the hook of ctx set by WithLoadingCode, or nil.
func LoadingCode(ctx context.Context) func() {
	f, _ := ctx.Value(loadingCodeKey{}).(func())
	return f
}
