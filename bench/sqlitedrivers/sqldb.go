package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver" // "sqlite3"
	_ "modernc.org/sqlite"                   // "sqlite"
)

// sqlDB runs the statements through database/sql: one connection
// (SetMaxOpenConns(1), as one goroutine measures), every statement a
// *sql.Stmt prepared once, the transaction's through Tx.StmtContext. The
// PRAGMAs and BEGIN IMMEDIATE come from the DSN ("_pragma", "_txlock"),
// which both drivers read the same way.
//
// go-sqlite3's driver binds the i-th argument to SQLite's i-th parameter,
// and SQLite numbers "$N" parameters in their order of first appearance:
// sqlUpdate's arguments then go in that order (byIndex). modernc's driver
// binds "$N" to the N-th argument, as the host does.
type sqlDB struct {
	db                                               *sql.DB
	byIndex                                          bool
	get_, search_, insert_, update_, counter, order_ *sql.Stmt
}

// sqlDSN is the DSN of path with cfg's settings, in the form both drivers
// accept.
func sqlDSN(path string, cfg config) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout/time.Millisecond))
	for _, p := range cfg.pragmas() {
		// "PRAGMA journal_mode=WAL" -> "journal_mode(WAL)"
		name, value, _ := strings.Cut(strings.TrimPrefix(p, "PRAGMA "), "=")
		q.Add("_pragma", name+"("+value+")")
	}
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// openSQL opens path with the database/sql driver registered as driverName.
func openSQL(driverName string, byIndex bool) func(path string, cfg config) (runner, error) {
	return func(path string, cfg config) (runner, error) {
		db, err := sql.Open(driverName, sqlDSN(path, cfg))
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		r := &sqlDB{db: db, byIndex: byIndex}
		for _, s := range []struct {
			stmt **sql.Stmt
			sql  string
		}{{&r.get_, sqlGet}, {&r.search_, sqlSearch}, {&r.insert_, sqlInsert}, {&r.update_, sqlUpdate}, {&r.counter, sqlCounter}, {&r.order_, sqlOrder}} {
			if *s.stmt, err = db.Prepare(s.sql); err != nil {
				db.Close()
				return nil, fmt.Errorf("%s: preparing %q: %w", driverName, s.sql, err)
			}
		}
		return r, nil
	}
}

func (r *sqlDB) get(ctx context.Context, id int64) (user, error) {
	var u user
	err := r.get_.QueryRowContext(ctx, id).Scan(&u.ID, &u.Name, &u.Email)
	return u, err
}

func (r *sqlDB) search(ctx context.Context, pattern string, limit int64) (found, error) {
	rows, err := r.search_.QueryContext(ctx, pattern, limit)
	if err != nil {
		return found{}, err
	}
	defer rows.Close()
	var f found
	for rows.Next() {
		if err := rows.Scan(&f.last.ID, &f.last.Name, &f.last.Email, &f.total); err != nil {
			return found{}, err
		}
		f.rows++
	}
	return f, rows.Err()
}

func (r *sqlDB) insert(ctx context.Context, u user) error {
	_, err := r.insert_.ExecContext(ctx, u.ID, u.Name, u.Email)
	return err
}

func (r *sqlDB) update(ctx context.Context, id int64, name string) (user, error) {
	args := []any{id, name, nil} // $1, $2, $3
	if r.byIndex {
		args = []any{name, nil, id} // $2, $3, $1: SQLite's numbering
	}
	var u user
	err := r.update_.QueryRowContext(ctx, args...).Scan(&u.ID, &u.Name, &u.Email)
	return u, err
}

func (r *sqlDB) order(ctx context.Context, userID int64) (int64, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	counter, order := tx.StmtContext(ctx, r.counter), tx.StmtContext(ctx, r.order_)
	var id int64
	for range txPairs {
		if err := counter.QueryRowContext(ctx, "orders").Scan(&id); err != nil {
			return 0, err
		}
		if _, err := order.ExecContext(ctx, id, userID, orderItem, orderDate); err != nil {
			return 0, err
		}
	}
	return id, tx.Commit()
}

func (r *sqlDB) text(ctx context.Context, sql string) (string, error) {
	rows, err := r.db.QueryContext(ctx, sql)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var s string
	if rows.Next() {
		if err := rows.Scan(&s); err != nil {
			return "", err
		}
	}
	return s, rows.Err()
}

func (r *sqlDB) close() error {
	for _, s := range []*sql.Stmt{r.get_, r.search_, r.insert_, r.update_, r.counter, r.order_} {
		if s != nil {
			s.Close()
		}
	}
	return r.db.Close()
}
