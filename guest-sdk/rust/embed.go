// Package rustsdk ships the Rust SDK's sources inside Go programs, so that
// `endpoints build` compiles Rust routes with nothing installed but rustc
// and its wasm32 standard library. Rust authors use the crate in this
// directory; README.md shows how.
package rustsdk

import "embed"

// Files holds Cargo.toml and the crate's sources under src/.
//
//go:embed Cargo.toml src/*.rs
var Files embed.FS

// README is the SDK's README.md, which `endpoints new --lang rs` copies
// beside the sources it writes into an app. It is not an input of the
// build, so a change of it compiles nothing again.
//
//go:embed README.md
var README []byte

// Crate is the name route sources use the SDK by (`use endpoints::...`).
const Crate = "endpoints"

// Root is the crate root within Files.
const Root = "src/lib.rs"

// Edition is the Rust edition of the SDK and of the route sources
// `endpoints build` compiles.
const Edition = "2021"
