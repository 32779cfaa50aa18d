//go:build wasip1

package endpoints

import (
	"fmt"
	"runtime"

	"github.com/wasmendpoints/endpoints/abi"
)

// settle ends the call of an export that serves a request (a handler, a
// validation-error hook, a middleware phase), before which before
// goroutines existed: the goroutines the call started and left runnable
// run now, within this call and its deadline, and those still there then
// are logged as a warning.
//
// An instance runs its goroutines only while a call of it waits (the
// guest has one thread, and nothing of it runs between calls), so a
// goroutine a call leaves behind runs during a later call: in a bundle,
// a call of any of its routes, which pays for it. A goroutine that never
// yields then stopped that other route's call at its deadline, blamed on
// it, and what a left goroutine logs was logged as that call's. Run here,
// it is the call that started it that pays, and answers for it.
//
// It costs nothing when the call left no goroutine: a count of them.
func settle(before int) {
	if runtime.NumGoroutine() <= before {
		return
	}
	runtime.Gosched()
	if left := runtime.NumGoroutine() - before; left > 0 {
		hostLog(abi.LogWarn, fmt.Sprintf("endpoints: the call left %d goroutine(s) it started running: they run only while a later call of this instance waits (in a bundle, a call of any of its routes), and take that call's time; wait for them (sync.WaitGroup) before returning", left))
	}
}
