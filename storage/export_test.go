package storage

import "time"

// SetMemoryClock makes m read the time from now, so tests move time
// without sleeping.
func SetMemoryClock(m *Memory, now func() time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = now
}

// MemoryUsed returns the bytes m counts against MaxBytes.
func MemoryUsed(m *Memory) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}
