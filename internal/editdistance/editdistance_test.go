package editdistance_test

import (
	"testing"

	"github.com/wasmendpoints/endpoints/internal/editdistance"
)

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"responses", "responses", 0},
		{"respones", "responses", 1},
		{"ULR", "URL", 2},
		{"MAXCONNS", "MAX_CONNS", 1},
		{"kitten", "sitting", 3},
	}
	for _, tt := range tests {
		if got := editdistance.Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
