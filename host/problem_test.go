package host

import (
	"reflect"
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/idempotency"
)

// TestProblemIsTheOneSent: IdempotencyProblem, which clients decode, has the fields
// and JSON names of the body the Idempotency-Key step sends.
func TestProblemIsTheOneSent(t *testing.T) {
	ours, sent := reflect.TypeFor[IdempotencyProblem](), reflect.TypeFor[idempotency.Problem]()
	if ours.NumField() != sent.NumField() {
		t.Fatalf("IdempotencyProblem has %d fields, the sent one %d", ours.NumField(), sent.NumField())
	}
	for i := range ours.NumField() {
		a, b := ours.Field(i), sent.Field(i)
		if a.Name != b.Name || a.Type != b.Type || a.Tag != b.Tag {
			t.Errorf("field %d: %s %s %q, the sent one's %s %s %q", i, a.Name, a.Type, a.Tag, b.Name, b.Type, b.Tag)
		}
	}
}

// TestIdempotencyOutcomesAreTheObservers: every outcome of the step is
// one of the IdempotencyOutcome values an observer is told.
func TestIdempotencyOutcomesAreTheObservers(t *testing.T) {
	tests := []struct {
		step idempotency.Outcome
		want IdempotencyOutcome
	}{
		{idempotency.KeyMissing, IdempotencyKeyMissing},
		{idempotency.KeyInvalid, IdempotencyKeyInvalid},
		{idempotency.Unavailable, IdempotencyUnavailable},
		{idempotency.Claimed, IdempotencyClaimed},
		{idempotency.Replayed, IdempotencyReplayed},
		{idempotency.Conflict, IdempotencyConflict},
		{idempotency.Mismatch, IdempotencyMismatch},
		{idempotency.Stored, IdempotencyStored},
		{idempotency.Released, IdempotencyReleased},
		{idempotency.LeaseLost, IdempotencyLeaseLost},
	}
	for _, tt := range tests {
		t.Run(string(tt.want), func(t *testing.T) {
			if got := IdempotencyOutcome(tt.step); got != tt.want {
				t.Errorf("IdempotencyOutcome(%q) = %q, want %q", tt.step, got, tt.want)
			}
		})
	}
}
