package interrupt

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/sys"
)

func TestBudget(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(b *Budget)
		wantExpired bool
		wantStopped bool
	}{
		{"zero value", func(*Budget) {}, false, false},
		{"no deadline", func(b *Budget) { b.Reset(time.Time{}) }, false, false},
		{"deadline ahead", func(b *Budget) { b.Reset(time.Now().Add(time.Hour)) }, false, false},
		{"deadline passed", func(b *Budget) { b.Reset(time.Now().Add(-time.Nanosecond)) }, true, false},
		{"deadline before the process started", func(b *Budget) { b.Reset(time.Unix(0, 0)) }, true, false},
		{"deadline ahead, stopped", func(b *Budget) { b.Reset(time.Now().Add(time.Hour)); b.Stop() }, true, true},
		{"stopped, then reset", func(b *Budget) { b.Stop(); b.Reset(time.Now().Add(time.Hour)) }, false, false},
		{"passed, then reset", func(b *Budget) { b.Reset(time.Now().Add(-time.Hour)); b.Reset(time.Time{}) }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Budget
			tt.setup(&b)
			if got := b.Expired(); got != tt.wantExpired {
				t.Errorf("Expired() = %v, want %v", got, tt.wantExpired)
			}
			if got := b.Stopped(); got != tt.wantStopped {
				t.Errorf("Stopped() = %v, want %v", got, tt.wantStopped)
			}
		})
	}
}

// TestBudgetDeadlinePasses polls Expired until the deadline has passed:
// it must turn true, and never before the deadline.
func TestBudgetDeadlinePasses(t *testing.T) {
	var b Budget
	deadline := time.Now().Add(50 * time.Millisecond)
	b.Reset(deadline)
	polls := 0
	if !waitFor(t, 10*time.Second, func() bool {
		polls++
		expired := b.Expired()
		// Read after Expired: a time before the deadline proves it early.
		if now := time.Now(); expired && now.Before(deadline) {
			t.Fatalf("Expired() = true %v before the deadline, want false", deadline.Sub(now))
		}
		return expired
	}) {
		t.Fatal("Expired() = false 10 s after the deadline, want true")
	}
	t.Logf("Expired() turned true at poll %d", polls)
}

// TestBudgetHammer stops a Budget from many goroutines released at once
// while others read it: run with -race.
func TestBudgetHammer(t *testing.T) {
	var b Budget
	b.Reset(time.Now().Add(time.Hour))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if i%2 == 0 {
				b.Stop()
			} else {
				b.Expired()
			}
		}()
	}
	close(start)
	wg.Wait()
	if !b.Expired() || !b.Stopped() {
		t.Errorf("after Stop from 32 goroutines: Expired() = %v, Stopped() = %v, want true, true", b.Expired(), b.Stopped())
	}
}

func TestErrInterrupted(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"the sentinel", ErrInterrupted, true},
		{"an exit error with the same code", sys.NewExitError(ExitCode), true},
		{"a guest's proc_exit(1)", sys.NewExitError(1), false},
		{"wazero's deadline exit", sys.NewExitError(sys.ExitCodeDeadlineExceeded), false},
		{"a trap", errors.New("wasm error: unreachable"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.Is(tt.err, ErrInterrupted); got != tt.want {
				t.Errorf("errors.Is(%v, ErrInterrupted) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestNewHostModule(t *testing.T) {
	tests := []struct {
		name    string
		period  int32
		twice   bool
		wantErr string
	}{
		{"default period", DefaultPeriod, false, ""},
		{"zero period", 0, false, "interrupt host module: period 0: must be positive"},
		{"twice in one runtime", DefaultPeriod, true, "interrupt host module: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			rt := wazero.NewRuntime(ctx)
			defer rt.Close(ctx)
			err := NewHostModule(ctx, rt, tt.period)
			if tt.twice {
				if err != nil {
					t.Fatal(err)
				}
				err = NewHostModule(ctx, rt, tt.period)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tt.wantErr != "" && (err == nil || len(err.Error()) < len(tt.wantErr) || err.Error()[:len(tt.wantErr)] != tt.wantErr):
				t.Fatalf("error %v, want one starting with %q", err, tt.wantErr)
			case tt.wantErr == "":
				// (module (import "endpoints_interrupt" "check" (func (result i32)))
				//   (func (export "c") (result i32) (call 0)))
				caller := mod(
					sec(secType, vec(funcType)),
					sec(secImport, vec(slices.Concat(str(ImportModule), str(ImportName), bs(0x00, 0)))),
					sec(secFunction, vec(bs(0))),
					sec(secExport, vec(slices.Concat(str("c"), bs(0x00, 1)))),
					sec(secCode, vec(fnBody(noLocals, 0x10, 0, 0x0b))),
				)
				m, err := rt.Instantiate(ctx, caller)
				if err != nil {
					t.Fatal(err)
				}
				fn := m.ExportedFunction("c")
				var b Budget
				got, err := fn.Call(WithBudget(ctx, &b))
				if err != nil || len(got) != 1 || int32(got[0]) != tt.period {
					t.Errorf("check() = %v, %v; want [%d], nil", got, err, tt.period)
				}
				b.Stop()
				if _, err := fn.Call(WithBudget(ctx, &b)); !errors.Is(err, ErrInterrupted) {
					t.Errorf("check() after Stop: error %v, want ErrInterrupted", err)
				}
				if _, err := fn.Call(ctx); err != nil {
					t.Errorf("check() without a Budget: error %v, want none", err)
				}
				// A context that is an Expirer is asked directly, and wins
				// over a Budget among its values.
				expirer := &expiringCtx{Context: WithBudget(ctx, &b)}
				if _, err := fn.Call(expirer); err != nil {
					t.Errorf("check() with an unexpired Expirer (and a stopped Budget): error %v, want none", err)
				}
				expirer.expired = true
				if _, err := fn.Call(expirer); !errors.Is(err, ErrInterrupted) {
					t.Errorf("check() with an expired Expirer: error %v, want ErrInterrupted", err)
				}
			}
		})
	}
}

func TestCheckPanicsOnBadPeriod(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("Check(-1) did not panic")
		}
	}()
	Check(-1)
}

// expiringCtx is a call context that implements Expirer.
type expiringCtx struct {
	context.Context
	expired bool
}

func (c *expiringCtx) Expired() bool { return c.expired }
