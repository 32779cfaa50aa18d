package endpoints

// Reset is reset, for the tests and examples of this package, which
// register several modules' worth of handlers in one process.
func Reset() { reset() }

// Declaration is declaration, for the external tests of bundles.
func Declaration() []byte { return declaration() }
