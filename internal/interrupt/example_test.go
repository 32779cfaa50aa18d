package interrupt_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// spin is (module (func (export "spin") (loop (br 0)))).
var spin = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: (func)
	0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
	0x07, 0x08, 0x01, 0x04, 's', 'p', 'i', 'n', 0x00, 0x00, // export section: "spin" is function 0
	0x0a, 0x09, 0x01, 0x07, 0x00, // code section: one body of 7 bytes, no locals
	0x03, 0x40, 0x0c, 0x00, 0x0b, // loop, br 0, end
	0x0b, // end
}

// Instrument a module at load time, register the check import once per
// runtime, and give each call a Budget: a runaway call returns
// ErrInterrupted at its deadline.
func Example() {
	ctx := context.Background()
	wasm, err := interrupt.Instrument(spin, interrupt.DefaultPeriod)
	if err != nil {
		log.Fatal(err)
	}
	rt := wazero.NewRuntime(ctx) // WithCloseOnContextDone stays off
	defer rt.Close(ctx)
	if err := interrupt.NewHostModule(ctx, rt, interrupt.DefaultPeriod); err != nil {
		log.Fatal(err)
	}
	mod, err := rt.Instantiate(ctx, wasm)
	if err != nil {
		log.Fatal(err)
	}

	var budget interrupt.Budget
	budget.Reset(time.Now().Add(10 * time.Millisecond))
	_, err = mod.ExportedFunction("spin").Call(interrupt.WithBudget(ctx, &budget))
	fmt.Println(errors.Is(err, interrupt.ErrInterrupted), budget.Stopped())
	// The instance may be half-updated: discard it.
	mod.Close(ctx)
	// Output:
	// true false
}

// Stop a call from another goroutine, for example when the client
// disconnects.
func ExampleBudget_Stop() {
	ctx := context.Background()
	wasm, err := interrupt.Instrument(spin, interrupt.DefaultPeriod)
	if err != nil {
		log.Fatal(err)
	}
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if err := interrupt.NewHostModule(ctx, rt, interrupt.DefaultPeriod); err != nil {
		log.Fatal(err)
	}
	mod, err := rt.Instantiate(ctx, wasm)
	if err != nil {
		log.Fatal(err)
	}
	defer mod.Close(ctx)

	var budget interrupt.Budget
	budget.Reset(time.Time{}) // no deadline
	time.AfterFunc(5*time.Millisecond, budget.Stop)
	_, err = mod.ExportedFunction("spin").Call(interrupt.WithBudget(ctx, &budget))
	fmt.Println(errors.Is(err, interrupt.ErrInterrupted), budget.Stopped())
	// Output:
	// true true
}
