package janitor

import (
	"testing"
	"time"
)

// sweeps sends each cutoff the janitor sweeps with.
type sweeps chan time.Time

func (s sweeps) Sweep(cutoff time.Time) { s <- cutoff }

func TestRunSweepsAtEachTick(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		idle  time.Duration
		ticks []time.Time
	}{
		{name: "one tick", idle: time.Minute, ticks: []time.Time{t0}},
		{name: "ticks in order", idle: 5 * time.Minute, ticks: []time.Time{t0, t0.Add(time.Second), t0.Add(time.Hour)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tick, swept := make(chan time.Time), make(sweeps)
			j := Run(tick, tc.idle, swept)
			defer j.Close()
			for _, now := range tc.ticks {
				tick <- now
				if got, want := <-swept, now.Add(-tc.idle); !got.Equal(want) {
					t.Errorf("a tick at %v swept with the cutoff %v, want %v", now, got, want)
				}
			}
		})
	}
}

// blocked holds a sweep until release is closed.
type blocked struct {
	started chan struct{}
	release chan struct{}
	ended   bool
}

func (b *blocked) Sweep(time.Time) {
	close(b.started)
	<-b.release
	b.ended = true
}

func TestCloseWaitsForTheSweep(t *testing.T) {
	tick := make(chan time.Time)
	b := &blocked{started: make(chan struct{}), release: make(chan struct{})}
	j := Run(tick, time.Minute, b)
	tick <- time.Now()
	<-b.started
	closed := make(chan struct{})
	go func() {
		j.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while a sweep was running")
	default:
	}
	close(b.release)
	<-closed
	if !b.ended {
		t.Error("Close returned before the sweep ended")
	}
	j.Close() // a second Close returns at once
	var none *Janitor
	none.Close() // and a nil janitor's does nothing
}
