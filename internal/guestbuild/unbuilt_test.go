package guestbuild

import (
	"reflect"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

func TestUnbuilt(t *testing.T) {
	if RuntimeSourceBase+".wasm" != abi.RuntimeModule {
		t.Fatalf("RuntimeSourceBase %s does not name %s", RuntimeSourceBase, abi.RuntimeModule)
	}
	dir := writeTree(t, map[string]string{
		"server/endpoints/runtime.zig":   "x",
		"server/endpoints/runtime.c":     "int x;",
		"server/endpoints/deeper/a.cpp":  "x",
		"server/api/users/[id].get.cpp":  "x",
		"server/api/users/index.post.rs": "x",
		"server/routes/hello.get.wat":    "(module)",
		"server/routes/notes.md":         "not a source",
		"server/middleware/10-log.js":    "x",
		"src/main.zig":                   "built by the app's command, outside the route directories",
	})
	got, err := Unbuilt(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Foreign{
		{"server/api/users/[id].get.cpp", "C++", "server/api/users/[id].get.wasm"},
		{"server/endpoints/runtime.zig", "Zig", "server/endpoints/runtime.wasm"},
		{"server/middleware/10-log.js", "JavaScript", "server/middleware/10-log.wasm"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Unbuilt:\n got %v\nwant %v", got, want)
	}
	if got, err := Unbuilt(writeTree(t, map[string]string{"README.md": "no server directory"})); err != nil || len(got) != 0 {
		t.Errorf("Unbuilt of an app without server/ = %v, %v; want nothing", got, err)
	}
}
