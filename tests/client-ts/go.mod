// This directory holds a TypeScript test project, not Go code; this file
// makes it a module of its own so that `go test ./...` and `go vet ./...`
// do not walk into node_modules (some npm packages ship Go files).
module github.com/wasmendpoints/endpoints/tests/client-ts

go 1.26
