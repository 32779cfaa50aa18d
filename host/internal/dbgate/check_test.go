package dbgate

import (
	"testing"

	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// TestCheckAllocatesNothing: the check every statement passes through,
// on databases whose migrations do not wait (the common case), makes no
// string of the database's name: it cost an allocation per statement.
func TestCheckAllocatesNothing(t *testing.T) {
	g := New(nil, appdb.New(t.TempDir(), nil))
	db := []byte("main")
	if n := testing.AllocsPerRun(100, func() { g.check(db) }); n != 0 {
		t.Errorf("check allocates %v times a statement, want 0", n)
	}
}
