// Package csdk ships the C SDK header, endpoints.h, inside Go programs, so
// that tools such as `endpoints build` compile C route modules without a
// checkout of this repository. C authors use endpoints.h itself; README.md
// beside it shows how.
package csdk

import _ "embed"

// Header is the content of endpoints.h, the header-only C API over ABI v1.
// Write it to a directory and pass that directory to clang with -I.
//
//go:embed endpoints.h
var Header []byte

// HeaderName is the file name C sources include: #include "endpoints.h".
const HeaderName = "endpoints.h"
