package guestbuild

import (
	"slices"
	"strings"
	"testing"
)

func TestAffected(t *testing.T) {
	useCache(t)
	sources := []Source{
		{Lang: LangGo, Path: "handlers/get-user", Module: "server/api/users/[id].get.wasm"},
		{Lang: LangGo, Path: "handlers/search", Module: "server/api/users/search.get.wasm"},
		{Lang: LangC, Path: "server/api/hello.get.c", Module: "server/api/hello.get.wasm"},
		{Lang: LangWAT, Path: "server/routes/ping.get.wat", Module: "server/routes/ping.get.wasm"},
		{Lang: LangAS, Path: "server/api/as.get.ts", Module: "server/api/as.get.wasm"},
		{Lang: LangRust, Path: "server/api/items.get.rs", Module: "server/api/items.get.wasm"},
		{Lang: LangRust, Path: "server/api/items.post.rs", Module: "server/api/items.post.wasm"},
	}
	tests := []struct {
		name    string
		changed []string
		want    []string // modules
	}{
		{"a route's own Go file", []string{"handlers/search/main.go"}, []string{"server/api/users/search.get.wasm"}},
		{"a shared package rebuilds every Go route", []string{"model/users.go"}, []string{"server/api/users/[id].get.wasm", "server/api/users/search.get.wasm"}},
		{"go.mod rebuilds every Go route", []string{"go.mod"}, []string{"server/api/users/[id].get.wasm", "server/api/users/search.get.wasm"}},
		{"a C source", []string{"server/api/hello.get.c"}, []string{"server/api/hello.get.wasm"}},
		{"a C header rebuilds the C routes", []string{"server/api/shared.h"}, []string{"server/api/hello.get.wasm"}},
		{"a WAT source", []string{"server/routes/ping.get.wat"}, []string{"server/routes/ping.get.wasm"}},
		{"a Rust source", []string{"server/api/items.post.rs"}, []string{"server/api/items.post.wasm"}},
		{"a shared Rust file rebuilds the Rust routes", []string{"lib/items.rs"}, []string{"server/api/items.get.wasm", "server/api/items.post.wasm"}},
		{"a shared AssemblyScript file rebuilds the AssemblyScript routes", []string{"lib/users.ts"}, []string{"server/api/as.get.wasm"}},
		{"a module or a README rebuilds nothing", []string{"server/api/hello.get.wasm", "README.md"}, nil},
		{"several at once", []string{"handlers/get-user/main.go", "server/routes/ping.get.wat"}, []string{"server/api/users/[id].get.wasm", "server/routes/ping.get.wasm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range Affected(t.TempDir(), sources, tt.changed) {
				got = append(got, s.Module)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Affected(%q) = %q, want %q", tt.changed, got, tt.want)
			}
		})
	}
}

// TestAffectedSince: a file of a Go route's package that is gone (the
// package deleted or moved) rebuilds the bundle that served it, when one
// still builds, and nothing when none does; not every Go route, as a
// shared package's file would. Deleting one route of a 60-route app
// rebuilt its every bundle.
func TestAffectedSince(t *testing.T) {
	useCache(t)
	before := BundleGoBy([]Source{
		{Lang: LangGo, Path: "handlers/admin/a", Module: "server/api/admin/a.get.wasm"},
		{Lang: LangGo, Path: "handlers/admin/b", Module: "server/api/admin/b.get.wasm"},
		{Lang: LangGo, Path: "handlers/users/c", Module: "server/api/users/c.get.wasm"},
		{Lang: LangGo, Path: "handlers/solo/d", Module: "server/api/solo/d.get.wasm"},
	}, func(dir string) string {
		switch {
		case strings.HasPrefix(dir, "handlers/admin/"):
			return "server/bundles/admin.wasm"
		case strings.HasPrefix(dir, "handlers/solo/"):
			return "server/bundles/solo.wasm"
		}
		return ""
	})
	// handlers/admin/b and handlers/solo/d are deleted.
	now := slices.DeleteFunc(slices.Clone(before), func(s Source) bool { return s.Module == "server/bundles/solo.wasm" })
	for i := range now {
		if now[i].Module == "server/bundles/admin.wasm" {
			now[i].Routes = now[i].Routes[:1]
		}
	}
	for _, tt := range []struct {
		name    string
		changed []string
		want    []string
	}{
		{"a deleted route's file rebuilds its bundle", []string{"handlers/admin/b/main.go"}, []string{"server/bundles/admin.wasm"}},
		{"a deleted bundle's last route rebuilds nothing", []string{"handlers/solo/d/main.go"}, nil},
		{"a shared package still rebuilds every Go bundle", []string{"model/x.go"}, []string{"server/bundles/admin.wasm", BundleModule}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range AffectedSince(t.TempDir(), before, now, tt.changed) {
				got = append(got, s.Module)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("AffectedSince(%q) = %q, want %q", tt.changed, got, tt.want)
			}
		})
	}
}
