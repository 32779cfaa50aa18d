package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
)

// mkfiles writes each file (path relative to dir: content), and its
// directories.
func mkfiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDocsAssetsDir: the docs page's local assets are a directory holding
// the reference's script, which does not hold the app; each refusal names
// the setting and says what to do. A URL or nothing needs no directory.
func TestDocsAssetsDir(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "app")
	mkfiles(t, root, map[string]string{
		"app/endpoints.json":            "{}",
		"app/docs/standalone.js":        "// reference",
		"app/public/docs/standalone.js": "// reference",
		"app/empty/readme.txt":          "no script",
		"app/file":                      "not a directory",
		"elsewhere/standalone.js":       "// reference",
		"outside.js":                    "// outside the directory",
	})
	if err := os.Symlink(filepath.Join(root, "outside.js"), filepath.Join(app, "empty", "standalone.js")); err != nil {
		t.Fatal(err)
	}
	const setting = "endpoints.json: /openApi/docs/assets: "
	tests := []struct {
		assets  string
		wantDir string // "" with wantErr
		wantErr []string
	}{
		{"", "", nil},
		{"https://cdn.example/scalar", "", nil},
		{"docs", filepath.Join(app, "docs"), nil},
		{"public/docs", filepath.Join(app, "public/docs"), nil},
		{filepath.Join(root, "elsewhere"), filepath.Join(root, "elsewhere"), nil},
		{"public/scalar", "", []string{setting + `"public/scalar": ` + filepath.Join(app, "public/scalar") + " does not exist; put the reference's build there", "or remove the setting"}},
		{"file", "", []string{setting + `"file": ` + filepath.Join(app, "file") + " is not a directory"}},
		{"empty", "", []string{setting + `"empty": ` + filepath.Join(app, "empty") + " holds no standalone.js the page can load"}},
		{".", "", []string{setting + `"." holds the app itself`}},
		{"..", "", []string{setting + `".." holds the app itself`}},
		{"docs/..", "", []string{setting + `"docs/.." holds the app itself`}},
		{app, "", []string{"holds the app itself"}},
		{root, "", []string{"holds the app itself"}},
	}
	for _, tt := range tests {
		dir, err := config.Docs{Assets: tt.assets}.AssetsDir(app)
		if tt.wantErr == nil {
			if err != nil || dir != tt.wantDir {
				t.Errorf("assets %q: AssetsDir = %q, %v, want %q", tt.assets, dir, err, tt.wantDir)
			}
			continue
		}
		for _, want := range tt.wantErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("assets %q: AssetsDir error %v, want one containing %q", tt.assets, err, want)
			}
		}
	}
}

// TestDocsAssetsDirRefusesALinkToTheApp: a symbolic link to the app, or
// to a directory above it, is refused as assets as "." and ".." are: it
// would serve endpoints.json, the modules and the app's data alike. The
// app reached through a link of its own is refused too.
func TestDocsAssetsDirRefusesALinkToTheApp(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "app")
	// A script at the app's root and above it: what refuses the links
	// is that they lead to the app, nothing else.
	mkfiles(t, root, map[string]string{"app/endpoints.json": "{}", "app/docs/standalone.js": "// reference",
		"app/standalone.js": "// reference", "standalone.js": "// reference"})
	for link, target := range map[string]string{
		"app/self":   app,
		"app/parent": root,
		"app/up":     "..",
		"applink":    app,
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ appDir, assets string }{
		{app, "self"},
		{app, "parent"},
		{app, "up"},
		{app, filepath.Join(root, "applink")},
		{filepath.Join(root, "applink"), "."},
		{filepath.Join(root, "applink"), app},
	} {
		_, err := config.Docs{Assets: tt.assets}.AssetsDir(tt.appDir)
		if err == nil || !strings.Contains(err.Error(), "endpoints.json: /openApi/docs/assets: ") || !strings.Contains(err.Error(), "holds the app itself") {
			t.Errorf("app %s, assets %q: AssetsDir error %v, want it refused as holding the app", tt.appDir, tt.assets, err)
		}
	}
	if dir, err := (config.Docs{Assets: "docs"}).AssetsDir(filepath.Join(root, "applink")); err != nil {
		t.Errorf("app reached through a link, assets \"docs\": %q, %v", dir, err)
	}
}

// TestDocsAssetsDirOfARelativeApp: the app named by a relative directory,
// as `endpoints run .` names it, is refused as assets alike, by a relative
// path above it or by its absolute one.
func TestDocsAssetsDirOfARelativeApp(t *testing.T) {
	app := filepath.Join(t.TempDir(), "app")
	mkfiles(t, app, map[string]string{"docs/standalone.js": "// reference"})
	t.Chdir(app)
	for _, tt := range []struct{ appDir, assets string }{
		{".", ".."},
		{".", app},
		{".", filepath.Dir(app)},
		{"../app", ".."},
		{"../app", app},
	} {
		_, err := config.Docs{Assets: tt.assets}.AssetsDir(tt.appDir)
		if err == nil || !strings.Contains(err.Error(), "holds the app itself") {
			t.Errorf("app %q, assets %q: AssetsDir error %v, want it refused as holding the app", tt.appDir, tt.assets, err)
		}
	}
	if _, err := (config.Docs{Assets: "docs"}).AssetsDir("."); err != nil {
		t.Errorf("app \".\", assets \"docs\": %v", err)
	}
}

// TestDocsAssetsDirRefusesARelativeApp: the app named by a relative
// directory, as `endpoints run .` names it, is refused as assets alike,
// by a relative path above it or by its absolute one.
func TestDocsAssetsDirRefusesARelativeApp(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "app")
	mkfiles(t, root, map[string]string{"app/endpoints.json": "{}", "app/docs/standalone.js": "// reference", "standalone.js": "// reference"})
	t.Chdir(app)
	for _, tt := range []struct{ appDir, assets string }{
		{".", ".."},
		{".", app},
		{".", root},
		{"../app", ".."},
		{"../app", app},
	} {
		_, err := config.Docs{Assets: tt.assets}.AssetsDir(tt.appDir)
		if err == nil || !strings.Contains(err.Error(), "holds the app itself") {
			t.Errorf("app %q, assets %q: AssetsDir error %v, want it refused as holding the app", tt.appDir, tt.assets, err)
		}
	}
	if _, err := (config.Docs{Assets: "docs"}).AssetsDir("."); err != nil {
		t.Errorf("app \".\", assets \"docs\": %v", err)
	}
}
