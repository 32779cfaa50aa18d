package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
)

// TestContractReferencesStayInsideTheContract loads contracts whose schemas
// refer outside themselves. Each must fail the load of its module with a
// message naming the module and the reference, quickly, without reading the
// file: a FIFO would block a reader forever, and a secret's content must
// never reach an error or a 400.
func TestContractReferencesStayInsideTheContract(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"const":"TOP-SECRET-VALUE"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	query := func(schema string) string {
		return `{"request":{"query":{"type":"object","properties":{"q":` + schema + `}}}}`
	}
	tests := []struct {
		name     string
		contract string
		wantURL  string
	}{
		{"absolute file URL", query(`{"$ref":"file://` + secret + `"}`), "file://" + secret},
		{"relative path", query(`{"$ref":"../../..` + secret + `"}`), "file://" + secret},
		{"FIFO", query(`{"$ref":"file://` + fifo + `"}`), "file://" + fifo},
		{"http URL", query(`{"$ref":"http://127.0.0.1:1/x.json"}`), "http://127.0.0.1:1/x.json"},
		{"$schema from a file", query(`{"$schema":"file://` + secret + `","type":"string"}`), "file://" + secret},
		{"$id moving the base", query(`{"$id":"file://` + dir + `/","$ref":"secret.json"}`), "file://" + secret},
		{"in $defs", `{"request":{"body":{"schema":{"$ref":"#/$defs/B"}}},"$defs":{"B":{"$ref":"file://` + secret + `"}}}`, "file://" + secret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).
				wat("server/api/evil.post.wasm", watModule{contract: tt.contract, handle: `(i32.const 0)`}).
				wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData})
			done := make(chan error, 1)
			go func() {
				h, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t), Logger: discardLogger()})
				if h != nil {
					h.Close(context.Background())
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("loading the app did not finish: the host followed the reference")
			}
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			for _, want := range []string{"\n  server/api/evil.post.wasm: contract: /request/", "refers to \"" + tt.wantURL + "\", which is outside the contract"} {
				if !strings.Contains(msg, want) {
					t.Errorf("load error = %q, want it to contain %q", msg, want)
				}
			}
			if strings.Contains(msg, "TOP-SECRET") {
				t.Errorf("load error reveals the file's content: %s", msg)
			}
		})
	}
}
