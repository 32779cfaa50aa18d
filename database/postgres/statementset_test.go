package postgres

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestStatementSetKeepsNoText: the statements beginAlone keeps (those
// whose arguments did not fit, which an app may make from input) cost the
// set a few bytes each, whatever their length: 64 statements of 1 MiB
// leave the heap less than 16 MiB larger once they are dropped (a margin
// for what else the test binary allocates), where keeping their text held
// 64 MiB. It still tells the statements it holds
// from the others.
func TestStatementSetKeepsNoText(t *testing.T) {
	const n, size = 64, 1 << 20
	var set statementSet
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		set.add(strings.Repeat("x", size-8) + strconv.Itoa(10_000_000+i))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > n*size/4 {
		t.Errorf("the set of %d statements of %d bytes holds %d bytes of heap, want less than 16 MiB", n, size, grown)
	}
	for i, tt := range []struct {
		sql  string
		want bool
	}{
		{strings.Repeat("x", size-8) + "10000000", true},
		{strings.Repeat("x", size-8) + strconv.Itoa(10_000_000+n-1), true},
		{strings.Repeat("x", size-8) + strconv.Itoa(10_000_000+n), false},
		{"SELECT 1", false},
	} {
		if got := set.has(tt.sql); got != tt.want {
			t.Errorf("statement %d: has = %v, want %v", i, got, tt.want)
		}
	}
	var empty statementSet
	if empty.has("SELECT 1") {
		t.Error("an empty set has a statement")
	}
	for i := range maxStatements + 1 {
		empty.add("SELECT " + strconv.Itoa(i))
	}
	if empty.has("SELECT 0") || !empty.has("SELECT "+strconv.Itoa(maxStatements)) {
		t.Errorf("a set given %d statements keeps the first or lost the last; want it emptied at %d", maxStatements+1, maxStatements)
	}
}
