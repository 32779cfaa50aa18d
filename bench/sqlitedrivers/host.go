package main

import (
	"context"
	"fmt"

	"github.com/wasmendpoints/endpoints/database"
)

// hostDB runs the statements through the host's own SQLite driver
// (database/sqlite.go on go-sqlite3): what a guest's statement costs the
// host, its statement cache, authorizer, parameter binding by number and
// pool included, its rows read with Values as the result encoder does.
// Its PRAGMAs are the host's own (synchronous=NORMAL whatever -sync says).
type hostDB struct{ db database.DB }

func openHost(path string, _ config) (runner, error) {
	db, err := database.Open(context.Background(), database.DriverSQLite, database.Options{Path: path, MaxConns: 1})
	if err != nil {
		return nil, err
	}
	return &hostDB{db: db}, nil
}

// one reads the single row of a statement that returns one.
func one(rows database.Rows, err error) ([]any, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, errNoRow
	}
	return rows.Values()
}

// hostUser is the user of a row's values.
func hostUser(v []any) (user, error) {
	id, ok1 := v[0].(int64)
	name, ok2 := v[1].(string)
	email, ok3 := v[2].(string)
	if !ok1 || !ok2 || !ok3 {
		return user{}, fmt.Errorf("unexpected row %v", v)
	}
	return user{ID: id, Name: name, Email: email}, nil
}

func (h *hostDB) get(ctx context.Context, id int64) (user, error) {
	v, err := one(h.db.Query(ctx, sqlGet, []any{id}))
	if err != nil {
		return user{}, err
	}
	return hostUser(v)
}

func (h *hostDB) search(ctx context.Context, pattern string, limit int64) (found, error) {
	rows, err := h.db.Query(ctx, sqlSearch, []any{pattern, limit})
	if err != nil {
		return found{}, err
	}
	defer rows.Close()
	var f found
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			return found{}, err
		}
		if f.last, err = hostUser(v); err != nil {
			return found{}, err
		}
		f.total, _ = v[3].(int64)
		f.rows++
	}
	return f, rows.Err()
}

func (h *hostDB) insert(ctx context.Context, u user) error {
	_, err := h.db.Exec(ctx, sqlInsert, []any{u.ID, u.Name, u.Email})
	return err
}

func (h *hostDB) update(ctx context.Context, id int64, name string) (user, error) {
	v, err := one(h.db.Query(ctx, sqlUpdate, []any{id, name, nil}))
	if err != nil {
		return user{}, err
	}
	return hostUser(v)
}

func (h *hostDB) order(ctx context.Context, userID int64) (int64, error) {
	tx, err := h.db.Begin(ctx, database.TxOptions{})
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	var id int64
	for range txPairs {
		v, err := one(tx.Query(ctx, sqlCounter, []any{"orders"}))
		if err != nil {
			return 0, err
		}
		id, _ = v[0].(int64)
		if _, err := tx.Exec(ctx, sqlOrder, []any{id, userID, orderItem, orderDate}); err != nil {
			return 0, err
		}
	}
	return id, tx.Commit(ctx)
}

// text runs the host's own statements (PRAGMAs that set, cleanup) in a
// migration, where the guests' authorizer does not apply.
func (h *hostDB) text(ctx context.Context, sql string) (string, error) {
	var s string
	err := h.db.Migrate(ctx, func(m database.Migration) error {
		rows, err := m.Query(ctx, sql, nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		if rows.Next() {
			v, err := rows.Values()
			if err != nil {
				return err
			}
			s = fmt.Sprint(v[0])
		}
		return rows.Err()
	})
	return s, err
}

func (h *hostDB) close() error { return h.db.Close() }
