package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// TestContractSections: a module's abi.SectionContract is its contract;
// one that disagrees with the export, or an ABI section of another
// version, fails the load.
func TestContractSections(t *testing.T) {
	const contract = `{"summary":"Hello","request":{"query":{"type":"object","properties":{"n":{"type":"integer"}}}}}`
	withSections := func(t *testing.T, m watModule, sections map[string]string) *app {
		a := newApp(t).wat("server/api/hello.get.wasm", m)
		path := filepath.Join(a.dir, "server", "api", "hello.get.wasm")
		wasm, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for name, data := range sections {
			if wasm, err = wasmbin.WithCustom(wasm, name, []byte(data)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(path, wasm, 0o644); err != nil {
			t.Fatal(err)
		}
		return a
	}
	t.Run("a section that agrees with the export", func(t *testing.T) {
		a := withSections(t, watModule{contract: contract, handle: echoEnvelope}, map[string]string{abi.SectionContract: contract, abi.SectionABIVersion: "1"})
		srv, _ := a.serve(host.Options{Mode: host.Production})
		if res := do(t, srv, "GET", "/api/hello?n=x", ""); res.status != 400 {
			t.Errorf("got %d, want 400 from the contract", res.status)
		}
	})
	t.Run("a section alone makes an endpoint", func(t *testing.T) {
		a := withSections(t, watModule{handle: echoEnvelope}, map[string]string{abi.SectionContract: contract})
		h, _ := a.host(host.Options{Mode: host.Production})
		if !strings.Contains(string(h.Document()), `"summary": "Hello"`) {
			t.Errorf("the document lacks the section's operation:\n%s", h.Document())
		}
	})
	for _, tt := range []struct {
		name     string
		sections map[string]string
		want     string
	}{
		{"a section that disagrees", map[string]string{abi.SectionContract: `{"summary":"Other"}`},
			"server/api/hello.get.wasm: its endpoints.contract section and its endpoints_contract export disagree: rebuild the module"},
		{"another ABI version", map[string]string{abi.SectionABIVersion: "2"},
			`server/api/hello.get.wasm: its endpoints.abi_version section says ABI "2", this host speaks ABI v1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := withSections(t, watModule{contract: contract, handle: echoEnvelope}, tt.sections)
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("host.New error = %v\nwant it to contain %s", err, tt.want)
			}
		})
	}
}
