// A C guest with a hot loop, a recursive function and an infinite loop.
// Built by the tests, with clang 14 and lld (Debian packages clang, lld):
//
//	clang --target=wasm32-wasi -O2 -nostdlib -Wl,--no-entry -Wl,--export-all -o hot.wasm hot.c

// mix folds 1..n into a hash that has no closed form, so that the
// optimiser keeps the loop.
unsigned int mix(unsigned int n) {
	unsigned int acc = 17;
	for (unsigned int i = 1; i <= n; i++) {
		acc = acc * 31 + (i ^ (acc >> 7));
	}
	return acc;
}

// fib is the naive doubly recursive Fibonacci.
int fib(int n) {
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

volatile unsigned int counter;

// spin never returns.
void spin(void) {
	for (;;) {
		counter++;
	}
}
