package versionload

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/appversion"
	"github.com/wasmendpoints/endpoints/host/internal/outbound"
	"github.com/wasmendpoints/endpoints/host/internal/resolved"
	"github.com/wasmendpoints/endpoints/host/internal/runtimedecl"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// fakeHost is a Host whose migrations fail with migrateErr, and which
// counts the settings it resolves.
type fakeHost struct {
	dir        string
	migrateErr error
	settings   int
	clients    outbound.Clients
}

func (h *fakeHost) Migrate(context.Context) error { return h.migrateErr }

func (h *fakeHost) Unapplied(context.Context) ([]string, error) { return nil, nil }

func (h *fakeHost) Settings(cfg *config.App, _ *runtimedecl.Module) (*resolved.Settings, error) {
	h.settings++
	return resolved.New(resolved.Input{Config: cfg, Limits: cfg.Limits, Development: true, AppDir: h.dir, Clients: &h.clients})
}

func (h *fakeHost) Extend(context.Context, *runtimedecl.Module, []byte, int64) ([]byte, error) {
	return nil, errors.New("no runtime declaration in these tests")
}

func (h *fakeHost) AuthEnv() auth.Env {
	return auth.Env{AppDir: h.dir, Logger: slog.New(slog.DiscardHandler)}
}

// testConfig is the Config of a development load of the app in dir, whose
// first endpoints.json is first.
func testConfig(dir string, first *config.App) Config {
	return Config{Dir: appload.Dir(dir), Logger: slog.New(slog.DiscardHandler), Development: true, PoolSize: 1,
		First: first, RoutesConfig: "server/routes.config.json"}
}

func writeConfig(t *testing.T, dir, data string) *config.App {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, config.File), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(config.File, []byte(data))
	if err != nil {
		return nil
	}
	return cfg
}

// TestLoadStopsAtAFailedMigration: a failed migration means no version.
// A load, first or not, migrates once its settings hold, so that a load
// they refuse changes no database.
func TestLoadStopsAtAFailedMigration(t *testing.T) {
	failed := errors.New("migration 0002 failed")
	for _, tt := range []struct {
		name         string
		reload       bool
		wantSettings int
	}{
		{"first load", false, 1},
		{"reload", true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			h := &fakeHost{dir: dir}
			cfg := testConfig(dir, writeConfig(t, dir, `{}`))
			var prev *appversion.Version
			if tt.reload {
				var err error
				if prev, _, err = Load(context.Background(), h, cfg, nil); err != nil {
					t.Fatal(err)
				}
			}
			h.migrateErr, h.settings = failed, 0
			v, _, err := Load(context.Background(), h, cfg, prev)
			if !errors.Is(err, failed) || v != nil {
				t.Fatalf("Load = %v, %v; want no version and the migration's error", v, err)
			}
			if h.settings != tt.wantSettings {
				t.Errorf("the settings were resolved %d times, want %d", h.settings, tt.wantSettings)
			}
		})
	}
}

// TestFirstLoadRefusedBeforeMigrating: a first load whose settings fail
// does not migrate.
func TestFirstLoadRefusedBeforeMigrating(t *testing.T) {
	dir := t.TempDir()
	h := &countingHost{fakeHost: fakeHost{dir: dir}}
	_, _, err := Load(context.Background(), h, testConfig(dir, writeConfig(t, dir, `{"variables": {"token": {"file": "secrets/token"}}}`)), nil)
	if err == nil {
		t.Fatal("Load with a variable without a value succeeded")
	}
	if h.migrations != 0 {
		t.Errorf("a first load refused for its settings (%v) migrated %d times", err, h.migrations)
	}
}

// TestRefusedReloadDoesNotMigrate: a reload that refuses the new
// endpoints.json (a variable without a value, a file that does not parse)
// keeps the previous settings and migrates nothing; one whose
// endpoints.json holds migrates once.
func TestRefusedReloadDoesNotMigrate(t *testing.T) {
	for _, tt := range []struct {
		name, data     string
		wantMigrations int
	}{
		{"unchanged", `{}`, 1},
		{"changed", `{"limits": {"timeout": "3s"}}`, 1},
		{"a variable without a value", `{"variables": {"token": {"file": "secrets/token"}}}`, 0},
		{"not JSON", `{"limits": `, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			h := &countingHost{fakeHost: fakeHost{dir: dir}}
			cfg := testConfig(dir, writeConfig(t, dir, `{}`))
			first, _, err := Load(context.Background(), h, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			h.migrations = 0
			writeConfig(t, dir, tt.data)
			v, report, err := Load(context.Background(), h, cfg, first)
			if err != nil {
				t.Fatal(err)
			}
			if h.migrations != tt.wantMigrations {
				t.Errorf("the reload migrated %d times, want %d (problems %v)", h.migrations, tt.wantMigrations, report.Problems)
			}
			if refused := tt.wantMigrations == 0; refused != (len(report.Problems) == 1) || (refused && v.Set.Config != first.Set.Config) {
				t.Errorf("refused %v: problems %v, kept the previous endpoints.json %v", refused, report.Problems, v.Set.Config == first.Set.Config)
			}
		})
	}
}

// countingHost is a fakeHost that counts its migrations.
type countingHost struct {
	fakeHost
	migrations int
}

func (h *countingHost) Migrate(ctx context.Context) error {
	h.migrations++
	return h.fakeHost.Migrate(ctx)
}

func TestLoadOfAnAppWithoutModules(t *testing.T) {
	dir := t.TempDir()
	h := &fakeHost{dir: dir}
	v, report, err := Load(context.Background(), h, testConfig(dir, writeConfig(t, dir, `{}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Problems) > 0 || v.Doc == nil || v.Security == nil || v.DocErr != nil {
		t.Fatalf("version: problems %v, document %v (%v), security %v; want a document and a plan, no problem", v.Problems, v.Doc != nil, v.DocErr, v.Security != nil)
	}
	if len(report.Added)+len(report.Changed)+len(report.Removed)+len(report.Problems)+len(report.Warnings) > 0 {
		t.Errorf("report of a first load of nothing = %+v", report)
	}
}

// TestReloadOfEndpointsJSON: a reload reads endpoints.json again; a broken
// one keeps the previous settings and is reported once, a valid change is
// served and reported as changed.
func TestReloadOfEndpointsJSON(t *testing.T) {
	dir := t.TempDir()
	h := &fakeHost{dir: dir}
	cfg := testConfig(dir, writeConfig(t, dir, `{}`))
	first, _, err := Load(context.Background(), h, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, data  string
		wantChanged []string
		wantProblem bool
		keepsConfig bool
	}{
		{"unchanged", `{}`, nil, false, true},
		{"broken", `{"limits": {"timeout": "soon"}}`, nil, true, true},
		{"changed", `{"limits": {"timeout": "3s"}}`, []string{config.File}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeConfig(t, dir, tt.data)
			v, report, err := Load(context.Background(), h, cfg, first)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(report.Changed, tt.wantChanged) {
				t.Errorf("Changed = %v, want %v", report.Changed, tt.wantChanged)
			}
			if got := len(report.Problems) == 1; got != tt.wantProblem || len(report.Problems) > 1 {
				t.Errorf("Problems = %v, want a problem: %v", report.Problems, tt.wantProblem)
			}
			if got := v.Set.Config == first.Set.Config; got != tt.keepsConfig {
				t.Errorf("kept the previous endpoints.json: %v, want %v", got, tt.keepsConfig)
			}
			if got := v.Set.Limits.Timeout; (got == first.Set.Limits.Timeout) != tt.keepsConfig {
				t.Errorf("limits.timeout %v, first %v: want it kept %v", got, first.Set.Limits.Timeout, tt.keepsConfig)
			}
		})
	}
}

func TestNoteTellsAddedChangedAndRemoved(t *testing.T) {
	tests := []struct {
		now, before          bool
		added, changed, gone int
	}{
		{true, false, 1, 0, 0},
		{true, true, 0, 1, 0},
		{false, true, 0, 0, 1},
		{false, false, 0, 0, 0},
	}
	for _, tt := range tests {
		var l loading
		l.Note("server/api/a.get.wasm", tt.now, tt.before)
		if len(l.report.Added) != tt.added || len(l.report.Changed) != tt.changed || len(l.report.Removed) != tt.gone {
			t.Errorf("Note(now %v, before %v) = %+v", tt.now, tt.before, l.report)
		}
	}
}
