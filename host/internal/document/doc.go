// Package document is the OpenAPI document as the host builds and serves
// it: the document of an app's routes (its endpoints' contracts, its plain
// routes, the routes configuration and middleware answers, endpoints.json's
// openApi settings), what a development version left out of it when it
// could not be built whole, and its served form (bytes, ETag, 304s). What
// it needs of the host's route table is a list of [Route] values; the
// runtime declaration's and the embedder's steps stay with the host.
package document
