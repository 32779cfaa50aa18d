// Package sqlitemem measures the memory a go-sqlite3 connection holds.
//
// go-sqlite3 (ncruces, v0.37) runs each connection's SQLite in a linear
// memory of its own, as WebAssembly would: a reservation of 256 MiB of
// address space, of which the memory committed grows, 64 KiB pages at a
// time, when SQLite's allocator needs more, and never shrinks. What a
// statement needed (a group_concat of 100 MB, a value of hundreds of
// megabytes) stays with the connection, resident once touched, until the
// connection closes: SQLite frees it into its allocator, which keeps it.
// [Size] reads that linear memory's size, by which a pool closes a
// connection a statement grew instead of keeping it.
//
// # Notes
//
//   - The driver has no API for it (SQLite's sqlite3_memory_used is not
//     among the functions its build exports, and sqlite3_db_status counts
//     the page cache, the schema and the statements, not what a statement
//     freed): Size reads the driver's unexported fields by reflection,
//     which reads and never writes them. A version of the driver whose
//     fields differ makes Size fail with [ErrUnsupported], which this
//     package's tests report, rather than measure something else.
//   - Reflection finds the fields once, checking their types; Size then
//     reads them at their offsets (unsafe), as the compiled code would:
//     a pool measures each connection it gets back, at every statement,
//     and reflect.Value's Elem and Field took about 300 instructions a
//     statement of the 25,000 a read by id takes (callgrind), against
//     about 50 now.
package sqlitemem

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/ncruces/go-sqlite3"
)

// ErrUnsupported is the error of [Size] when the go-sqlite3 linked keeps
// a connection's memory elsewhere than v0.37 does.
var ErrUnsupported = errors.New("sqlitemem: this version of github.com/ncruces/go-sqlite3 keeps a connection's memory where Size does not look (sqlite3.Conn.wrp.Memory.Buf in v0.37)")

// path is where a connection's linear memory is: the offsets of the
// fields sqlite3.Conn.wrp (*sqlite3_wrap.Wrapper), its embedded Memory
// (*sqlite3_wrap.Memory) and that one's Buf ([]byte), each in its struct,
// found and their types checked once.
var path = sync.OnceValues(func() ([3]uintptr, error) {
	var p [3]uintptr
	t := reflect.TypeFor[sqlite3.Conn]()
	for i, name := range []string{"wrp", "Memory", "Buf"} {
		f, ok := t.FieldByName(name)
		if !ok || len(f.Index) != 1 {
			return p, fmt.Errorf("%w: %s has no field %s", ErrUnsupported, t, name)
		}
		p[i] = f.Offset
		t = f.Type
		if i < 2 {
			if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
				return p, fmt.Errorf("%w: the field %s is a %s, not a pointer to a struct", ErrUnsupported, name, t)
			}
			t = t.Elem()
		} else if t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Uint8 {
			return p, fmt.Errorf("%w: the field %s is a %s, not a []byte", ErrUnsupported, name, t)
		}
	}
	return p, nil
})

// Size returns the size, in bytes, of conn's linear memory: what SQLite's
// allocator took for the connection since it opened (512 KiB for a new
// connection; a few MiB once its page cache and sorter have been used),
// all of it the host's memory until the connection closes. A closed
// connection has none.
func Size(conn *sqlite3.Conn) (int64, error) {
	p, err := path()
	if err != nil {
		return 0, err
	}
	if conn == nil {
		return 0, nil
	}
	// The two pointers, then the slice, at the offsets path checked the
	// types of: read, never written.
	ptr := unsafe.Pointer(conn)
	for _, off := range p[:2] {
		ptr = *(*unsafe.Pointer)(unsafe.Add(ptr, off))
		if ptr == nil {
			return 0, nil
		}
	}
	return int64(len(*(*[]byte)(unsafe.Add(ptr, p[2])))), nil
}
