// Package csdk ships the C SDK headers, endpoints.h and the
// endpoints_db.h it includes, inside Go programs, so that tools such as
// `endpoints build` compile C route modules without a checkout of this
// repository. C authors use endpoints.h itself; README.md beside it shows
// how.
package csdk

import "embed"

// Header is the content of endpoints.h, the header-only C API over ABI v1.
// It includes the other headers of [Files]: write them all to a directory
// and pass that directory to clang with -I.
//
//go:embed endpoints.h
var Header []byte

// Files holds every header of the SDK: endpoints.h and the
// endpoints_db.h it includes.
//
//go:embed *.h
var Files embed.FS

// README is the SDK's README.md, which `endpoints new --lang c` copies
// beside the headers it writes into an app. It is not an input of the
// build, so a change of it compiles nothing again.
//
//go:embed README.md
var README []byte

// HeaderName is the file name C sources include: #include "endpoints.h".
const HeaderName = "endpoints.h"
