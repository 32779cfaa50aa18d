package storage

// MemoryUsed returns the bytes m counts against its budgets: key-value
// data, Idempotency-Key records and rate-limit buckets.
func MemoryUsed(m *Memory) (kv, idem, rate int64) {
	return m.kv.budget.used.Load(), m.idem.budget.used.Load(), m.buckets.budget.used.Load()
}

// Sizes of entries, as the store counts them.
const (
	KVEntryBytes     = kvEntryBytes
	KVTTLBytes       = kvTTLBytes
	KVSpaceBytes     = kvSpaceBytes
	IdemRecordBytes  = idemRecordBytes
	BucketEntryBytes = bucketEntryBytes
)

// AllocBytes is allocBytes.
var AllocBytes = allocBytes

// MemoryBudgets returns the bounds of m's budgets.
func MemoryBudgets(m *Memory) (kv, idem, rate int64) {
	return m.kv.budget.max, m.idem.budget.max, m.buckets.budget.max
}

// IdemClients returns how many clients m's records count against, and
// the bytes of client's.
func IdemClients(m *Memory, client string) (clients int, used int64) {
	m.idem.mu.Lock()
	defer m.idem.mu.Unlock()
	if c := m.idem.clients[client]; c != nil {
		used = c.used
	}
	return len(m.idem.clients), used
}
