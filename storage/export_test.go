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
