package host

import (
	"crypto/sha256"
	"slices"
	"sync"

	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
)

// Rebuilding tells the host that new bytes of the route modules named
// (paths relative to the app, forward slashes, as a ReloadReport lists
// them) are being built, as `endpoints dev` does when a route's source is
// saved: the background compilation of their current code (each version
// of a bundle that serves routes) stops, queued or running, so that the build and then the load of the new bytes have
// every core (the compiler of a Go bundle takes seconds and both cores of
// a small machine; a developer saving twice in a few seconds otherwise
// waits for a `go build` that shares them with it). The compiled code of
// a version about to be replaced would serve for a moment at best.
//
// Call done once the build is over, whatever its outcome. A module whose
// bytes on disk are still the ones served (the build failed, or wrote the
// same bytes) compiles again; one whose bytes changed is left to the
// reload that loads them (Host.Watch makes it): the version it replaces
// is never compiled, or, when the new bytes fail to load, it compiles
// again after that reload. Modules the host does not serve, or that run
// compiled code already, are left alone. done may be called once; later
// calls do nothing.
func (h *Host) Rebuilding(modules []string) (done func()) {
	modules = slices.Clone(modules)
	t := h.table.Load()
	var stopped []*engine.Pool
	for _, m := range modules {
		if f := t.Files[m]; f != nil {
			for _, p := range f.Pools() {
				p.StopCompiling()
				stopped = append(stopped, p)
			}
		}
	}
	var once sync.Once
	return func() {
		if len(stopped) > 0 {
			once.Do(func() { loadSide{h}.resumeUnbuilt(modules) })
		}
	}
}

// resumeUnbuilt queues again the background compilation Rebuilding
// stopped of the modules whose bytes on disk are those the host serves.
// It holds the reload lock, so that it sees a table that matches what a
// reload made of the disk, and starts no compilation while a load runs;
// but it reads and hashes the files before it takes the lock: the reload
// of a new bundle, which Host.Watch starts at the same moment, would wait
// for the 12 MB to be hashed. A file that changes after it was read is
// the next reload's (which stops the compilation again); a pool that a
// reload made meanwhile was never stopped, and ResumeCompiling leaves it
// alone.
func (h loadSide) resumeUnbuilt(modules []string) {
	onDisk := make(map[string][sha256.Size]byte, len(modules))
	for _, m := range modules {
		if _, hash, err := appload.Dir(h.app).Read(m); err == nil {
			onDisk[m] = hash
		}
	}
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	if h.requests.Closed() {
		return
	}
	t := h.table.Load()
	resumed := false
	for _, m := range modules {
		f := t.Files[m]
		if f == nil {
			continue
		}
		pools := f.Pools() // each version of a bundle that serves routes
		if len(pools) == 0 {
			continue
		}
		if hash, ok := onDisk[m]; ok && hash != f.Hash {
			// New bytes, or none (the module is gone): the reload that
			// follows loads them, and resumes this version's
			// compilation if they fail. (Unreadable bytes the reload
			// never loads: this version keeps serving, and compiles.)
			continue
		}
		for _, p := range pools {
			h.engine.ResumeCompiling(p)
		}
		resumed = true
	}
	if resumed {
		h.engine.StartCompiles()
	}
}
