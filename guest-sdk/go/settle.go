//go:build wasip1

package endpoints

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
)

// settle ends the call of an export that serves a request (a handler, a
// validation-error hook, a middleware phase), before which before
// goroutines existed: the goroutines left runnable run now, within this
// call and its deadline, and those the call started that are still there
// then are logged as a warning that names each (strayGoroutines): what it
// waits for and the go statement that started it.
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
// A goroutine left waiting on a timer (time.Sleep, time.After, a
// context's deadline) is not runnable here, and nothing of the instance
// runs between calls: it runs in the first later call of the instance
// that yields to the scheduler once its time has come (settle's yield,
// which every call makes while the instance holds another goroutine, or
// the call's own wait on a channel, a lock or a timer; a host call does
// not yield), on that call's time and deadline, and what it logs is that
// call's. The SDK cannot keep it from there (Go has no way to stop a
// goroutine, nor to hold its timer), so the warning names it.
//
// It costs a count of the goroutines when the instance has none but the
// call's own (the goroutine an export runs on); else a yield, which runs
// the runnable ones: which they are, the runtime does not say. Only a
// call that leaves goroutines reads their stacks (goroutineDump).
func settle(before int) {
	if runtime.NumGoroutine() <= 1 {
		return
	}
	runtime.Gosched()
	if left := runtime.NumGoroutine() - before; left > 0 {
		which := ""
		if names := strayGoroutines(goroutineDump(), left); len(names) > 0 {
			which = " (" + strings.Join(names, "; ") + ")"
		}
		hostLog(abi.LogWarn, fmt.Sprintf("endpoints: the call left %d goroutine(s) it started running%s: they run only while a later call of this instance waits (in a bundle, a call of any of its routes), and take that call's time; one sleeping (time.Sleep, a timer) runs in the first such call after its time; wait for them (sync.WaitGroup) before returning", left, which))
	}
}

// maxGoroutineDump bounds the text goroutineDump reads: enough for the
// stacks of a few hundred goroutines, which an instance that leaks one per
// call reaches; strayGoroutines names those it holds.
const maxGoroutineDump = 64 << 10

// goroutineDump is every goroutine's stack, as runtime.Stack writes it,
// up to maxGoroutineDump bytes.
func goroutineDump() []byte {
	buf := make([]byte, 8<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= maxGoroutineDump {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}
