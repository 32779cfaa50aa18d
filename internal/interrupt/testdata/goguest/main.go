//go:build wasip1

// Command goguest is a Go guest for the interrupt tests: a reactor module
// (no main loop) whose exports return a value or loop forever.
//
// Built by the tests into a temporary directory:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o goguest.wasm ./testdata/goguest
package main

// collatz returns the number of Collatz steps from n down to 1.
//
//go:wasmexport collatz
func collatz(n int64) int32 {
	steps := int32(0)
	for n != 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}

// sink keeps spin's loop from being optimised away.
var sink int64

// spin never returns.
//
//go:wasmexport spin
func spin() {
	for {
		sink++
	}
}

func main() {}
