package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestClient generates both clients of the C example from its loaded
// contracts; the generators' own tests pin their output on examples/users
// and run it against the app.
func TestClient(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	if _, err := guestbuild.App(context.Background(), app, app, nil); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string // in the written file, or on stderr for a refusal
	}{
		{"TypeScript", []string{"--lang", "ts"}, exitOK, []string{"export function createClient(", `"/api/users/:id"`}},
		{"TypeScript with Vue", []string{"--lang", "ts", "--vue"}, exitOK, []string{"useEndpoint<P extends", `from "vue"`}},
		{"Go", []string{"--lang", "go", "--package", "users"}, exitOK, []string{"package users", "func (c *Client) GetAPIUsersByID(", "NotFound"}},
		{"an unknown language", []string{"--lang", "rust"}, exitUsage, []string{`--lang "rust": want "ts" or "go"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// -o into a directory not made yet: made.
			out := filepath.Join(t.TempDir(), "gen", "client")
			args := append(append([]string{"client"}, tt.args...), app, "-o", out, "--cache-dir", cache)
			code, stdout, stderr := runCLI(args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.wantCode, stdout, stderr)
			}
			text := stderr
			if code == exitOK {
				data, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				text = string(data)
				if !strings.Contains(stdout, "wrote "+out+" (1 operations") {
					t.Errorf("stdout %q", stdout)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("output does not contain %q:\n%.400s", w, text)
				}
			}
		})
	}
}
