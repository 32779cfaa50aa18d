package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const testMigrations = "../../examples/users/server/migrations"

// openAll seeds a file and opens a copy of it with every variant.
func openAll(t *testing.T, cfg config) map[string]runner {
	t.Helper()
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.db")
	if err := seedFile(seed, testMigrations, 1000, cfg); err != nil {
		t.Fatal(err)
	}
	rs := map[string]runner{}
	for _, v := range variants {
		path := filepath.Join(dir, v.name, "users.db")
		if err := copyFile(seed, path); err != nil {
			t.Fatal(err)
		}
		r, err := v.open(path, cfg)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		t.Cleanup(func() {
			if err := r.close(); err != nil {
				t.Errorf("%s: close: %v", v.name, err)
			}
		})
		rs[v.name] = r
	}
	return rs
}

// TestVariantsAnswerAlike checks that every variant runs the statements
// with the same settings and gets the same answers, so that the benchmark
// compares the same work.
func TestVariantsAnswerAlike(t *testing.T) {
	ctx := context.Background()
	// Users 4-1000 match "%1%" when their number has a 1 in it; the
	// example's users 1-3 (Ada, Grace, Alan) do not.
	// The 50th is the last row of the search.
	wantTotal, wantLast := int64(0), user{}
	for i := 4; i <= 1000; i++ {
		if strings.Contains(strconv.Itoa(i), "1") {
			if wantTotal++; wantTotal == searchLimit {
				wantLast = seededUser(int64(i))
			}
		}
	}
	for name, r := range openAll(t, config{synchronous: "NORMAL", deadline: true}) {
		t.Run(name, func(t *testing.T) {
			if name != "host" {
				s, err := readSettings(r, name)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := strings.Join(s[1:], " "), "wal 1 1 5000"; got != want {
					t.Errorf("journal_mode, synchronous, foreign_keys, busy_timeout = %s, want %s", got, want)
				}
			}
			if u, err := r.get(ctx, 2); err != nil || u != (user{2, "Grace Hopper", "grace@example.com"}) {
				t.Errorf("get(2) = %v, %v", u, err)
			}
			if u, err := r.get(ctx, 777); err != nil || u != seededUser(777) {
				t.Errorf("get(777) = %v, %v", u, err)
			}
			if f, err := r.search(ctx, searchPattern, searchLimit); err != nil || f != (found{searchLimit, wantTotal, wantLast}) {
				t.Errorf("search = %+v, %v; want %d rows, total %d, last %v", f, err, searchLimit, wantTotal, wantLast)
			}
			if err := r.insert(ctx, seededUser(1001)); err != nil {
				t.Errorf("insert: %v", err)
			}
			if err := r.insert(ctx, seededUser(1001)); err == nil {
				t.Error("inserting user 1001 twice: no error")
			}
			if u, err := r.get(ctx, 1001); err != nil || u != seededUser(1001) {
				t.Errorf("get(1001) after insert = %v, %v", u, err)
			}
			if u, err := r.update(ctx, 3, "Alan M. Turing"); err != nil || u != (user{3, "Alan M. Turing", "alan@example.com"}) {
				t.Errorf("update(3) = %v, %v", u, err)
			}
			if id, err := r.order(ctx, 5); err != nil || id != txPairs {
				t.Errorf("order = %d, %v; want order %d", id, err, txPairs)
			}
			if got, err := r.text(ctx, "SELECT count(*) FROM orders WHERE user_id = 5"); err != nil || got != strconv.Itoa(txPairs) {
				t.Errorf("orders of user 5 = %s, %v; want %d", got, err, txPairs)
			}
			// foreign_keys=ON: an order of no user fails, and the
			// transaction leaves nothing.
			if _, err := r.order(ctx, 5000); err == nil {
				t.Error("an order of user 5000, who does not exist: no error")
			}
			if got, err := r.text(ctx, "SELECT count(*) FROM orders"); err != nil || got != strconv.Itoa(txPairs) {
				t.Errorf("orders after the failed transaction = %s, %v; want %d", got, err, txPairs)
			}
		})
	}
}

// TestVariantsStopAtTheDeadline checks that every variant stops a
// statement whose context has ended, as the host's must: go-sqlite3 and
// the modernc/lib variant through their progress handlers, database/sql
// before it starts.
func TestVariantsStopAtTheDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, r := range openAll(t, config{synchronous: "NORMAL", deadline: true}) {
		_, err := r.search(ctx, searchPattern, searchLimit)
		if err == nil {
			t.Errorf("%s: a search with an ended context: no error", name)
		}
		t.Logf("%s: %v", name, err)
		// The connection still serves the next statement.
		if _, err := r.get(context.Background(), 1); err != nil {
			t.Errorf("%s: get after the interrupted search: %v", name, err)
		}
	}
}

// TestSynchronousSettings checks -sync: the value asked for, or each
// driver's own with "default" (go-sqlite3 NORMAL in WAL mode, modernc
// FULL), the difference the old measure missed.
func TestSynchronousSettings(t *testing.T) {
	for _, tc := range []struct {
		sync string
		want map[string]string
	}{
		{"FULL", map[string]string{"ncruces": "2", "ncruces-sql": "2", "modernc-sql": "2", "modernc-lib": "2"}},
		{"default", map[string]string{"ncruces": "1", "ncruces-sql": "1", "modernc-sql": "2", "modernc-lib": "2"}},
	} {
		for name, r := range openAll(t, config{synchronous: tc.sync}) {
			if name == "host" {
				continue
			}
			if got, err := r.text(context.Background(), "PRAGMA synchronous"); err != nil || got != tc.want[name] {
				t.Errorf("-sync %s: %s runs with synchronous %s (%v), want %s", tc.sync, name, got, err, tc.want[name])
			}
		}
	}
}

// TestRunReports runs a tiny benchmark and checks that the report has a
// table per statement with a row per variant.
func TestRunReports(t *testing.T) {
	var out bytes.Buffer
	if err := run(2, 3, 1, 1000, config{synchronous: "NORMAL", deadline: true}, "", "", testMigrations, t.TempDir(), true, &out); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	for _, o := range ops(1000) {
		i := strings.Index(report, "## "+o.name+":")
		if i < 0 {
			t.Fatalf("no table for %s in\n%s", o.name, report)
		}
		table := report[i:]
		if j := strings.Index(table[3:], "## "); j >= 0 {
			table = table[:j+3]
		}
		for _, v := range variants {
			if !strings.Contains(table, "| "+v.name+" | ") {
				t.Errorf("the %s table has no row for %s:\n%s", o.name, v.name, table)
			}
		}
	}
	if err := run(1, 1, 0, 1000, config{synchronous: "NORMAL"}, "nope", "", testMigrations, t.TempDir(), true, &out); err == nil || !strings.Contains(err.Error(), "known: ncruces") {
		t.Errorf("an unknown variant: %v", err)
	}
}
