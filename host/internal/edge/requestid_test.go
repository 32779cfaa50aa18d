package edge

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/racedetector"
)

func TestRequestID(t *testing.T) {
	generated := regexp.MustCompile(`^[0-9a-f]{24}$`)
	for _, tc := range []struct {
		name, sent string
		kept       bool
	}{
		{"none sent", "", false},
		{"a usable id is kept", "abc-123_x.y:z/w+v=u@t", true},
		{"a space is refused", "a b", false},
		{"too long is refused", strings.Repeat("a", maxRequestIDLen+1), false},
		{"the longest is kept", strings.Repeat("a", maxRequestIDLen), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if tc.sent != "" {
				r.Header.Set(RequestIDHeader, tc.sent)
			}
			got := RequestID(r)
			switch {
			case tc.kept && got != tc.sent:
				t.Errorf("RequestID = %q, want the client's %q", got, tc.sent)
			case !tc.kept && !generated.MatchString(got):
				t.Errorf("RequestID = %q, want 24 hexadecimal digits", got)
			}
		})
	}
	r := httptest.NewRequest("GET", "/", nil)
	if a, b := RequestID(r), RequestID(r); a == b {
		t.Errorf("two generated ids are both %q", a)
	}
	// Every request without an id of its own makes one: a single
	// allocation, the string (the race detector adds its own).
	if n := testing.AllocsPerRun(100, func() { RequestID(r) }); n > 1 && !racedetector.Enabled {
		t.Errorf("RequestID allocates %v times, want 1", n)
	}
}
