package host

// Hooks for the tests of package host_test.

// Drained is closed once the host is closing and every instance is back
// in its pool.
func (h *Host) Drained() <-chan struct{} { return h.engine.life.drained() }

// UseGoHeapMemory makes hosts created afterwards keep guest memory in Go
// slices, wazero's default, as before internal/linearmem.
func UseGoHeapMemory() { mappedMemory = false }
