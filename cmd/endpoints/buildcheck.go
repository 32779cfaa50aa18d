package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/sections"
)

// checkBuiltApp runs, after `endpoints build` wrote the modules' contract
// sections, the checks serve runs on the app as a whole when it starts
// (sections.Check: the host's own load, routed from those sections, no
// module compiled): routes that collide, a document that cannot be built
// (component schemas of one name that differ, a duplicate operationId, a
// security scheme not configured, a routes configuration entry that
// matches no route), and the like. A failure is printed as serve prints
// it; false then. What of the app's security the deployment gives (a
// verifier from ENDPOINTS_SECURITY, a jwt secret's environment variable),
// which a build in CI lacks on purpose, is a warning naming the setting
// and its variable (printDeployWarnings), as is what serve would start
// despite.
func checkBuiltApp(ctx context.Context, app string, ovs []config.Override, stdout, stderr io.Writer) bool {
	start := time.Now()
	a, err := sections.Check(ctx, app, ovs...)
	printDeployWarnings("build", a.Warnings, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "\nendpoints build: the modules built, but serve would refuse the app: %v\n", err)
		return false
	}
	fmt.Fprintf(stdout, "checked the app as serve starts it: %d routes (%d endpoint operations), OpenAPI document of %d bytes (`endpoints openapi %s -o FILE` writes it), in %s\n",
		a.Routes, a.Operations, a.DocumentBytes, app, time.Since(start).Round(time.Millisecond))
	return true
}

// printDeployWarnings prints the warnings of a load by command cmd that
// serves nothing: a setting left to the deployment (*auth.UnsetError)
// names the setting and the environment variable that gives it, and says
// that serve refuses the app without it.
func printDeployWarnings(cmd string, warnings []error, stderr io.Writer) {
	for _, w := range warnings {
		if u, ok := errors.AsType[*auth.UnsetError](w); ok {
			fmt.Fprintf(stderr, "endpoints %s: warning: serve refuses the app unless the deployment sets %s (%s): %v\n", cmd, u.Setting, u.Source(), w)
			continue
		}
		fmt.Fprintf(stderr, "endpoints %s: warning: %v\n", cmd, w)
	}
}
