package sqlitemem_test

import (
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

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

// reflectSize is what Size reads, read by reflect.Value at the fields'
// indices, found once: the way Size read it before it read the fields at
// their offsets, the reference TestSizeIsTheField and BenchmarkSize
// compare it with.
func reflectSize(conn *sqlite3.Conn) int64 {
	p := fieldIndices()
	v := reflect.ValueOf(conn)
	for _, i := range p[:2] {
		if v.IsNil() {
			return 0
		}
		v = v.Elem().Field(i)
	}
	if v.IsNil() {
		return 0
	}
	return int64(v.Elem().Field(p[2]).Len())
}

// fieldIndices are the indices of sqlite3.Conn.wrp, its Memory and that
// one's Buf, each in its struct.
var fieldIndices = sync.OnceValue(func() (p [3]int) {
	t := reflect.TypeFor[sqlite3.Conn]()
	for i, name := range []string{"wrp", "Memory", "Buf"} {
		f, _ := t.FieldByName(name)
		p[i], t = f.Index[0], f.Type
		if i < 2 {
			t = t.Elem()
		}
	}
	return p
})

// TestSizeIsTheField: Size, which reads the fields at their offsets,
// reads what reflection reads by their names, for a new connection, one
// grown by a statement and a closed one, so that an offset wrong by a
// field would show.
func TestSizeIsTheField(t *testing.T) {
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		got, err := sqlitemem.Size(c)
		if want := reflectSize(c); got != want || err != nil {
			t.Errorf("%s: Size = %d, %v; want %d, the field's length", when, got, err, want)
		}
	}
	check("new")
	exec(t, c, "SELECT length(printf('%.*c', 3145728, 'x'))")
	check("after a value of 3 MiB")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	check("closed")
}

// BenchmarkSize compares Size with the same read by reflection, as a pool
// makes it at the end of each statement (the ratio offsets/reflect).
//
//	go test ./database/internal/sqlitemem -run '^$' -bench Size -benchtime 1000000x
func BenchmarkSize(b *testing.B) {
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	// Five rounds of each in turn, the first a warm-up, so that a busy
	// machine slows both alike.
	per := b.N/5 + 1
	var n int64
	var took [2]time.Duration
	for round := range 5 {
		for i, size := range []func() int64{
			func() int64 { s, _ := sqlitemem.Size(c); return s },
			func() int64 { return reflectSize(c) },
		} {
			began := time.Now()
			for range per {
				n += size()
			}
			if round > 0 {
				took[i] += time.Since(began)
			}
		}
	}
	if n == 0 {
		b.Fatal("no size read")
	}
	calls := float64(4 * per)
	b.ReportMetric(float64(took[0].Nanoseconds())/calls, "offsets-ns/call")
	b.ReportMetric(float64(took[1].Nanoseconds())/calls, "reflect-ns/call")
	b.ReportMetric(float64(took[0])/float64(took[1]), "offsets/reflect")
	b.ReportMetric(0, "ns/op")
}
