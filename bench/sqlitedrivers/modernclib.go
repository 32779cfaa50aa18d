package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// moderncLib runs the statements through modernc.org/sqlite/lib, SQLite's
// C API translated to Go: modernc's only API besides database/sql. It is
// used as a host would use it in place of go-sqlite3's: statements
// prepared once (SQLITE_PREPARE_PERSISTENT), reset and cleared after each
// use, texts bound with SQLITE_TRANSIENT (SQLite copies them), and a
// progress handler every 1000 virtual machine steps that stops a
// statement whose context ended, as go-sqlite3's SetInterrupt does. The
// connection is opened SQLITE_OPEN_NOMUTEX: like go-sqlite3's build
// (SQLITE_THREADSAFE=0), it is used by one goroutine at a time.
type moderncLib struct {
	tls *libc.TLS
	db  uintptr
	ctx context.Context // the statement's, read by the progress handler
	out *libcOut
	// statements, prepared once
	get_, search_, insert_, update_, counter, order_ uintptr
	updID, updName, updEmail                         int32
}

// libcOut receives a C function's pointer results; Go's heap does not
// move it, so its fields' addresses can be handed to the C code.
type libcOut struct{ p uintptr }

// moderncConns maps a connection's handle to its runner, for the progress
// handler (a C function pointer cannot carry a Go value).
var moderncConns sync.Map // uintptr -> *moderncLib

// moderncProgress is the progress handler: non-zero interrupts the
// statement.
func moderncProgress(_ *libc.TLS, db uintptr) int32 {
	if r, ok := moderncConns.Load(db); ok && r.(*moderncLib).ctx.Err() != nil {
		return 1
	}
	return 0
}

// cFunc is the C function pointer of a Go function, as modernc.org/sqlite
// makes its own (a Go func value is a pointer to its code pointer).
func cFunc[T any](f T) uintptr { return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f})) }

func openModerncLib(path string, cfg config) (runner, error) {
	r := &moderncLib{tls: libc.NewTLS(), ctx: context.Background(), out: new(libcOut)}
	cpath, err := libc.CString(path)
	if err != nil {
		r.tls.Close()
		return nil, err
	}
	rc := lib.Xsqlite3_open_v2(r.tls, cpath, uintptr(unsafe.Pointer(&r.out.p)), lib.SQLITE_OPEN_READWRITE|lib.SQLITE_OPEN_CREATE|lib.SQLITE_OPEN_NOMUTEX, 0)
	libc.Xfree(r.tls, cpath)
	r.db = r.out.p
	if rc != lib.SQLITE_OK {
		err := r.error(rc)
		r.close()
		return nil, fmt.Errorf("modernc-lib: opening %s: %w", path, err)
	}
	if err := r.setup(cfg); err != nil {
		r.close()
		return nil, fmt.Errorf("modernc-lib: setting up %s: %w", path, err)
	}
	return r, nil
}

func (r *moderncLib) setup(cfg config) error {
	if rc := lib.Xsqlite3_busy_timeout(r.tls, r.db, int32(busyTimeout.Milliseconds())); rc != lib.SQLITE_OK {
		return r.error(rc)
	}
	for _, p := range cfg.pragmas() {
		if err := r.exec(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	lib.Xsqlite3_limit(r.tls, r.db, lib.SQLITE_LIMIT_ATTACHED, 0)
	moderncConns.Store(r.db, r)
	lib.Xsqlite3_progress_handler(r.tls, r.db, 1000, cFunc(moderncProgress), r.db)
	for _, s := range []struct {
		stmt *uintptr
		sql  string
	}{{&r.get_, sqlGet}, {&r.search_, sqlSearch}, {&r.insert_, sqlInsert}, {&r.update_, sqlUpdate}, {&r.counter, sqlCounter}, {&r.order_, sqlOrder}} {
		stmt, err := r.prepare(s.sql, lib.SQLITE_PREPARE_PERSISTENT)
		if err != nil {
			return fmt.Errorf("preparing %q: %w", s.sql, err)
		}
		*s.stmt = stmt
	}
	for _, p := range []struct {
		idx  *int32
		name string
	}{{&r.updID, "$1"}, {&r.updName, "$2"}, {&r.updEmail, "$3"}} {
		cname, err := libc.CString(p.name)
		if err != nil {
			return err
		}
		*p.idx = lib.Xsqlite3_bind_parameter_index(r.tls, r.update_, cname)
		libc.Xfree(r.tls, cname)
	}
	return nil
}

// error is the connection's error message for rc.
func (r *moderncLib) error(rc int32) error {
	if r.db == 0 {
		return fmt.Errorf("sqlite error %d", rc)
	}
	return fmt.Errorf("%s (%d)", libc.GoString(lib.Xsqlite3_errmsg(r.tls, r.db)), rc)
}

// prepare prepares the one statement of sql.
func (r *moderncLib) prepare(sql string, flags uint32) (uintptr, error) {
	csql, err := libc.CString(sql)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(r.tls, csql)
	r.out.p = 0
	if rc := lib.Xsqlite3_prepare_v3(r.tls, r.db, csql, -1, flags, uintptr(unsafe.Pointer(&r.out.p)), 0); rc != lib.SQLITE_OK {
		return 0, r.error(rc)
	}
	if r.out.p == 0 {
		return 0, fmt.Errorf("%q holds no statement", sql)
	}
	return r.out.p, nil
}

// exec runs sql, which the host trusts (PRAGMAs, BEGIN, COMMIT), as
// go-sqlite3's Conn.Exec does: sqlite3_exec.
func (r *moderncLib) exec(sql string) error {
	csql, err := libc.CString(sql)
	if err != nil {
		return err
	}
	defer libc.Xfree(r.tls, csql)
	if rc := lib.Xsqlite3_exec(r.tls, r.db, csql, 0, 0, 0); rc != lib.SQLITE_OK {
		return r.error(rc)
	}
	return nil
}

// emptyText is what an empty string binds: a null pointer would bind NULL.
var emptyText = [1]byte{}

func (r *moderncLib) bindText(stmt uintptr, i int32, s string) error {
	p := uintptr(unsafe.Pointer(&emptyText[0]))
	if len(s) > 0 {
		p = uintptr(unsafe.Pointer(unsafe.StringData(s)))
	}
	rc := lib.Xsqlite3_bind_text(r.tls, stmt, i, p, int32(len(s)), lib.SQLITE_TRANSIENT)
	runtime.KeepAlive(s)
	if rc != lib.SQLITE_OK {
		return r.error(rc)
	}
	return nil
}

func (r *moderncLib) bindInt64(stmt uintptr, i int32, v int64) error {
	if rc := lib.Xsqlite3_bind_int64(r.tls, stmt, i, v); rc != lib.SQLITE_OK {
		return r.error(rc)
	}
	return nil
}

func (r *moderncLib) columnText(stmt uintptr, i int32) string {
	p := lib.Xsqlite3_column_text(r.tls, stmt, i)
	n := lib.Xsqlite3_column_bytes(r.tls, stmt, i)
	if p == 0 || n == 0 {
		return ""
	}
	return string(libc.GoBytes(p, int(n)))
}

// step steps stmt: true on a row, false at the end or on an error (err).
func (r *moderncLib) step(stmt uintptr) (row bool, err error) {
	switch rc := lib.Xsqlite3_step(r.tls, stmt); rc {
	case lib.SQLITE_ROW:
		return true, nil
	case lib.SQLITE_DONE:
		return false, nil
	default:
		return false, r.error(rc)
	}
}

// done resets stmt and clears its parameters.
func (r *moderncLib) done(stmt uintptr) {
	lib.Xsqlite3_reset(r.tls, stmt)
	lib.Xsqlite3_clear_bindings(r.tls, stmt)
}

// errNoRow is the error of a statement that returned no row where one was
// expected.
var errNoRow = errors.New("no row")

// row steps stmt to its one row.
func (r *moderncLib) row(stmt uintptr) error {
	ok, err := r.step(stmt)
	if err == nil && !ok {
		err = errNoRow
	}
	return err
}

func (r *moderncLib) readUser(stmt uintptr) user {
	return user{ID: lib.Xsqlite3_column_int64(r.tls, stmt, 0), Name: r.columnText(stmt, 1), Email: r.columnText(stmt, 2)}
}

func (r *moderncLib) get(ctx context.Context, id int64) (user, error) {
	r.ctx = ctx
	s := r.get_
	defer r.done(s)
	if err := r.bindInt64(s, 1, id); err != nil {
		return user{}, err
	}
	if err := r.row(s); err != nil {
		return user{}, err
	}
	return r.readUser(s), nil
}

func (r *moderncLib) search(ctx context.Context, pattern string, limit int64) (found, error) {
	r.ctx = ctx
	s := r.search_
	defer r.done(s)
	if err := r.bindText(s, 1, pattern); err != nil {
		return found{}, err
	}
	if err := r.bindInt64(s, 2, limit); err != nil {
		return found{}, err
	}
	var f found
	for {
		ok, err := r.step(s)
		if err != nil {
			return found{}, err
		}
		if !ok {
			return f, nil
		}
		f.last = r.readUser(s)
		f.total = lib.Xsqlite3_column_int64(r.tls, s, 3)
		f.rows++
	}
}

func (r *moderncLib) insert(ctx context.Context, u user) error {
	r.ctx = ctx
	s := r.insert_
	defer r.done(s)
	if err := r.bindInt64(s, 1, u.ID); err != nil {
		return err
	}
	if err := r.bindText(s, 2, u.Name); err != nil {
		return err
	}
	if err := r.bindText(s, 3, u.Email); err != nil {
		return err
	}
	_, err := r.step(s)
	return err
}

func (r *moderncLib) update(ctx context.Context, id int64, name string) (user, error) {
	r.ctx = ctx
	s := r.update_
	defer r.done(s)
	if err := r.bindInt64(s, r.updID, id); err != nil {
		return user{}, err
	}
	if err := r.bindText(s, r.updName, name); err != nil {
		return user{}, err
	}
	if rc := lib.Xsqlite3_bind_null(r.tls, s, r.updEmail); rc != lib.SQLITE_OK {
		return user{}, r.error(rc)
	}
	if err := r.row(s); err != nil {
		return user{}, err
	}
	u := r.readUser(s)
	if more, err := r.step(s); more || err != nil {
		return user{}, fmt.Errorf("update: a second row or an error: %v", err)
	}
	return u, nil
}

func (r *moderncLib) order(ctx context.Context, userID int64) (int64, error) {
	r.ctx = ctx
	if err := r.exec("BEGIN IMMEDIATE"); err != nil {
		return 0, err
	}
	id, err := r.orders(userID)
	if err != nil {
		r.exec("ROLLBACK")
		return 0, err
	}
	return id, r.exec("COMMIT")
}

// orders runs the transaction's statements.
func (r *moderncLib) orders(userID int64) (int64, error) {
	var id int64
	for range txPairs {
		c := r.counter
		err := r.bindText(c, 1, "orders")
		if err == nil {
			err = r.row(c)
		}
		if err == nil {
			id = lib.Xsqlite3_column_int64(r.tls, c, 0)
		}
		r.done(c)
		if err != nil {
			return 0, err
		}
		o := r.order_
		err = r.bindInt64(o, 1, id)
		if err == nil {
			err = r.bindInt64(o, 2, userID)
		}
		if err == nil {
			err = r.bindText(o, 3, orderItem)
		}
		if err == nil {
			err = r.bindText(o, 4, orderDate)
		}
		if err == nil {
			_, err = r.step(o)
		}
		r.done(o)
		if err != nil {
			return 0, err
		}
	}
	return id, nil
}

func (r *moderncLib) text(ctx context.Context, sql string) (string, error) {
	r.ctx = ctx
	s, err := r.prepare(sql, 0)
	if err != nil {
		return "", err
	}
	defer lib.Xsqlite3_finalize(r.tls, s)
	ok, err := r.step(s)
	if !ok || err != nil {
		return "", err
	}
	return r.columnText(s, 0), nil
}

func (r *moderncLib) close() error {
	var err error
	if r.db != 0 {
		for _, s := range []uintptr{r.get_, r.search_, r.insert_, r.update_, r.counter, r.order_} {
			if s != 0 {
				lib.Xsqlite3_finalize(r.tls, s)
			}
		}
		if rc := lib.Xsqlite3_close_v2(r.tls, r.db); rc != lib.SQLITE_OK {
			err = r.error(rc)
		}
		moderncConns.Delete(r.db)
		r.db = 0
	}
	r.tls.Close()
	return err
}
