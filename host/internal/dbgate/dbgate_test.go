package dbgate_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	_ "github.com/wasmendpoints/endpoints/database/postgres"
	"github.com/wasmendpoints/endpoints/host/internal/dbgate"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// records is a slog.Handler that keeps each record as "LEVEL message
// database=name", with its migration and file when it has them.
type records struct{ lines *[]string }

func (r records) Enabled(context.Context, slog.Level) bool { return true }
func (r records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r records) WithGroup(string) slog.Handler            { return r }
func (r records) Handle(_ context.Context, rec slog.Record) error {
	line := rec.Level.String() + " " + strings.SplitN(rec.Message, ":", 2)[0]
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "database" || a.Key == "migration" || a.Key == "file" {
			line += " " + a.Key + "=" + a.Value.String()
		}
		return true
	})
	*r.lines = append(*r.lines, line)
	return nil
}

func TestNoteLogsEachChangeOnce(t *testing.T) {
	down := &database.Error{Code: database.CodeUnavailable, Message: "connection refused"}
	broken := errors.New("migration 2 failed")
	email := appdb.Record{Version: 3, Name: "email", Checksum: "c0ffee", AppliedAt: "2026-11-27T18:00:00Z"}
	unknown := appdb.Note{Kind: appdb.NoteUnknown, Database: "main", Record: email}
	late := appdb.Note{Kind: appdb.NoteOutOfOrder, Database: "main", Migration: appdb.Migration{Database: "main", Version: 2, File: "server/migrations/002-orders.sql"}, Later: []appdb.Record{email}}
	tests := []struct {
		name     string
		attempts []appdb.Attempt
		want     []string
	}{
		{"an unreachable database, once however many attempts fail",
			[]appdb.Attempt{{Pending: map[string]error{"main": down}}, {Pending: map[string]error{"main": down}}},
			[]string{"WARN database not ready database=main"}},
		{"then reached",
			[]appdb.Attempt{{Pending: map[string]error{"main": down}}, {Applied: []appdb.Migration{{Database: "main", File: "server/migrations/1_a.sql"}}}},
			[]string{"WARN database not ready database=main", "INFO migration applied file=server/migrations/1_a.sql database=main", "INFO database ready database=main"}},
		{"a failed migration is logged where it failed, not as unreachable",
			[]appdb.Attempt{{Failed: []error{broken}, Pending: map[string]error{"main": broken}}},
			[]string{"ERROR migration failed"}},
		{"two databases in name order",
			[]appdb.Attempt{{Pending: map[string]error{"b": down, "a": down}}, {}},
			[]string{"WARN database not ready database=a", "WARN database not ready database=b", "INFO database ready database=a", "INFO database ready database=b"}},
		{"nothing waits: nothing logged", []appdb.Attempt{{}, {}}, nil},
		{"a note is a warning, at each load that finds it",
			[]appdb.Attempt{{Notes: []appdb.Note{unknown}}, {Notes: []appdb.Note{unknown, late}}},
			[]string{"WARN the database has a migration applied of which this app has no file database=main migration=003-email.sql",
				"WARN the database has a migration applied of which this app has no file database=main migration=003-email.sql",
				"WARN a migration runs after migrations of higher numbers applied before it (a file added out of order, a merge of two branches?) database=main file=server/migrations/002-orders.sql"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			logger := slog.New(records{&lines})
			set := appdb.New(t.TempDir(), map[string]config.Database{"main": {}, "a": {}, "b": {}})
			defer set.Close()
			var r dbgate.Retry
			for _, a := range tt.attempts {
				r.Note(logger, set, a)
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("logged\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestNotReadyNamesTheSettingToFix: the warning of a database that
// cannot be reached says what to check and names the setting that says
// where the database is, and the variable that overrides it where the app
// is deployed: an operator reading it knows what to fix.
func TestNotReadyNamesTheSettingToFix(t *testing.T) {
	down := &database.Error{Code: database.CodeUnavailable, Message: "connection refused"}
	set := appdb.New(t.TempDir(), map[string]config.Database{
		"main":    {Driver: config.DatabasePostgres, URL: "postgres://app@127.0.0.1:1/app"},
		"reports": {Driver: config.DatabaseSQLite, Path: "/nonexistent/reports.db"},
	})
	defer set.Close()
	var logs strings.Builder
	var r dbgate.Retry
	r.Note(slog.New(slog.NewTextHandler(&logs, nil)), set, appdb.Attempt{Pending: map[string]error{"main": down, "reports": down}})
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("logged %d lines, want one per database:\n%s", len(lines), logs.String())
	}
	for i, want := range [][]string{
		{"database=main", "is the PostgreSQL server running", "endpoints.json's /databases/main/url, or ENDPOINTS_DATABASES_MAIN_URL where the app is deployed"},
		{"database=reports", "check that its file can be opened", "endpoints.json's /databases/reports/path, or ENDPOINTS_DATABASES_REPORTS_PATH where the app is deployed"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("the warning\n%s\ndoes not say %q", lines[i], w)
			}
		}
	}
}

func TestRetryAfterIsAtLeastASecond(t *testing.T) {
	var r dbgate.Retry
	if got := r.RetryAfter(); got != "1" {
		t.Errorf("RetryAfter() with no attempt planned = %q, want 1", got)
	}
}

func TestClosedRetryDoesNotStart(t *testing.T) {
	set := appdb.New(t.TempDir(), map[string]config.Database{})
	defer set.Close()
	var r dbgate.Retry
	r.Close()
	r.Start(set, slog.New(slog.DiscardHandler), appdb.Backoff{Min: 1, Max: 1})
	if r.Running() {
		t.Error("Start after Close runs attempts")
	}
}

func TestMigrateWithNothingToApply(t *testing.T) {
	dir := t.TempDir()
	set := appdb.New(dir, map[string]config.Database{"main": {Driver: config.DatabaseSQLite, Path: filepath.Join(dir, "main.db")}})
	defer set.Close()
	var r dbgate.Retry
	defer r.Close()
	if err := r.Migrate(context.Background(), set, slog.New(slog.DiscardHandler), appdb.Backoff{Min: 1, Max: 1}); err != nil {
		t.Fatal(err)
	}
	if r.Running() {
		t.Error("attempts run with no database waiting")
	}
}

func TestWaitsErrorNamesTheDatabase(t *testing.T) {
	err := &dbgate.WaitsError{Database: "main", Err: errors.New("connection refused")}
	if got, want := err.Error(), `database "main" is not ready: connection refused`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestGateStopsACallOnAWaitingDatabase runs against a PostgreSQL address
// where nothing listens: its migrations wait, the retry runs until Close,
// and a statement on it panics with a *WaitsError naming it.
func TestGateStopsACallOnAWaitingDatabase(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	migrations := filepath.Join(dir, filepath.FromSlash(appdb.MigrationsDir))
	if err := os.MkdirAll(migrations, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(migrations, "001-init.sql"), []byte("create table t (id int);"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := appdb.New(dir, map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: "postgres://u:p@" + addr + "/db?connect_timeout=2"}})
	defer set.Close()
	var r dbgate.Retry
	if err := r.Migrate(context.Background(), set, slog.New(slog.DiscardHandler), appdb.Backoff{Min: time.Hour, Max: time.Hour}); err != nil {
		t.Fatalf("Migrate: %v, want the database to wait", err)
	}
	if !r.Running() {
		t.Error("no attempts run for the database that waits")
	}
	g := dbgate.New(appdb.NewSession(set, context.Background(), time.Now().Add(time.Minute), 1<<10, appdb.Hooks{}), set)
	func() {
		defer func() {
			var waits *dbgate.WaitsError
			if err, _ := recover().(error); !errors.As(err, &waits) || waits.Database != "main" {
				t.Errorf("a statement on the waiting database panicked with %v, want a *WaitsError for main", err)
			}
		}()
		g.Run([]byte("main"), []byte("select 1"), []byte("[]"), false)
	}()
	r.Close()
	if r.Running() {
		t.Error("attempts still run after Close")
	}
}
