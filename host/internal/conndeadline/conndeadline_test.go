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

// counting is a writer that counts the write deadlines set on it.
type counting struct {
	*httptest.ResponseRecorder
	sets int
	last time.Time
}

func (c *counting) SetWriteDeadline(t time.Time) error { c.sets++; c.last = t; return nil }

func TestWritesSkipsWhatBarelyMoves(t *testing.T) {
	base := time.Unix(1000, 0)
	const slack = 100 * time.Millisecond
	for _, tc := range []struct {
		name string
		// recorded is the deadline known before Set (zero: none).
		recorded time.Time
		to       time.Time
		wantSet  bool
	}{
		{name: "the first deadline is set", to: base, wantSet: true},
		{name: "a later one within the slack is skipped", recorded: base, to: base.Add(slack - 1), wantSet: false},
		{name: "the same one is skipped", recorded: base, to: base, wantSet: false},
		{name: "a later one by the slack is set", recorded: base, to: base.Add(slack), wantSet: true},
		{name: "an earlier one is set, however close", recorded: base, to: base.Add(-1), wantSet: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &counting{ResponseRecorder: httptest.NewRecorder()}
			var d Writes
			if !tc.recorded.IsZero() {
				d.Record(tc.recorded)
			}
			d.Set(w, tc.to, slack)
			if got := w.sets == 1; got != tc.wantSet {
				t.Fatalf("Set(%v) after %v: set %d times, want set %v", tc.to, tc.recorded, w.sets, tc.wantSet)
			}
			if tc.wantSet && !w.last.Equal(tc.to) {
				t.Errorf("deadline = %v, want %v", w.last, tc.to)
			}
			// What was set (or kept) is what the next Set compares with.
			want := tc.to
			if !tc.wantSet {
				want = tc.recorded
			}
			d.Set(w, want.Add(slack-1), slack)
			if w.sets > 1 && tc.wantSet || !tc.wantSet && w.sets != 0 {
				t.Errorf("a second Set within the slack of the deadline in force set it again (%d sets)", w.sets)
			}
		})
	}
	t.Run("a nil Writes sets every deadline", func(t *testing.T) {
		w := &counting{ResponseRecorder: httptest.NewRecorder()}
		var d *Writes
		d.Set(w, base, slack)
		d.Set(w, base, slack)
		if w.sets != 2 {
			t.Errorf("set %d times, want 2", w.sets)
		}
	})
}
