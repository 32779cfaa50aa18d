package answer_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/answer"
)

// TestBuffered checks what a buffered answer sends, by status, method,
// body and the headers already set.
func TestBuffered(t *testing.T) {
	tests := []struct {
		name        string
		method      string
		status      int
		defaultType string
		preset      string // Content-Type already set
		body        string
		wantType    string
		wantLength  string
		wantBody    string
	}{
		{"json default", "GET", 200, "application/json", "", `{"a":1}`, "application/json", "7", `{"a":1}`},
		{"type kept", "GET", 201, "application/json", "text/plain", "hi", "text/plain", "2", "hi"},
		{"no default", "GET", 200, "", "", "hi", "", "2", "hi"},
		{"empty body has no type", "GET", 200, "application/json", "", "", "", "0", ""},
		{"head: length, no body", "HEAD", 200, "application/json", "", "hi", "application/json", "2", ""},
		{"204 has no body nor length", "GET", 204, "application/json", "", "hi", "", "", ""},
		{"304 has no body nor length", "GET", 304, "application/json", "", "hi", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			if tt.preset != "" {
				rec.Header().Set("Content-Type", tt.preset)
			}
			answer.Buffered(rec, httptest.NewRequest(tt.method, "/", nil), tt.status, tt.defaultType, []byte(tt.body))
			res := rec.Result()
			if res.StatusCode != tt.status {
				t.Errorf("status %d, want %d", res.StatusCode, tt.status)
			}
			if got := res.Header.Get("Content-Type"); got != tt.wantType {
				t.Errorf("Content-Type %q, want %q", got, tt.wantType)
			}
			if got := rec.Header().Get("Content-Length"); got != tt.wantLength {
				t.Errorf("Content-Length %q, want %q", got, tt.wantLength)
			}
			if got := rec.Body.String(); got != tt.wantBody {
				t.Errorf("body %q, want %q", got, tt.wantBody)
			}
		})
	}
}

// TestNoBody: 1xx, 204 and 304 carry no body; other statuses do.
func TestNoBody(t *testing.T) {
	for status, want := range map[int]bool{100: true, 103: true, 200: false, 204: true, 205: false, 304: true, 400: false, 500: false} {
		if got := answer.NoBody(status); got != want {
			t.Errorf("NoBody(%d) = %v, want %v", status, got, want)
		}
	}
}

// TestDescribeValuesStandApart checks that the Content-Type and
// Content-Length Describe sets, made in one allocation, stay apart when
// later code adds to one, and that it costs that one allocation.
func TestDescribeValuesStandApart(t *testing.T) {
	h := http.Header{}
	answer.Describe(h, 200, "application/json", []byte(`{"a":1}`))
	h.Add("Content-Type", "text/plain")
	if got := h.Values("Content-Length"); len(got) != 1 || got[0] != "7" {
		t.Errorf("Content-Length %q after an Add to Content-Type, want [7]", got)
	}
	if got := h.Values("Content-Type"); len(got) != 2 || got[0] != "application/json" || got[1] != "text/plain" {
		t.Errorf("Content-Type %q, want [application/json text/plain]", got)
	}
	body := []byte(`{"a":1}`)
	if n := testing.AllocsPerRun(100, func() {
		clear(h)
		answer.Describe(h, 200, "application/json", body)
	}); n > 1 {
		t.Errorf("Describe allocates %.0f times, want 1", n)
	}
}
