// Package assdk ships the AssemblyScript SDK's sources inside Go programs,
// so that `endpoints build` compiles AssemblyScript routes of an app that
// installed only the compiler (npm package assemblyscript). AssemblyScript
// authors use the npm package in this directory; README.md shows how.
package assdk

import "embed"

// Files holds the SDK's sources (*.ts) and package.json at its root.
//
//go:embed *.ts package.json
var Files embed.FS

// README is the SDK's README.md, which `endpoints new --lang as` copies
// beside the sources it writes into an app. It is not an input of the
// build, so a change of it compiles nothing again.
//
//go:embed README.md
var README []byte

// Package is the npm name route sources import the SDK by.
const Package = "@wasmendpoints/assemblyscript"

// Compiler is the npm package and exact version of the AssemblyScript
// compiler this SDK is written and tested for.
const Compiler = "assemblyscript@0.28.20"

// AbortFunction is what asc's --use abort= names so that a failed
// assertion or a throw is logged through the host and traps, instead of
// importing env.abort, which no host provides.
const AbortFunction = "~lib/" + Package + "/abort/endpointsAbort"

// DateClass is what asc's --use Date= names: AssemblyScript's Date with
// a clock read through WASI, since Date.now() would otherwise import
// env.Date.now, which no host provides.
const DateClass = "~lib/" + Package + "/clock/EndpointsDate"
