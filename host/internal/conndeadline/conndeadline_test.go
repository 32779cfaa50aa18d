package conndeadline

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// deadlines is a writer with deadlines of its own, as net/http's is.
type deadlines struct {
	*httptest.ResponseRecorder
	read, write time.Time
}

func (d *deadlines) SetReadDeadline(t time.Time) error  { d.read = t; return nil }
func (d *deadlines) SetWriteDeadline(t time.Time) error { d.write = t; return nil }

// wrapped is a writer that wraps another (a compressing one) and gives it
// to http.ResponseController through Unwrap.
type wrapped struct{ http.ResponseWriter }

func (w wrapped) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestSet(t *testing.T) {
	read, write := time.Unix(100, 0), time.Unix(200, 0)
	for _, tc := range []struct {
		name string
		// writer returns the writer to set the deadlines of, and the one
		// that records them (nil for none).
		writer func() (http.ResponseWriter, *deadlines)
	}{
		{name: "a writer with deadlines", writer: func() (http.ResponseWriter, *deadlines) {
			d := &deadlines{ResponseRecorder: httptest.NewRecorder()}
			return d, d
		}},
		{name: "a wrapper of one", writer: func() (http.ResponseWriter, *deadlines) {
			d := &deadlines{ResponseRecorder: httptest.NewRecorder()}
			return wrapped{d}, d
		}},
		{name: "a writer without deadlines is left alone", writer: func() (http.ResponseWriter, *deadlines) {
			return httptest.NewRecorder(), nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, d := tc.writer()
			SetRead(w, read)
			SetWrite(w, write)
			if d != nil && (!d.read.Equal(read) || !d.write.Equal(write)) {
				t.Errorf("deadlines = %v, %v, want %v, %v", d.read, d.write, read, write)
			}
		})
	}
}

func TestSetAllocatesNothing(t *testing.T) {
	d := &deadlines{ResponseRecorder: httptest.NewRecorder()}
	var w http.ResponseWriter = d
	now := time.Now()
	if n := testing.AllocsPerRun(100, func() { SetRead(w, now); SetWrite(w, now) }); n != 0 {
		t.Errorf("SetRead and SetWrite allocate %.0f times, want 0", n)
	}
}
