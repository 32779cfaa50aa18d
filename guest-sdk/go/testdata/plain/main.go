//go:build wasip1

// Command plain is the plain-route guest of TestWasmGuest: it answers with
// the request body in upper case. The test builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plain.wasm ./testdata/plain/main.go
package main

import (
	"bytes"
	"io"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

func init() {
	endpoints.HandleRaw(func(w endpoints.ResponseWriter, r *endpoints.RawRequest) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(413)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Name", r.Params["name"])
		w.WriteHeader(202)
		w.Write([]byte(r.Method + " " + r.Path + "?" + r.RawQuery + " " + r.Headers.Get("X-Tenant") + "\n"))
		w.Write(bytes.ToUpper(body))
	})
}

func main() {}
