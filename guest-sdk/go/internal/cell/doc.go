// Package cell holds a pointer that the SDK's one-entry caches read on
// every request: [Pointer], an atomic pointer in a native build and a
// plain one in a WebAssembly module.
//
// A Go wasip1 module runs on one thread, and the Go compiler does not
// lower sync/atomic to instructions there: each Load, Store or Swap of an
// atomic.Pointer is two or three calls (the sync/atomic function, the
// runtime's, and for a store its write barrier's), and calls are dear in
// a Go WebAssembly module. Between the read and the write of a Swap no
// other goroutine can run there, since a goroutine only gives way at a
// call. A native build (the SDK's tests, endpointstest) may run requests
// on several threads, so it keeps the atomic form.
package cell
