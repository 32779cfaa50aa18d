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

// branchy counts, for i in [0, n), the i that are 0, 1 and 2 modulo 3 and
// those with bit 2 set: a loop whose body branches forward, which Go
// compiles as jumps through its dispatch loop. TestInstrumentGoGuestChecks
// has its twin.
//
//go:wasmexport branchy
func branchy(n int32) int32 {
	var zero, one, two, bit int32
	for i := int32(0); i < n; i++ {
		switch i % 3 {
		case 0:
			zero++
		case 1:
			one++
		default:
			two++
		}
		if i&4 != 0 {
			bit++
		}
	}
	return zero<<24 | one<<16 | two<<8 | bit
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
