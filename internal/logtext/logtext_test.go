package logtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	long := "/" + strings.Repeat("a", 1000)
	euros := strings.Repeat("€", 200) // 3 bytes each: 256 falls inside one
	tests := []struct {
		name, in, want string
	}{
		{"short text is kept", "/api/users", "/api/users"},
		{"text of MaxBytes is kept", strings.Repeat("b", MaxBytes), strings.Repeat("b", MaxBytes)},
		{"longer text is cut and says how much", long, long[:MaxBytes] + "…[+745 bytes]"},
		{"a cut never splits a character", euros, strings.Repeat("€", 85) + "…[+345 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Cut(tt.in)
			if got != tt.want {
				t.Errorf("Cut(%.20q…) = %q, want %q", tt.in, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Cut gave invalid UTF-8: %q", got)
			}
		})
	}
}
