//go:build wasip1

// Command health is the plain-route guest of BenchmarkWasmGuestRaw: GET
// /health answered "ok" with a Content-Type, as examples/users'
// handlers/health does. The test builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o health.wasm ./testdata/health/main.go
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

func init() {
	endpoints.HandleRaw(func(w endpoints.ResponseWriter, r *endpoints.RawRequest) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
}

func main() {}
