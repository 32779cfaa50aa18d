package observe

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestExchangeCounts: the status an exchange records is the final one
// (1xx before it are not, 101 is), 200 when nothing set one, and its
// bytes are those the writer under it took.
func TestExchangeCounts(t *testing.T) {
	for _, tt := range []struct {
		name       string
		write      func(w http.ResponseWriter)
		wantStatus int
		wantBytes  int64
	}{
		{"nothing written", func(http.ResponseWriter) {}, http.StatusOK, 0},
		{"a body alone", func(w http.ResponseWriter) { _, _ = w.Write([]byte("hello")) }, http.StatusOK, 5},
		{"a status and a body", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte("{}"))
			_, _ = w.Write([]byte("\n"))
		}, http.StatusCreated, 3},
		{"early hints before the status", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusNotFound)
		}, http.StatusNotFound, 0},
		{"switching protocols is final", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusSwitchingProtocols)
		}, http.StatusSwitchingProtocols, 0},
		{"a second status is ignored", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusAccepted)
			w.WriteHeader(http.StatusInternalServerError)
		}, http.StatusAccepted, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			x := Begin(rec)
			defer x.End()
			tt.write(x)
			if got := x.Status(); got != tt.wantStatus {
				t.Errorf("Status() = %d, want %d", got, tt.wantStatus)
			}
			if got := x.Bytes(); got != tt.wantBytes {
				t.Errorf("Bytes() = %d, want %d", got, tt.wantBytes)
			}
			if got := int64(rec.Body.Len()); got != tt.wantBytes {
				t.Errorf("the writer under it took %d bytes, want %d", got, tt.wantBytes)
			}
		})
	}
}

// TestOf: the host notes what it learns only on an observed request's
// writer, and an ended exchange comes back from the pool clear.
func TestOf(t *testing.T) {
	rec := httptest.NewRecorder()
	if Of(rec) != nil {
		t.Error("Of(a writer that is no exchange) != nil")
	}
	x := Begin(rec)
	if Of(x) != x {
		t.Error("Of(an exchange) is not that exchange")
	}
	x.Route, x.RequestID, x.Outbound, x.DatabaseError = "/api/users/:id", "r1", 2, "constraint"
	x.WriteHeader(http.StatusTeapot)
	if http.NewResponseController(x).Flush() != nil {
		t.Error("Flush did not reach the recorder through Unwrap")
	}
	if err := x.SetReadDeadline(x.Start); err != nil {
		t.Errorf("SetReadDeadline on a writer without deadlines = %v, want nil (left alone)", err)
	}
	x.End()
	y := Begin(rec)
	defer y.End()
	if y.Route != "" || y.RequestID != "" || y.Outbound != 0 || y.DatabaseError != "" || y.Status() != http.StatusOK || y.Bytes() != 0 {
		t.Errorf("a new exchange holds %+v, want a clear one", y)
	}
}
