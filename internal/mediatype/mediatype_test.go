package mediatype

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in, canon string
		wildcard  bool
		err       bool
	}{
		{"image/PNG", "image/png", false, false},
		{"text/plain; Charset=UTF-8; a=b", "text/plain; a=b; charset=UTF-8", false, false},
		{"image/*", "image/*", true, false},
		{"*/*", "*/*", true, false},
		{"png", "", false, true},
		{"image/", "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			canon, wild, err := Parse(tt.in)
			if (err != nil) != tt.err || canon != tt.canon || wild != tt.wildcard {
				t.Errorf("Parse(%q) = %q, %v, %v; want %q, %v, error %v", tt.in, canon, wild, err, tt.canon, tt.wildcard, tt.err)
			}
		})
	}
}

func TestSameAndIsJSON(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"Text/HTML", "text/html", true},
		{"text/plain; charset=utf-8", "text/plain;charset=utf-8", true},
		{"text/plain", "text/html", false},
		{"bad", "BAD", true},
	} {
		if got := Same(tt.a, tt.b); got != tt.same {
			t.Errorf("Same(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
	for _, tt := range []struct {
		ct   string
		json bool
	}{
		{"application/json", true},
		{"Application/Problem+JSON; charset=utf-8", true},
		{"application/vnd.acme.user+json", true},
		{"application/+json", false},
		{"text/json", false},
		{"application/jsonx", false},
		{"nonsense", false},
	} {
		if got := IsJSON(tt.ct); got != tt.json {
			t.Errorf("IsJSON(%q) = %v, want %v", tt.ct, got, tt.json)
		}
	}
}
