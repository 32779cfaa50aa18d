package host_test

import (
	"context"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// failingRoutes are Go routes of one bundle: GET /api/ok answers, and
// each other fails every request its own way: GET /api/panic writes to a
// nil map (a panic the SDK recovers: the handler's result 1), GET
// /api/overflow recurses without end (the Go runtime's fatal "stack
// overflow", or out of memory: a trap), GET /api/exit calls os.Exit (a
// trap: the module exits) and GET /api/spin loops past its 100 ms
// timeout (stopped at its deadline).
var failingRoutes = map[string]string{
	"handlers/ok/main.go": `//endpoints:route GET /api/ok
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type okIn struct{}

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Ok", Responses: endpoints.Responses{200: endpoints.JSON[string]("Fine")}},
		func(*okIn) endpoints.Reply { return endpoints.Respond(200, "ok") })
}

func main() {}
`,
	"handlers/panic/main.go": `//endpoints:route GET /api/panic
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type panicIn struct{}

var counts map[string]int

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Panic", Responses: endpoints.Responses{200: endpoints.JSON[string]("Never")}},
		func(*panicIn) endpoints.Reply {
			counts["calls"]++
			return endpoints.Respond(200, "never")
		})
}

func main() {}
`,
	"handlers/overflow/main.go": `//endpoints:route GET /api/overflow
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type overflowIn struct{}

func depth(n int) int { return depth(n+1) + 1 }

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Overflow", Responses: endpoints.Responses{200: endpoints.JSON[int]("Never")}},
		func(*overflowIn) endpoints.Reply { return endpoints.Respond(200, depth(0)) })
}

func main() {}
`,
	"handlers/exit/main.go": `//endpoints:route GET /api/exit
package main

import (
	"os"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type exitIn struct{}

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Exit", Responses: endpoints.Responses{200: endpoints.JSON[string]("Never")}},
		func(*exitIn) endpoints.Reply {
			os.Exit(3)
			return endpoints.Respond(200, "never")
		})
}

func main() {}
`,
	"handlers/spin/main.go": `//endpoints:route GET /api/spin
package main

import (
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type spinIn struct{}

var spins int

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Spin", Timeout: 100 * time.Millisecond, Responses: endpoints.Responses{200: endpoints.JSON[int]("Never")}},
		func(*spinIn) endpoints.Reply {
			for {
				spins++
			}
		})
}

func main() {}
`,
}

// failingBundleApp writes an app of failingRoutes and links them into
// one bundle, as endpoints build does.
func failingBundleApp(t testing.TB) string {
	t.Helper()
	requireTool(t, "go")
	files := make(map[string]string, len(failingRoutes))
	for k, v := range failingRoutes {
		files[k] = v
	}
	dir := goApp(t, files)
	sources, err := guestbuild.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := guestbuild.Build(context.Background(), dir, dir, guestbuild.BundleGo(sources), nil); err != nil {
		t.Fatal(err)
	}
	return dir
}
