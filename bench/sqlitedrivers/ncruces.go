package main

import (
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// ncrucesDirect runs the statements through go-sqlite3's own API, the way
// database/sqlite.go does: a connection opened with OpenFlags, the busy
// timeout and PRAGMAs set on it, ATTACH limited to 0, statements prepared
// once and reset and cleared after each use, the statement's context set
// with SetInterrupt before each, BEGIN IMMEDIATE and COMMIT run with Exec.
type ncrucesDirect struct {
	conn *sqlite3.Conn
	// statements, prepared once
	get_, search_, insert_, update_, counter, order_ *sqlite3.Stmt
	// update's parameters by name (SQLite numbers them by first use)
	updID, updName, updEmail int
}

func openNcrucesDirect(path string, cfg config) (runner, error) {
	conn, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE)
	if err != nil {
		return nil, err
	}
	r := &ncrucesDirect{conn: conn}
	if err := r.setup(cfg); err != nil {
		conn.Close()
		return nil, fmt.Errorf("ncruces: setting up %s: %w", path, err)
	}
	return r, nil
}

func (r *ncrucesDirect) setup(cfg config) error {
	if err := r.conn.BusyTimeout(busyTimeout); err != nil {
		return err
	}
	for _, p := range cfg.pragmas() {
		if err := r.conn.Exec(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	r.conn.Limit(sqlite3.LIMIT_ATTACHED, 0)
	for _, s := range []struct {
		stmt **sqlite3.Stmt
		sql  string
	}{{&r.get_, sqlGet}, {&r.search_, sqlSearch}, {&r.insert_, sqlInsert}, {&r.update_, sqlUpdate}, {&r.counter, sqlCounter}, {&r.order_, sqlOrder}} {
		stmt, _, err := r.conn.PrepareFlags(s.sql, sqlite3.PREPARE_PERSISTENT)
		if err != nil {
			return fmt.Errorf("preparing %q: %w", s.sql, err)
		}
		*s.stmt = stmt
	}
	r.updID, r.updName, r.updEmail = r.update_.BindIndex("$1"), r.update_.BindIndex("$2"), r.update_.BindIndex("$3")
	return nil
}

// done resets a statement and clears its parameters, as the host's
// statement cache does when it takes one back.
func done(stmt *sqlite3.Stmt) error {
	stmt.Reset()
	return stmt.ClearBindings()
}

// rowError is the error of a statement whose step found no row or failed.
func rowError(stmt *sqlite3.Stmt) error {
	if err := stmt.Err(); err != nil {
		return err
	}
	return errNoRow
}

func (r *ncrucesDirect) get(ctx context.Context, id int64) (user, error) {
	r.conn.SetInterrupt(ctx)
	s := r.get_
	defer done(s)
	if err := s.BindInt64(1, id); err != nil {
		return user{}, err
	}
	if !s.Step() {
		return user{}, rowError(s)
	}
	return user{ID: s.ColumnInt64(0), Name: s.ColumnText(1), Email: s.ColumnText(2)}, nil
}

func (r *ncrucesDirect) search(ctx context.Context, pattern string, limit int64) (found, error) {
	r.conn.SetInterrupt(ctx)
	s := r.search_
	defer done(s)
	if err := s.BindText(1, pattern); err != nil {
		return found{}, err
	}
	if err := s.BindInt64(2, limit); err != nil {
		return found{}, err
	}
	var f found
	for s.Step() {
		f.last = user{ID: s.ColumnInt64(0), Name: s.ColumnText(1), Email: s.ColumnText(2)}
		f.total = s.ColumnInt64(3)
		f.rows++
	}
	return f, s.Err()
}

func (r *ncrucesDirect) insert(ctx context.Context, u user) error {
	r.conn.SetInterrupt(ctx)
	s := r.insert_
	defer done(s)
	if err := s.BindInt64(1, u.ID); err != nil {
		return err
	}
	if err := s.BindText(2, u.Name); err != nil {
		return err
	}
	if err := s.BindText(3, u.Email); err != nil {
		return err
	}
	return s.Exec()
}

func (r *ncrucesDirect) update(ctx context.Context, id int64, name string) (user, error) {
	r.conn.SetInterrupt(ctx)
	s := r.update_
	defer done(s)
	if err := s.BindInt64(r.updID, id); err != nil {
		return user{}, err
	}
	if err := s.BindText(r.updName, name); err != nil {
		return user{}, err
	}
	if err := s.BindNull(r.updEmail); err != nil {
		return user{}, err
	}
	if !s.Step() {
		return user{}, rowError(s)
	}
	u := user{ID: s.ColumnInt64(0), Name: s.ColumnText(1), Email: s.ColumnText(2)}
	if s.Step() || s.Err() != nil {
		return user{}, fmt.Errorf("update: a second row or an error: %v", s.Err())
	}
	return u, nil
}

func (r *ncrucesDirect) order(ctx context.Context, userID int64) (int64, error) {
	r.conn.SetInterrupt(ctx)
	if err := r.conn.Exec("BEGIN IMMEDIATE"); err != nil {
		return 0, err
	}
	id, err := r.orders(userID)
	if err != nil {
		r.conn.Exec("ROLLBACK")
		return 0, err
	}
	return id, r.conn.Exec("COMMIT")
}

// orders runs the transaction's statements.
func (r *ncrucesDirect) orders(userID int64) (int64, error) {
	var id int64
	for range txPairs {
		c := r.counter
		if err := c.BindText(1, "orders"); err != nil {
			return 0, err
		}
		if !c.Step() {
			err := rowError(c)
			done(c)
			return 0, err
		}
		id = c.ColumnInt64(0)
		if err := done(c); err != nil {
			return 0, err
		}
		o := r.order_
		o.BindInt64(1, id)
		o.BindInt64(2, userID)
		o.BindText(3, orderItem)
		o.BindText(4, orderDate)
		err := o.Exec()
		done(o)
		if err != nil {
			return 0, err
		}
	}
	return id, nil
}

func (r *ncrucesDirect) text(ctx context.Context, sql string) (string, error) {
	r.conn.SetInterrupt(ctx)
	s, _, err := r.conn.Prepare(sql)
	if err != nil {
		return "", err
	}
	defer s.Close()
	if !s.Step() {
		return "", s.Err()
	}
	return s.ColumnText(0), nil
}

func (r *ncrucesDirect) close() error {
	for _, s := range []*sqlite3.Stmt{r.get_, r.search_, r.insert_, r.update_, r.counter, r.order_} {
		if s != nil {
			s.Close()
		}
	}
	return r.conn.Close()
}
