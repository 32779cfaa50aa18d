package appdb_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/database/postgres"
	"github.com/wasmendpoints/endpoints/internal/appdb"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// TestMigrateTogether: two hosts (two Sets) that start together on one
// PostgreSQL, both finding the migrations pending, apply each migration
// once between them, and each reports only those it applied itself: the
// other one waited for the migration lock and found it applied. The lock
// is held until both wait for it, so both read the migrations as pending.
func TestMigrateTogether(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	dir := writeApp(t, map[string]string{
		"server/migrations/001-users.sql":  "CREATE TABLE users (id BIGINT PRIMARY KEY);",
		"server/migrations/002-orders.sql": "CREATE TABLE orders (id BIGINT PRIMARY KEY); INSERT INTO orders VALUES (1);",
	})
	dbs := map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: url}}
	ctx := t.Context()

	holder, err := database.Open(ctx, database.DriverPostgres, database.Options{URL: url, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- holder.Migrate(ctx, func(database.Migration) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding

	type result struct {
		done []appdb.Migration
		err  error
	}
	results := make(chan result, 2)
	for range 2 {
		set := appdb.New(dir, dbs)
		defer set.Close()
		go func() {
			done, err := set.Migrate(ctx, appdb.MigrateOptions{})
			results <- result{done, err}
		}()
	}
	if !poll.Until(10*time.Second, func() bool { return lockWaiters(t, holder) == 2 }) {
		t.Fatal("the two hosts are not seen waiting for the migration lock")
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	var files []string
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatalf("a host's migration: %v", r.err)
		}
		for _, m := range r.done {
			files = append(files, m.File)
		}
	}
	slices.Sort(files)
	if want := []string{"server/migrations/001-users.sql", "server/migrations/002-orders.sql"}; !slices.Equal(files, want) {
		t.Errorf("the hosts reported applying %v between them, want each migration once: %v", files, want)
	}
	rows, err := holder.Query(context.WithoutCancel(ctx), "SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM "+appdb.Table+")", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	rows.Next()
	if vals, err := rows.Values(); err != nil || vals[0] != int64(1) || vals[1] != int64(2) {
		t.Errorf("orders rows, migrations recorded = %v, %v; want 1, 2", vals, err)
	}
}

// TestMigrateWaitedFindsChangedMigration: a host that waited for the
// migration lock while another applied a different version of one of its
// migrations (another release of the app) refuses it, as it refuses a
// migration changed since it was applied, instead of taking it as its own.
func TestMigrateWaitedFindsChangedMigration(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	dir := writeApp(t, map[string]string{
		"server/migrations/001-users.sql": "CREATE TABLE users (id BIGINT PRIMARY KEY);",
	})
	dbs := map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: url}}
	ctx := t.Context()

	holder, err := database.Open(ctx, database.DriverPostgres, database.Options{URL: url, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- holder.Migrate(ctx, func(tx database.Migration) error {
			close(holding)
			<-release
			// The other release's 001: another table, so another checksum.
			if err := tx.Script(ctx, "CREATE TABLE "+appdb.Table+" (version BIGINT PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL); CREATE TABLE people (id BIGINT PRIMARY KEY);"); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO "+appdb.Table+" VALUES (1, 'users', 'f00d', '2026-11-27T00:00:00Z')", nil)
			return err
		})
	}()
	<-holding

	set := appdb.New(dir, dbs)
	defer set.Close()
	result := make(chan error, 1)
	go func() {
		_, err := set.Migrate(ctx, appdb.MigrateOptions{})
		result <- err
	}()
	if !poll.Until(10*time.Second, func() bool { return lockWaiters(t, holder) == 1 }) {
		t.Fatal("the host is not seen waiting for the migration lock")
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	err = <-result
	if err == nil || !strings.Contains(err.Error(), `server/migrations/001-users.sql: changed since it was applied to database "main"`) {
		t.Errorf("a migration another host applied in another version: %v; want it refused as changed", err)
	}
}

// lockWaiters counts the sessions waiting for the migration lock.
func lockWaiters(t *testing.T, db database.DB) int64 {
	rows, err := db.Query(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
		AND (classid::bigint << 32 | objid::bigint) = $1 AND objsubid = 1 AND NOT granted`, []any{postgres.MigrationLock})
	if err != nil {
		t.Log(err)
		return -1
	}
	defer rows.Close()
	if !rows.Next() {
		return -1
	}
	vals, err := rows.Values()
	if err != nil {
		t.Log(err)
		return -1
	}
	n, _ := vals[0].(int64)
	return n
}
