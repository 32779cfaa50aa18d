package dbstate_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/dbstate"
	"github.com/wasmendpoints/endpoints/internal/syncbuf"
)

// TestNote: a database's state is logged when it changes, once each way,
// per database, however many statements find it so.
func TestNote(t *testing.T) {
	down := errors.New(`database "main": unavailable: connection refused`)
	other := errors.New(`database "main": constraint: duplicate key`)
	type note struct {
		db          string
		unavailable bool
		failed      bool // failed otherwise (a constraint, a statement stopped with its call)
	}
	tests := []struct {
		name  string
		notes []note
		want  []string // the messages logged, in order
	}{
		{"answers", []note{{db: "main", unavailable: false}, {db: "main", unavailable: false}}, nil},
		{"down, then more failures", []note{{db: "main", unavailable: true}, {db: "main", unavailable: true}, {db: "main", unavailable: true}}, []string{"WARN database unavailable main"}},
		{"down, then back, then down again", []note{{db: "main", unavailable: true}, {db: "main", unavailable: false}, {db: "main", unavailable: false}, {db: "main", unavailable: true}}, []string{"WARN database unavailable main", "INFO database answers again main", "WARN database unavailable main"}},
		{"other failures change nothing", []note{{db: "main", failed: true}, {db: "main", unavailable: true}, {db: "main", failed: true}, {db: "main"}}, []string{"WARN database unavailable main", "INFO database answers again main"}},
		{"each database apart", []note{{db: "main", unavailable: true}, {db: "reports", unavailable: false}, {db: "reports", unavailable: true}, {db: "main", unavailable: false}}, []string{"WARN database unavailable main", "WARN database unavailable reports", "INFO database answers again main"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&out, nil))
			var s dbstate.State
			for _, n := range tt.notes {
				var err error
				switch {
				case n.unavailable:
					err = down
				case n.failed:
					err = other
				}
				s.Note(logger, n.db, err, n.unavailable)
			}
			var got []string
			for line := range strings.Lines(out.String()) {
				level := between(line, "level=", " ")
				msg := between(line, `msg="`, `"`)
				msg, _, _ = strings.Cut(msg, ":")
				got = append(got, level+" "+msg+" "+between(line, "database=", " "))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("logged:\n%s\nwant:\n%s\n(the log: %s)", strings.Join(got, "\n"), strings.Join(tt.want, "\n"), out.String())
			}
			if len(tt.want) > 0 && strings.HasPrefix(tt.want[0], "WARN") && !strings.Contains(out.String(), "connection refused") {
				t.Errorf("the warning does not carry the statement's error: %s", out.String())
			}
		})
	}
}

// between is the text of s after the first before, up to after.
func between(s, before, after string) string {
	_, rest, _ := strings.Cut(s, before)
	v, _, _ := strings.Cut(rest, after)
	return strings.TrimSpace(v)
}

// TestNoteConcurrent: statements finding the database down at once log
// it once.
func TestNoteConcurrent(t *testing.T) {
	var out syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&out, nil))
	var s dbstate.State
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() { s.Note(logger, "main", errors.New("down"), true) })
	}
	wg.Wait()
	if n := strings.Count(out.String(), "database unavailable"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, out.String())
	}
}

// TestPoolFull: a pool with no connection free in time is logged once a
// minute per database, however many statements find it so, and is not
// the database down: no "unavailable" line, no "answers again" after it.
func TestPoolFull(t *testing.T) {
	var out bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&out, nil))
	var s dbstate.State
	full := errors.New(`database "main": unavailable: no connection of the pool came free in time`)
	for range 3 {
		s.PoolFull(logger, "main", full)
	}
	s.PoolFull(logger, "reports", full)
	s.Note(logger, "main", nil, false)
	var got []string
	for line := range strings.Lines(out.String()) {
		msg, _, _ := strings.Cut(between(line, `msg="`, `"`), ":")
		got = append(got, between(line, "level=", " ")+" "+msg+" "+between(line, "database=", " "))
	}
	want := []string{"WARN database pool full main", "WARN database pool full reports"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("logged:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
