package negotiate

import (
	"slices"
	"testing"
)

// FuzzChoose checks, for any header and two offers, that Choose neither panics nor invents an answer, and
// that it agrees with Parse on which headers it ignores.
func FuzzChoose(f *testing.F) {
	for _, tt := range chooseCases {
		offers := append(slices.Clone(tt.offers), "", "")
		f.Add(tt.accept, offers[0], offers[1])
	}
	f.Fuzz(func(t *testing.T, accept, offer1, offer2 string) {
		offers := []string{offer1, offer2}
		got, ok := Choose(accept, offers)
		if ok && got != offer1 && got != offer2 {
			t.Fatalf("Choose(%q, %q) = %q, true; want one of the offers", accept, offers, got)
		}
		if !ok && got != "" {
			t.Fatalf("Choose(%q, %q) = %q, false; want \"\", false", accept, offers, got)
		}
		rs, err := Parse(accept)
		if (err != nil || len(rs) == 0) && (got != offer1 || !ok) {
			t.Fatalf("Choose(%q, %q) = %q, %v; want the first offer for a header Parse finds empty or invalid (%v)", accept, offers, got, ok, err)
		}
		for _, r := range rs {
			if r.Q < 0 || r.Q > 1 {
				t.Fatalf("Parse(%q) gives weight %v outside [0, 1]", accept, r.Q)
			}
		}
	})
}
