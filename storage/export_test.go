package storage

// MemoryUsed returns the bytes m counts against MaxBytes.
func MemoryUsed(m *Memory) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}
