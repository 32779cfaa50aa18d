package appdb

import (
	"fmt"
	"slices"
	"strings"
)

// Record is a migration as [Table] records it: applied to the database.
type Record struct {
	// Version is its number, Name the rest of its file name, without
	// the driver (003 and "add-email" of 003-add-email.postgres.sql).
	Version int64
	Name    string
	// Checksum is the hex SHA-256 of the file applied.
	Checksum string
	// AppliedAt is when, as recorded (RFC 3339, UTC).
	AppliedAt string
}

// File is the file name the record stands for, as the convention writes
// it (NNN-name.sql, the number on three digits at least): the table keeps
// the number and the name, not the file's spelling of them.
func (r Record) File() string {
	return fmt.Sprintf("%03d-%s.sql", r.Version, r.Name)
}

// NoteKind says what a [Note] is about.
type NoteKind string

// The notes of [Set.Migrate].
const (
	// NoteUnknown is a migration recorded in the database of which the
	// app has no file: the database is ahead of this version of the app,
	// most often because the app was rolled back after a newer version
	// migrated it. The run goes on: a schema is usually kept backward
	// compatible (that is why rolling back the app works), and only the
	// operator knows whether this one is.
	NoteUnknown NoteKind = "unknown"
	// NoteOutOfOrder is a migration applied (or, in a dry run, to be
	// applied) to a database that recorded migrations of higher numbers
	// before it: a file added below the highest applied number, as a
	// merge of two branches does. It is applied, in number order among
	// the pending ones; a new database applies every file in number
	// order, so the two may differ where the migrations touch the same
	// tables.
	NoteOutOfOrder NoteKind = "out of order"
)

// Note is what a run of [Set.Migrate] found in a database that is no
// error, but that its operator should know (MigrateOptions.Note): a host
// logs it as a warning, `endpoints migrate` prints it.
type Note struct {
	// Kind is what it is about.
	Kind NoteKind
	// Database is the database it was found in.
	Database string
	// Record, for NoteUnknown, is the migration the database recorded.
	Record Record
	// Migration, for NoteOutOfOrder, is the app's migration applied out
	// of order, and Later the records of higher numbers it follows, in
	// version order.
	Migration Migration
	Later     []Record
}

// Summary says what the note means and what to do, the same for every
// note of its kind: a log's message, which the fields of the note follow.
func (n Note) Summary() string {
	switch n.Kind {
	case NoteUnknown:
		return "the database has a migration applied of which this app has no file: it is ahead of this version of the app (was the app rolled back?), and its schema may have tables or columns this code does not expect: roll the app forward, or add a migration that undoes that one"
	case NoteOutOfOrder:
		return "a migration runs after migrations of higher numbers applied before it (a file added out of order, a merge of two branches?): a new database applies the files in the order of their numbers, this one does not; check that both orders leave the same schema"
	}
	return string(n.Kind)
}

// String is the note in one line, naming the database, the files, and
// for an unknown migration when it was applied and its checksum.
func (n Note) String() string {
	switch n.Kind {
	case NoteUnknown:
		r := n.Record
		return fmt.Sprintf("database %s has %s, applied %s (checksum %s), of which this app has no file: the database is ahead of this version of the app (was the app rolled back?), and its schema may have tables or columns this code does not expect; roll the app forward, or add a migration that undoes %s",
			n.Database, r.File(), r.AppliedAt, r.Checksum, r.File())
	case NoteOutOfOrder:
		later := make([]string, len(n.Later))
		for i, r := range n.Later {
			later[i] = r.File()
		}
		return fmt.Sprintf("%s runs on database %s after %s, numbered higher but applied before it (a file added out of order, a merge of two branches?): a new database applies the files in the order of their numbers, this one does not; check that both orders leave the same schema",
			n.Migration.File, n.Database, strings.Join(later, ", "))
	}
	return n.Summary()
}

// unknown are the notes of the records in applied of which ms, the
// app's migrations of database name, has no file, in version order.
func unknown(name string, ms []Migration, applied map[int64]Record) []Note {
	var out []Note
	for v, r := range applied {
		if !slices.ContainsFunc(ms, func(m Migration) bool { return m.Version == v }) {
			out = append(out, Note{Kind: NoteUnknown, Database: name, Record: r})
		}
	}
	slices.SortFunc(out, func(a, b Note) int { return compare(a.Record.Version, b.Record.Version) })
	return out
}

// outOfOrder is the note of m, not yet applied, when applied holds
// versions above it; false when it holds none.
func outOfOrder(m Migration, applied map[int64]Record) (Note, bool) {
	var later []Record
	for v, r := range applied {
		if v > m.Version {
			later = append(later, r)
		}
	}
	if len(later) == 0 {
		return Note{}, false
	}
	slices.SortFunc(later, func(a, b Record) int { return compare(a.Version, b.Version) })
	return Note{Kind: NoteOutOfOrder, Database: m.Database, Migration: m, Later: later}, true
}
