package sqlitemem_test

import (
	"strconv"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmendpoints/endpoints/database/internal/sqlitemem"
)

// TestSize measures connections in the states that matter to a pool: a
// new one is small, one that ran a statement building a 20 MB value holds
// more than 20 MB after the statement ended (SQLite freed it, its
// allocator kept it), and a closed one holds nothing. A driver whose
// fields moved fails here (ErrUnsupported), not in production.
func TestSize(t *testing.T) {
	const built = 20 << 20
	tests := []struct {
		name     string
		run      func(t *testing.T, c *sqlite3.Conn)
		min, max int64
	}{
		{"a new connection", func(*testing.T, *sqlite3.Conn) {}, 64 << 10, 4 << 20},
		{"after a statement that built 20 MB", func(t *testing.T, c *sqlite3.Conn) {
			exec(t, c, "SELECT length(printf('%.*c', 20971520, 'x'))")
		}, built, 256 << 20},
		{"closed", func(t *testing.T, c *sqlite3.Conn) {
			exec(t, c, "SELECT length(printf('%.*c', 20971520, 'x'))")
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := sqlite3.Open(":memory:")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			tt.run(t, c)
			got, err := sqlitemem.Size(c)
			if err != nil {
				t.Fatalf("Size: %v", err)
			}
			if got < tt.min || got > tt.max {
				t.Errorf("Size = %d bytes, want %d to %d", got, tt.min, tt.max)
			}
		})
	}
}

// TestSizeOfNil: a nil connection, which go-sqlite3 closes without a
// word, holds nothing either.
func TestSizeOfNil(t *testing.T) {
	if got, err := sqlitemem.Size(nil); got != 0 || err != nil {
		t.Errorf("Size(nil) = %d, %v; want 0, nil", got, err)
	}
}

// TestSizeGrowsWithTheStatement: the size follows what statements took,
// by steps that the next statement's growth shows, so that it is the
// connection's own memory read and not a constant of the driver.
func TestSizeGrowsWithTheStatement(t *testing.T) {
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	last, err := sqlitemem.Size(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, mb := range []int{2, 8, 32} {
		exec(t, c, "SELECT length(printf('%.*c', "+strconv.Itoa(mb<<20)+", 'x'))")
		got, _ := sqlitemem.Size(c)
		if got <= last || got < int64(mb)<<20 {
			t.Errorf("after a value of %d MiB: %d bytes, was %d: want more, and at least the value", mb, got, last)
		}
		last = got
	}
}

func exec(t *testing.T, c *sqlite3.Conn, sql string) {
	t.Helper()
	if err := c.Exec(sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
