//go:build wasip1

package endpoints

import (
	"fmt"
	"runtime"

	"github.com/wasmendpoints/endpoints/abi"
)

// settle ends the call of an export that serves a request (a handler, a
// validation-error hook, a middleware phase), before which before
// goroutines existed: the goroutines left runnable run now, within this
// call and its deadline, and those the call started that are still there
// then are logged as a warning.
//
// An instance runs its goroutines only while a call of it waits (the
// guest has one thread, and nothing of it runs between calls), so a
// goroutine a call leaves runnable runs during a later call: in a bundle,
// a call of any of its routes, which pays for it. A goroutine that never
// yields then stopped that other route's call at its deadline, blamed on
// it, and what a left goroutine logs was logged as that call's. Run here,
// it is the call that started it, or made it runnable (a job sent on a
// buffered channel to a goroutine an earlier call started), that pays,
// and answers for it.
//
// It costs a count of the goroutines when the instance has none but the
// call's own (the goroutine an export runs on); else a yield, which runs
// the runnable ones: which they are, the runtime does not say.
func settle(before int) {
	if runtime.NumGoroutine() <= 1 {
		return
	}
	runtime.Gosched()
	if left := runtime.NumGoroutine() - before; left > 0 {
		hostLog(abi.LogWarn, fmt.Sprintf("endpoints: the call left %d goroutine(s) it started running: they run only while a later call of this instance waits (in a bundle, a call of any of its routes), and take that call's time; wait for them (sync.WaitGroup) before returning", left))
	}
}
