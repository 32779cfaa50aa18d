package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ncruces/go-sqlite3"
)

// seedFile makes the database every variant starts from: the example's
// migrations applied in order, then users up to users in all (ids 4 and
// up, as seededUser names them), the users counter set past them, the
// WAL checkpointed into the file.
func seedFile(path, migrations string, users int, cfg config) error {
	files, err := filepath.Glob(filepath.Join(migrations, "*.sql"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no .sql file")
	}
	if err != nil {
		return fmt.Errorf("reading the example's migrations in %s: %v; run from bench/sqlitedrivers or pass -migrations", migrations, err)
	}
	slices.Sort(files)
	conn, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, p := range cfg.pragmas() {
		if err := conn.Exec(p); err != nil {
			return fmt.Errorf("seeding %s: %s: %w", path, p, err)
		}
	}
	for _, f := range files {
		script, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := conn.Exec(string(script)); err != nil {
			return fmt.Errorf("applying %s: %w", f, err)
		}
	}
	var seeded int
	if err := scanInt(conn, "SELECT count(*) FROM users", &seeded); err != nil {
		return err
	}
	insert, _, err := conn.Prepare(sqlInsert)
	if err != nil {
		return err
	}
	defer insert.Close()
	if err := conn.Exec("BEGIN"); err != nil {
		return err
	}
	for id := seeded + 1; id <= users; id++ {
		u := seededUser(int64(id))
		insert.BindInt64(1, u.ID)
		insert.BindText(2, u.Name)
		insert.BindText(3, u.Email)
		if err := insert.Exec(); err != nil {
			return fmt.Errorf("seeding user %d: %w", id, err)
		}
		insert.Reset()
	}
	if err := conn.Exec(fmt.Sprintf("UPDATE counters SET value = %d WHERE name = 'users'; COMMIT; PRAGMA wal_checkpoint(TRUNCATE)", users)); err != nil {
		return err
	}
	return nil
}

// scanInt reads the integer a query returns.
func scanInt(conn *sqlite3.Conn, sql string, v *int) error {
	s, _, err := conn.Prepare(sql)
	if err != nil {
		return err
	}
	defer s.Close()
	if !s.Step() {
		return rowError(s)
	}
	*v = s.ColumnInt(0)
	return nil
}

// copyFile copies the database file src to dst, making dst's directory.
// src has no WAL: seedFile checkpointed it and closed its connection.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
