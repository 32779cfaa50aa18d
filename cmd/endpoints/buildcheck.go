package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/sections"
)

// checkBuiltApp runs, after `endpoints build` wrote the modules' contract
// sections, the checks serve runs on the app as a whole when it starts
// (sections.Check: the host's own load, routed from those sections, no
// module compiled): routes that collide, a document that cannot be built
// (component schemas of one name that differ, a duplicate operationId, a
// security scheme not configured, a routes configuration entry that
// matches no route), and the like. A failure is printed as serve prints
// it; false then.
func checkBuiltApp(ctx context.Context, app string, ovs []config.Override, stdout, stderr io.Writer) bool {
	start := time.Now()
	a, err := sections.Check(ctx, app, ovs...)
	if err != nil {
		fmt.Fprintf(stderr, "\nendpoints build: the modules built, but serve would refuse the app: %v\n", err)
		return false
	}
	fmt.Fprintf(stdout, "checked the app as serve starts it: %d routes (%d endpoint operations), OpenAPI document of %d bytes (`endpoints openapi %s -o FILE` writes it), in %s\n",
		a.Routes, a.Operations, a.DocumentBytes, app, time.Since(start).Round(time.Millisecond))
	return true
}
