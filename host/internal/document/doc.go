// Package document is the OpenAPI document as the host builds and serves
// it: the document of an app's routes (its endpoints' contracts, its plain
// routes, the routes configuration and middleware answers, endpoints.json's
// openApi settings), what the host adds to it (the runtime declaration's
// fragment and extend step, the configured security schemes, the
// embedder's), what a development version left out of it when it could
// not be built whole, and its served form (bytes, ETag, 304s). What it
// needs of the host's route table is a list of [Route] values, and of the
// runtime declaration the one call that runs its extend export
// ([Additions.Extend]).
package document
