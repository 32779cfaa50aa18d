package appload

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// write makes the files of an app, by path relative to it; a path ending
// in "/" is a directory.
func write(t *testing.T, files ...string) Dir {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("bytes of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Dir(dir)
}

func TestModules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  []string
	}{
		{"an app without routes", []string{"endpoints.json"}, nil},
		{"route directories and bundles, sorted", []string{
			"server/routes/b.wasm", "server/api/users/[id].get.wasm", abi.BundleDir + "/app.wasm", "server/api/a.wasm",
		}, []string{"server/api/a.wasm", "server/api/users/[id].get.wasm", abi.BundleDir + "/app.wasm", "server/routes/b.wasm"}},
		{"not modules", []string{"server/api/a.wat", "server/api/a.wasm.txt", "server/api/d.wasm/", "server/other/x.wasm", "x.wasm"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := write(t, tc.files...).Modules()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Modules = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestModulesWhileADirectoryVanishes lists the modules while a build's
// temporary directory beside a bundle comes and goes, as
// `endpoints dev` makes one for each bundle it writes (removed once the
// bundle is renamed into place): a listing that met the directory but
// found it gone when it read it failed the reload that the new bundle
// had started, and that bundle was never loaded.
func TestModulesWhileADirectoryVanishes(t *testing.T) {
	d := write(t, abi.BundleDir+"/go.wasm")
	tmp := filepath.Join(string(d), filepath.FromSlash(abi.BundleDir), ".go.wasm.1.tmp")
	stop := make(chan struct{})
	churned := make(chan struct{})
	go func() {
		defer close(churned)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := os.MkdirAll(filepath.Join(tmp, "sub"), 0o755); err != nil {
				t.Error(err)
				return
			}
			if err := os.RemoveAll(tmp); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() { close(stop); <-churned }()
	for range 3000 {
		got, err := d.Modules()
		if err != nil {
			t.Fatalf("Modules while a directory came and went: %v", err)
		}
		if want := []string{abi.BundleDir + "/go.wasm"}; !slices.Equal(got, want) {
			t.Fatalf("Modules = %q, want %q", got, want)
		}
	}
}

func TestRead(t *testing.T) {
	d := write(t, "server/api/a.wasm", "server/api/dir.wasm/")
	for _, tc := range []struct {
		name, rel string
		wantData  string
		wantErr   string
	}{
		{name: "a file, hashed", rel: "server/api/a.wasm", wantData: "bytes of server/api/a.wasm"},
		{name: "missing: no bytes, no error", rel: "server/api/gone.wasm"},
		{name: "a directory is refused", rel: "server/api/dir.wasm", wantErr: "server/api/dir.wasm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, hash, err := d.Read(tc.rel)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Read error = %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Hash{}
			if tc.wantData != "" {
				want = sha256.Sum256([]byte(tc.wantData))
			}
			if string(data) != tc.wantData || hash != want {
				t.Errorf("Read = %q hash %x, want %q hash %x", data, hash, tc.wantData, want)
			}
		})
	}
}
