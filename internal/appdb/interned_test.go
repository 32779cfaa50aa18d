package appdb

import (
	"testing"
	"unsafe"
)

// TestInterned: a statement's text or database name that is the last one
// again is answered with the last string, without allocating; other bytes
// make a new string, which becomes the last.
func TestInterned(t *testing.T) {
	tests := []struct {
		name, last, b string
		same          bool // the last string is answered
	}{
		{"the same text", "SELECT 1", "SELECT 1", true},
		{"another text", "SELECT 1", "SELECT 2", false},
		{"a longer text", "SELECT 1", "SELECT 10", false},
		{"no last text yet", "", "main", false},
		{"empty after a text", "main", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			last := tt.last
			kept := unsafe.StringData(last)
			got := interned(&last, []byte(tt.b))
			if got != tt.b || last != tt.b {
				t.Fatalf("interned = %q, last %q; want %q", got, last, tt.b)
			}
			if same := unsafe.StringData(got) == kept; same != tt.same && tt.b != "" {
				t.Errorf("the last string answered: %v, want %v", same, tt.same)
			}
		})
	}
	last, b := "SELECT id FROM users WHERE id = $1", []byte("SELECT id FROM users WHERE id = $1")
	if n := testing.AllocsPerRun(100, func() { interned(&last, b) }); n != 0 {
		t.Errorf("interning the last text again made %v allocations, want 0", n)
	}
}
