package database

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ncruces/go-sqlite3"
)

// BackupSQLite copies the SQLite database at path into the new file to,
// while hosts use it: a consistent snapshot of what was committed when
// the copy began (SQLite's VACUUM INTO, in a read transaction, which in
// WAL mode waits for no writer and holds none up), compacted, one file
// without a -wal beside it. A copy of the file itself (cp) is not safe:
// the last commits may still be in its -wal file.
//
// The copy is written beside to and renamed to it when complete, so to
// is never a partial backup. path must exist (an app that never ran has
// nothing to back up), and to must not: a backup replaces no file. ctx
// stops the copy.
func BackupSQLite(ctx context.Context, path, to string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("the database file %s: %w", path, err)
	}
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("%s exists: a backup is written to a new file; choose another name or remove it", to)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(to), "."+filepath.Base(to)+".partial-*")
	if err != nil {
		return fmt.Errorf("the backup's directory: %w", err)
	}
	tmp.Close()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp.Name())
		}
	}()
	// A connection of its own, not one of a pool's: guests' connections
	// may attach no database, which VACUUM INTO does.
	conn, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READWRITE)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer conn.Close()
	if err := conn.BusyTimeout(busyTimeout); err != nil {
		return err
	}
	conn.SetInterrupt(ctx)
	stmt, _, err := conn.Prepare("VACUUM INTO ?")
	if err != nil {
		return fmt.Errorf("backing up %s: %w", path, err)
	}
	defer stmt.Close()
	if err := stmt.BindText(1, tmp.Name()); err != nil {
		return err
	}
	if err := stmt.Exec(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("backing up %s: stopped: %w", path, context.Cause(ctx))
		}
		if errors.Is(err, sqlite3.IOERR) || errors.Is(err, sqlite3.FULL) {
			// go-sqlite3 reports a write that found the disk full as a
			// bare I/O error: say where the space is wanting, most likely.
			return fmt.Errorf("backing up %s into %s: %w: check the free space of %s (the backup's directory), and the file system of both", path, to, err, filepath.Dir(to))
		}
		return fmt.Errorf("backing up %s into %s: %w", path, tmp.Name(), err)
	}
	if err := syncFile(tmp.Name()); err != nil {
		return fmt.Errorf("writing the backup %s: %w", tmp.Name(), err)
	}
	// Link, not rename: a file made at to meanwhile is not replaced.
	err = os.Link(tmp.Name(), to)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s was made while the backup ran; the backup is not written", to)
	}
	if err != nil {
		// A file system without hard links.
		err = os.Rename(tmp.Name(), to)
	}
	if err != nil {
		ok = true
		return fmt.Errorf("the backup is complete in %s, but naming it %s failed: %w", tmp.Name(), to, err)
	}
	return nil
}

// syncFile flushes the file at name to the disk: VACUUM INTO leaves that
// to the system.
func syncFile(name string) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
