package guestbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/depinfo"
)

// rustRoute is a Rust plain route answering text, with the lines before
// its handler (mod declarations).
func rustRoute(head, text string) string {
	return "use endpoints::{plain_route, respond_text, Request};\n" + head + "\n" +
		"plain_route!(|_req: &Request| -> Result<(), endpoints::Errno> { respond_text(200, " + text + ", \"text/plain\") });\n"
}

// TestRustRebuildsWhatChanged: a Rust route is built again when a file
// its last build read changed, and only then; `Affected` picks the same
// routes. Before, any .rs file of the app keyed every Rust route: one
// edit rebuilt all of them (2.3 s of CPU each).
func TestRustRebuildsWhatChanged(t *testing.T) {
	needRust(t)
	useCache(t)
	app := t.TempDir()
	const (
		a = "server/routes/a.get.rs"
		b = "server/routes/b.get.rs"
		c = "server/routes/c.get.rs"
	)
	writeFiles(t, app, map[string]string{
		"common/a.rs": "pub const TEXT: &str = \"a\";\n",
		a:             rustRoute("#[path = \"../../common/a.rs\"]\nmod shared;", "shared::TEXT"),
		b:             rustRoute("", "\"b\""),
		c:             rustRoute("", "\"c\""),
	})
	sources, err := Find(app)
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) != 3 {
		t.Fatalf("Find = %+v, want the 3 routes", sources)
	}
	build := func(wantErr string) []string { t.Helper(); return buildCompiled(t, app, sources, wantErr) }
	affected := func(changed string) []string {
		var got []string
		for _, s := range Affected(app, sources, []string{changed}) {
			got = append(got, s.Path)
		}
		return got
	}
	appendTo := func(name, text string) { t.Helper(); appendFile(t, app, name, text) }
	if got := build(""); !slices.Equal(got, []string{a, b, c}) {
		t.Fatalf("the first build compiled %q, want every route", got)
	}
	for _, step := range []struct {
		name    string
		change  func()
		changed string // the file saved, for Affected
		want    []string
		wantErr string
	}{
		{"nothing changed", func() {}, "", nil, ""},
		{"a comment in route a", func() { appendTo(a, "// more\n") }, a, []string{a}, ""},
		{"the file route a includes", func() { appendTo("common/a.rs", "// more\n") }, "common/a.rs", []string{a}, ""},
		{"a file no route reads", func() { writeFiles(t, app, map[string]string{"common/unused.rs": "// unused\n"}) }, "common/unused.rs", nil, ""},
		{"route b includes a new file", func() {
			writeFiles(t, app, map[string]string{
				"common/b.rs": "pub const TEXT: &str = \"b\";\n",
				b:             rustRoute("#[path = \"../../common/b.rs\"]\nmod shared;", "shared::TEXT"),
			})
		}, b, []string{b}, ""},
		{"the file route b now includes", func() { appendTo("common/b.rs", "// more\n") }, "common/b.rs", []string{b}, ""},
		{"x/mod.rs beside a file route b includes as x.rs", func() {
			writeFiles(t, app, map[string]string{"common/b/mod.rs": "// another candidate of mod b\n"})
		}, "common/b/mod.rs", []string{b}, ""},
		// A failed build forgets what the route read: it may read other
		// files now, and any .rs file rebuilds it until it builds.
		{"route c includes a file that is not there", func() {
			writeFiles(t, app, map[string]string{c: rustRoute("#[path = \"../../common/late.rs\"]\nmod late;", "late::TEXT")})
		}, c, []string{c}, "c.get.rs"},
		{"the missing file appears", func() {
			writeFiles(t, app, map[string]string{"common/late.rs": "pub const TEXT: &str = \"late\";\n"})
		}, "common/late.rs", []string{c}, ""},
		{"the file route c now includes", func() { appendTo("common/late.rs", "// more\n") }, "common/late.rs", []string{c}, ""},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.change()
			if step.changed != "" {
				if got := affected(step.changed); !slices.Equal(got, step.want) {
					t.Errorf("Affected(%s) = %q, want %q", step.changed, got, step.want)
				}
			}
			if got := build(step.wantErr); !slices.Equal(got, step.want) {
				t.Errorf("the build compiled %q, want %q", got, step.want)
			}
		})
	}
}

// TestReadsOf: rustc's paths are made absolute from its working directory
// and clean, each once, sorted.
func TestReadsOf(t *testing.T) {
	info := depinfo.Info{Files: []string{"server/api/a.get.rs", "server/api/../../lib/x.rs", "/abs/y.txt", "server/api/a.get.rs"}, Env: []string{"A"}}
	r := readsOf(info, "/app")
	want := []string{"/abs/y.txt", "/app/lib/x.rs", "/app/server/api/a.get.rs"}
	if !slices.Equal(r.Files, want) || !slices.Equal(r.Env, []string{"A"}) {
		t.Errorf("readsOf = %+v, want files %q and env [A]", r, want)
	}
}

// TestReadsConcerns: a record concerns the files it lists and the other
// file each `mod` could have found.
func TestReadsConcerns(t *testing.T) {
	r := reads{Files: []string{"/app/r.get.rs", "/app/lib/x.rs", "/app/lib/y/mod.rs", "/app/data.txt"}}
	for _, tt := range []struct {
		file string
		want bool
	}{
		{"/app/lib/x.rs", true},
		{"/app/lib/x/mod.rs", true},
		{"/app/lib/y/mod.rs", true},
		{"/app/lib/y.rs", true},
		{"/app/data.txt", true},
		{"/app/lib/z.rs", false},
		{"/app/lib/x/other.rs", false},
		{"/app/data.txt.rs", false},
	} {
		if got := r.concerns(tt.file); got != tt.want {
			t.Errorf("concerns(%s) = %v, want %v", tt.file, got, tt.want)
		}
	}
}

// TestReadsConcernsListedDirectories: a record concerns a .ts file in a
// directory asc listed (--lib), which asc compiles with the route when it
// is there, though no build read it yet: one made there rebuilds the
// route. A .d.ts file there, or one in a directory below, does not.
func TestReadsConcernsListedDirectories(t *testing.T) {
	r := reads{Files: []string{"/app/r.get.ts"}, Dirs: []string{"/app/lib"}}
	for _, tt := range []struct {
		file string
		want bool
	}{
		{"/app/lib/new.ts", true},
		{"/app/lib/new.d.ts", false},
		{"/app/lib/sub/new.ts", false},
		{"/app/lib.ts", false},
		{"/app/other/new.ts", false},
	} {
		if got := r.concerns(tt.file); got != tt.want {
			t.Errorf("concerns(%s) = %v, want %v", tt.file, got, tt.want)
		}
	}
}

// asRouteOf is an AssemblyScript plain route answering the string expr,
// with the lines before it (imports).
func asRouteOf(head, expr string) string {
	return `import { Request, plainRoute, respondText } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";
` + head + `
plainRoute((req: Request): void => { respondText(200, ` + expr + `); });
`
}

// TestAssemblyScriptRebuildsWhatChanged: an AssemblyScript route is built
// again when a file its last build read changed, or a file appeared where
// asc looked for one, and only then; `Affected` picks the same routes.
// Before, any .ts file of the app keyed every AssemblyScript route.
func TestAssemblyScriptRebuildsWhatChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript takes seconds")
	}
	useCache(t)
	const (
		a = "server/routes/a.get.ts"
		b = "server/routes/b.get.ts"
		c = "server/routes/c.get.ts"
	)
	app := asApp(t, map[string]string{
		"common/a.ts": "export const TEXT: string = \"a\";\n",
		a:             asRouteOf(`import { TEXT } from "../../common/a";`, "TEXT"),
		b:             asRouteOf("", `"b"`),
		c:             asRouteOf("", `"c"`),
	})
	sources, err := Find(app)
	if err != nil {
		t.Fatal(err)
	}
	build := func(wantErr string) []string { t.Helper(); return buildCompiled(t, app, sources, wantErr) }
	appendTo := func(name, text string) { t.Helper(); appendFile(t, app, name, text) }
	if got := build(""); !slices.Equal(got, []string{a, b, c}) {
		t.Fatalf("the first build compiled %q, want every route", got)
	}
	for _, step := range []struct {
		name    string
		change  func()
		changed string
		want    []string
		wantErr string
	}{
		{"nothing changed", func() {}, "", nil, ""},
		{"a comment in route a", func() { appendTo(a, "// more\n") }, a, []string{a}, ""},
		{"the file route a imports", func() { appendTo("common/a.ts", "// more\n") }, "common/a.ts", []string{a}, ""},
		{"a file no route reads", func() { writeFiles(t, app, map[string]string{"common/unused.ts": "// unused\n"}) }, "common/unused.ts", nil, ""},
		{"route b imports a directory's index", func() {
			writeFiles(t, app, map[string]string{
				"common/b/index.ts": "export const TEXT: string = \"b\";\n",
				b:                   asRouteOf(`import { TEXT } from "../../common/b";`, "TEXT"),
			})
		}, b, []string{b}, ""},
		{"the index route b imports", func() { appendTo("common/b/index.ts", "// more\n") }, "common/b/index.ts", []string{b}, ""},
		// asc tried common/b.ts before common/b/index.ts: one there is
		// what the import means now.
		{"a file where route b's import was tried first", func() {
			writeFiles(t, app, map[string]string{"common/b.ts": "export const TEXT: string = \"b, first\";\n"})
		}, "common/b.ts", []string{b}, ""},
		{"route c imports a file that is not there", func() {
			writeFiles(t, app, map[string]string{c: asRouteOf(`import { TEXT } from "../../common/late";`, "TEXT")})
		}, c, []string{c}, "c.get.ts"},
		{"the missing file appears", func() {
			writeFiles(t, app, map[string]string{"common/late.ts": "export const TEXT: string = \"late\";\n"})
		}, "common/late.ts", []string{c}, ""},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.change()
			if step.changed != "" {
				var got []string
				for _, s := range Affected(app, sources, []string{step.changed}) {
					got = append(got, s.Path)
				}
				slices.Sort(got)
				if !slices.Equal(got, step.want) {
					t.Errorf("Affected(%s) = %q, want %q", step.changed, got, step.want)
				}
			}
			if got := build(step.wantErr); !slices.Equal(got, step.want) {
				t.Errorf("the build compiled %q, want %q", got, step.want)
			}
		})
	}
}

// TestHashReads: what a record names keys the module: each file's content
// or absence, the other file a `mod` could find, a directory's .ts files,
// a variable's value; nothing else. A file changed after the build began
// says so.
func TestHashReads(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }
	writeFiles(t, dir, map[string]string{"r.rs": "// r\n", "lib/x.rs": "// x\n", "libdir/a.ts": "// a\n"})
	const env = "ENDPOINTS_TEST_HASH_READS"
	t.Setenv(env, "one")
	r := reads{Files: []string{p("absent.ts"), p("lib/x.rs"), p("r.rs")}, Dirs: []string{p("libdir")}, Env: []string{env}}
	key := func() string {
		t.Helper()
		h := sha256.New()
		if _, err := hashReads(h, r, nil); err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	seen := map[string]string{}
	for _, step := range []struct {
		name   string
		change func()
		same   bool
	}{
		{"first", func() {}, false},
		{"nothing changed", func() {}, true},
		{"a file the record does not name", func() { writeFiles(t, dir, map[string]string{"lib/other.rs": "// other\n"}) }, true},
		{"a file's modification time", func() {
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(p("lib/x.rs"), old, old); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a file's content", func() { writeFiles(t, dir, map[string]string{"lib/x.rs": "// x, changed\n"}) }, false},
		{"a file that was absent appears", func() { writeFiles(t, dir, map[string]string{"absent.ts": "// here\n"}) }, false},
		{"the other file of a mod appears", func() { writeFiles(t, dir, map[string]string{"lib/x/mod.rs": "// mod\n"}) }, false},
		{"a .d.ts file in a listed directory", func() { writeFiles(t, dir, map[string]string{"libdir/b.d.ts": "// b\n"}) }, true},
		{"a .ts file in a listed directory", func() { writeFiles(t, dir, map[string]string{"libdir/b.ts": "// b\n"}) }, false},
		{"a variable's value", func() { t.Setenv(env, "two") }, false},
		{"a variable unset", func() { os.Unsetenv(env) }, false},
	} {
		step.change()
		k := key()
		prev, repeated := seen[k]
		if repeated != step.same {
			t.Errorf("after %s: key repeated %v (of %q), want %v", step.name, repeated, prev, step.same)
		}
		seen[k] = step.name
	}

	start := r.snapshot(time.Now())
	old := start.at.Add(-time.Minute)
	for _, f := range []string{"r.rs", "lib/x.rs", "absent.ts"} {
		if err := os.Chtimes(p(f), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if unchanged, err := hashReads(sha256.New(), r, start); err != nil || !unchanged {
		t.Errorf("hashReads with every file older than the build = %v, %v; want unchanged", unchanged, err)
	}
	later := start.at.Add(time.Second)
	if err := os.Chtimes(p("lib/x.rs"), later, later); err != nil {
		t.Fatal(err)
	}
	if unchanged, err := hashReads(sha256.New(), r, start); err != nil || unchanged {
		t.Errorf("hashReads with a file changed during the build = %v, %v; want changed", unchanged, err)
	}
}

// TestHashReadsSeesWhatAppearedDuringTheBuild: a module is not cached
// when a .ts file appeared in a directory its build listed, or the other
// file of one of its `mod`s appeared, after the build began: the compiler
// may have listed or looked before, and the module would then be cached
// under a key that holds the new file, which no later build would
// compile with (the record does not name its content).
func TestHashReadsSeesWhatAppearedDuringTheBuild(t *testing.T) {
	for _, tt := range []struct {
		name, appears, changed string // changed: the entry whose time moves
	}{
		{"a .ts file in a listed directory", "libdir/b.ts", "libdir"},
		{"the other file of a mod", "lib/x/mod.rs", "lib/x/mod.rs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := func(name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }
			writeFiles(t, dir, map[string]string{"r.rs": "// r\n", "lib/x.rs": "// x\n", "libdir/a.ts": "// a\n"})
			r := reads{Files: []string{p("lib/x.rs"), p("r.rs")}, Dirs: []string{p("libdir")}}
			at := time.Now()
			old := at.Add(-time.Minute)
			for _, f := range []string{"r.rs", "lib/x.rs", "libdir/a.ts", "libdir"} {
				if err := os.Chtimes(p(f), old, old); err != nil {
					t.Fatal(err)
				}
			}
			start := r.snapshot(at)
			if unchanged, err := hashReads(sha256.New(), r, start); err != nil || !unchanged {
				t.Fatalf("hashReads before anything appeared = %v, %v; want unchanged", unchanged, err)
			}
			writeFiles(t, dir, map[string]string{tt.appears: "// new\n"})
			// The time the file system gives the change, made plain: after
			// the start, or just before it, as a clock that lags the one
			// start was read from dates a change made just after it.
			for _, stamp := range []time.Duration{time.Second, -3 * time.Millisecond} {
				stamped := at.Add(stamp)
				if err := os.Chtimes(p(tt.changed), stamped, stamped); err != nil {
					t.Fatal(err)
				}
				if unchanged, err := hashReads(sha256.New(), r, start); err != nil || unchanged {
					t.Errorf("hashReads after %s appeared during the build, dated %v from its start = %v, %v; want changed", tt.appears, stamp, unchanged, err)
				}
			}
		})
	}
}

// TestHashReadsSeesAWriteTheClockDated: a file written just after the
// build began may carry a modification time a little before it: Linux
// stamps files with a clock read at the last tick (up to 10 ms behind the
// one time.Now reads; on this kind of machine about one write in a
// hundred made right after time.Now is dated before it). Such a write is
// still a change during the build, and the module must not be cached.
func TestHashReadsSeesAWriteTheClockDated(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.rs")
	writeFiles(t, dir, map[string]string{"r.rs": "// r\n"})
	r := reads{Files: []string{p}}
	start := r.snapshot(time.Now())
	writeFiles(t, dir, map[string]string{"r.rs": "// r, saved during the build\n"})
	stamped := start.at.Add(-3 * time.Millisecond) // the tick's clock
	if err := os.Chtimes(p, stamped, stamped); err != nil {
		t.Fatal(err)
	}
	if unchanged, err := hashReads(sha256.New(), r, start); err != nil || unchanged {
		t.Errorf("hashReads after a write dated 3 ms before the build = %v, %v; want changed", unchanged, err)
	}
}

// TestHashReadsTrustsTheStart: a file dated within stampSlack of the
// build's start is taken as unchanged only when the start hashed it with
// the content it has now: the usual save just before a build is cached,
// a file the start did not hash is not. One dated clearly before is, one
// dated after is not; one the start saw and the build's end does not was
// removed during it.
func TestHashReadsTrustsTheStart(t *testing.T) {
	// whole is a time on a whole second, 1 to 2 s before at: what a file
	// system that keeps even seconds (FAT) may give a write just after at.
	whole := func(at time.Time) time.Time { return at.Add(-time.Second).Truncate(time.Second) }
	for _, tt := range []struct {
		name   string
		hashed bool                         // the start hashed the file
		stamp  func(at time.Time) time.Time // its modification time; nil: removed during the build
		want   bool
	}{
		{"written just before the build, unchanged during it", true, func(at time.Time) time.Time { return at.Add(-3 * time.Millisecond) }, true},
		{"dated just before the build, not hashed at its start", false, func(at time.Time) time.Time { return at.Add(-3 * time.Millisecond) }, false},
		{"dated clearly before the build, not hashed at its start", false, func(at time.Time) time.Time { return at.Add(-time.Minute) }, true},
		{"dated a second before the build, with a fraction, not hashed at its start", false, func(at time.Time) time.Time { return whole(at).Add(500 * time.Millisecond) }, true},
		{"dated on a whole second before the build, not hashed at its start", false, whole, false},
		{"dated on a whole second before the build, unchanged during it", true, whole, true},
		{"dated after the start, unchanged", true, func(at time.Time) time.Time { return at.Add(time.Millisecond) }, false},
		{"removed during the build", true, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "r.rs")
			writeFiles(t, dir, map[string]string{"r.rs": "// r\n"})
			r := reads{Files: []string{p}}
			at := time.Now()
			start := reads{}.snapshot(at)
			if tt.hashed {
				start = r.snapshot(at)
			}
			if tt.stamp == nil {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			} else if stamped := tt.stamp(at); os.Chtimes(p, stamped, stamped) != nil {
				t.Fatal("cannot set the time of", p)
			}
			if unchanged, err := hashReads(sha256.New(), r, start); err != nil || unchanged != tt.want {
				t.Errorf("hashReads = %v, %v; want %v", unchanged, err, tt.want)
			}
		})
	}
}

// TestBeginBuild: the start of a build hashes the files the route's
// record lists and the other files of their `mod`s, and the directories
// it lists; without a record, the route and every source file of its
// language in the app (not in node_modules, target or hidden
// directories), which its key hashes too.
func TestBeginBuild(t *testing.T) {
	useCache(t)
	app := t.TempDir()
	p := func(name string) string { return filepath.Join(app, filepath.FromSlash(name)) }
	const route = "server/routes/a.get.rs"
	writeFiles(t, app, map[string]string{
		route:                 "// a\n",
		"lib/x.rs":            "// x\n",
		"lib/x/mod.rs":        "// the other file of mod x\n",
		"lib/y.rs":            "// y\n",
		"libdir/a.ts":         "// a\n",
		"node_modules/z.rs":   "// z\n",
		"target/t.rs":         "// t\n",
		".hidden/h.rs":        "// h\n",
		"server/routes/b.txt": "b\n",
	})
	keys := func(b *before) (files, dirs []string) {
		for f := range b.files {
			rel, _ := filepath.Rel(app, f)
			files = append(files, filepath.ToSlash(rel))
		}
		for d := range b.dirs {
			rel, _ := filepath.Rel(app, d)
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		slices.Sort(files)
		slices.Sort(dirs)
		return files, dirs
	}
	files, dirs := keys(beginBuild(app, LangRust, p(route)))
	if want := []string{"lib/x.rs", "lib/x/mod.rs", "lib/y.rs", route}; !slices.Equal(files, want) || dirs != nil {
		t.Errorf("without a record, the start hashed %q and %q; want %q and none", files, dirs, want)
	}
	if err := saveReads(LangRust, p(route), reads{Files: []string{p("absent.rs"), p("lib/x.rs"), p(route)}, Dirs: []string{p("libdir")}}); err != nil {
		t.Fatal(err)
	}
	files, dirs = keys(beginBuild(app, LangRust, p(route)))
	if want := []string{"lib/x.rs", "lib/x/mod.rs", route}; !slices.Equal(files, want) || !slices.Equal(dirs, []string{"libdir"}) {
		t.Errorf("with a record, the start hashed %q and %q; want %q and [libdir]", files, dirs, want)
	}
	if b := beginBuild(app, LangRust, p(route)); b.files[p(route)] == "" || b.dirs[p("libdir")] != "a.ts" {
		t.Errorf("the start holds %x for the route and %q for libdir; want its hash and a.ts", b.files[p(route)], b.dirs[p("libdir")])
	}
}

// TestLoadReads: a record reads back as saved; one that is not JSON, does
// not name its route or names a relative file is no record (the route
// keeps the conservative key), as is one forgotten.
func TestLoadReads(t *testing.T) {
	useCache(t)
	const abs = "/app/server/api/a.get.rs"
	good := reads{Files: []string{"/app/lib/x.rs", abs}, Env: []string{"A"}}
	if err := saveReads(LangRust, abs, good); err != nil {
		t.Fatal(err)
	}
	if r, ok := loadReads(LangRust, abs); !ok || !slices.Equal(r.Files, good.Files) || !slices.Equal(r.Env, good.Env) {
		t.Errorf("loadReads = %+v, %v; want %+v", r, ok, good)
	}
	if _, ok := loadReads(LangAS, abs); ok {
		t.Error("the record of a Rust route is one of the AssemblyScript route at its path")
	}
	forgetReads(LangRust, abs)
	if _, ok := loadReads(LangRust, abs); ok {
		t.Error("a forgotten record was found")
	}
	for _, bad := range []string{`not json`, `{"files":["/app/lib/x.rs"]}`, `{"files":["lib/x.rs","/app/server/api/a.get.rs"]}`} {
		if err := moduleCache.PutRecord(recordKey(LangRust, abs), []byte(bad)); err != nil {
			t.Fatal(err)
		}
		if r, ok := loadReads(LangRust, abs); ok {
			t.Errorf("the record %s was taken: %+v", bad, r)
		}
	}
}

// appendFile appends text to the file name (slash-separated, in app).
func appendFile(t *testing.T, app, name, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(app, filepath.FromSlash(name)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// buildCompiled builds sources of app and returns, sorted, those compiled
// (not from the module cache); wantErr names a source whose build must
// fail, "" none.
func buildCompiled(t *testing.T, app string, sources []Source, wantErr string) []string {
	t.Helper()
	built, err := Build(t.Context(), app, app, sources, nil)
	if (err != nil) != (wantErr != "") || err != nil && !strings.Contains(err.Error(), wantErr) {
		t.Fatalf("Build: %v, want an error naming %q", err, wantErr)
	}
	var compiled []string
	for _, r := range built {
		if !r.Cached {
			compiled = append(compiled, r.Path)
		}
	}
	slices.Sort(compiled)
	return compiled
}
