package storagetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
)

// quotaShare is the share of the clients of the quota cases: room for a
// few of their records in any store (each counts at least its 100-byte key
// and 64-byte fingerprint), never for 40.
const quotaShare = 4096

// quotaFP is the fingerprint of the quota cases' records: as long as the
// host's (a SHA-256 in hex).
var quotaFP = strings.Repeat("f", 64)

// quotaKey is the i-th record key of client: 100 bytes, so that every
// record of the cases counts alike.
func quotaKey(client string, i int) string {
	k := fmt.Sprintf("%s-%d-", client, i)
	return k + strings.Repeat("k", 100-len(k))
}

// quotaCases check the clients' shares of the Idempotency-Key records
// (storage.Client): one client's records cannot take another's room, and
// a record gives its share back when it expires or is released.
var quotaCases = []testCase{
	{"a client past its share is refused, another is not", func(t *testing.T, s storage.Store) {
		alice := storage.Client{ID: "addr:192.0.2.1", MaxBytes: quotaShare}
		leases, refused := fill(t, s, alice, long, long)
		n := len(leases)
		if n == 0 {
			t.Fatalf("no record of alice fit in a share of %d bytes", quotaShare)
		}
		wantQuota(t, refused, 0, long+time.Second)
		// Nothing changed: the refused key is free for another client.
		bob := storage.Client{ID: "addr:192.0.2.2", MaxBytes: quotaShare}
		freed := claimAs(t, s, quotaKey(alice.ID, n), bob, long)
		wantAcquired(t, freed)
		complete(t, s, quotaKey(alice.ID, n), freed.Lease, answer, long)
		if m, _ := fill(t, s, bob, long, long); len(m)+1 != n {
			t.Errorf("bob's share held %d records beside alice's full one, want %d as alice's did", len(m)+1, n)
		}
	}},
	{"a record that expires gives its share back", func(t *testing.T, s storage.Store) {
		// Completed records whose replay window ends, and claims whose
		// lease runs out: both kinds give their share back.
		for _, c := range []struct {
			client     storage.Client
			lease, ttl time.Duration
		}{
			{storage.Client{ID: "sub:alice", MaxBytes: quotaShare}, long, short},
			{storage.Client{ID: "sub:carol", MaxBytes: quotaShare}, short, 0},
		} {
			first, refused := fill(t, s, c.client, c.lease, c.ttl)
			wantQuota(t, refused, 0, short)
			time.Sleep(pause)
			again, refused := fill(t, s, c.client, c.lease, c.ttl)
			if len(again) != len(first) || len(first) == 0 {
				t.Errorf("%s: once its records expired, %d fit, want %d as before", c.client.ID, len(again), len(first))
			}
			// The refusal counts the records that fit again, not the
			// expired ones beside them.
			var q *storage.QuotaError
			if errors.As(refused, &q) && q.Used > q.MaxBytes {
				t.Errorf("%s: refused with %d of %d bytes used, more than the records that fit can take: the expired ones still count", c.client.ID, q.Used, q.MaxBytes)
			}
		}
	}},
	{"a released record gives its share back", func(t *testing.T, s storage.Store) {
		alice := storage.Client{ID: "addr:192.0.2.1", MaxBytes: quotaShare}
		leases, _ := fill(t, s, alice, long, 0)
		n := len(leases)
		if n == 0 {
			t.Fatal("no record fit")
		}
		// A claim of a key in flight is not refused: it gets the record.
		key := quotaKey(alice.ID, 0)
		wantInFlight(t, claimAs(t, s, key, alice, long), quotaFP)
		if _, err := s.Claim(t.Context(), quotaKey(alice.ID, n), quotaFP, long, alice); !errors.Is(err, storage.ErrClientQuota) {
			t.Fatalf("claim past the share: %v, want ErrClientQuota", err)
		}
		if err := s.Release(t.Context(), key, leases[0]); err != nil {
			t.Fatalf("Release: %v", err)
		}
		wantAcquired(t, claimAs(t, s, quotaKey(alice.ID, n), alice, long))
	}},
	{"an answer past the share is kept, and the next claim refused", func(t *testing.T, s storage.Store) {
		alice := storage.Client{ID: "addr:192.0.2.1", MaxBytes: quotaShare}
		c := claimAs(t, s, "big", alice, long)
		wantAcquired(t, c)
		// The request ran: its answer is kept, whatever the share.
		big := storage.Answer{Status: 201, Body: make([]byte, quotaShare)}
		complete(t, s, "big", c.Lease, big, long)
		wantCompleted(t, claimAs(t, s, "big", alice, long), quotaFP, big)
		_, err := s.Claim(t.Context(), quotaKey(alice.ID, 0), quotaFP, long, alice)
		wantQuota(t, err, long-time.Second, long)
	}},
	{"a replay is not refused", func(t *testing.T, s storage.Store) {
		alice := storage.Client{ID: "addr:192.0.2.1", MaxBytes: quotaShare}
		leases, _ := fill(t, s, alice, long, long)
		for i := range leases {
			c := claimAs(t, s, quotaKey(alice.ID, i), alice, long)
			wantCompleted(t, c, quotaFP, answer)
		}
	}},
	{"a client without an id has no share", func(t *testing.T, s storage.Store) {
		anyone := storage.Client{MaxBytes: quotaShare}
		for i := range 40 {
			wantAcquired(t, claimAs(t, s, quotaKey("anon", i), anyone, long))
		}
	}},
	{"concurrent claims stay within the share", func(t *testing.T, s storage.Store) {
		// What fits one after the other, on a client of its own.
		serial, _ := fill(t, s, storage.Client{ID: "serial", MaxBytes: quotaShare}, long, 0)
		n := len(serial)
		hammer := storage.Client{ID: "hammer", MaxBytes: quotaShare}
		type outcome struct{ acquired, refused bool }
		outs := Hammer(t, 40, func(i int) (outcome, error) {
			c, err := s.Claim(t.Context(), quotaKey(hammer.ID, i), quotaFP, long, hammer)
			if errors.Is(err, storage.ErrClientQuota) {
				return outcome{refused: true}, nil
			}
			return outcome{acquired: c.Acquired}, err
		})
		acquired := 0
		for _, o := range outs {
			if o.acquired {
				acquired++
			}
		}
		if acquired != n {
			t.Errorf("%d of 40 concurrent claims acquired a key, want %d (as many as fit one after the other)", acquired, n)
		}
	}},
}

// fill claims new keys for client (quotaKey(client.ID, 0), 1, ...) until
// the share refuses one, completing each with answer for ttl unless ttl is
// zero. It returns the leases of the records that fit (completed ones
// have none left) and the refusal.
func fill(t *testing.T, s storage.Store, client storage.Client, lease, ttl time.Duration) ([]string, error) {
	t.Helper()
	var leases []string
	for i := range 40 {
		key := quotaKey(client.ID, i)
		c, err := s.Claim(t.Context(), key, quotaFP, lease, client)
		if errors.Is(err, storage.ErrClientQuota) {
			return leases, err
		}
		if err != nil {
			t.Fatalf("Claim(%q): %v", key, err)
		}
		wantAcquired(t, c)
		if ttl > 0 {
			complete(t, s, key, c.Lease, answer, ttl)
		}
		leases = append(leases, c.Lease)
	}
	t.Fatalf("40 records of client %q fit in a share of %d bytes", client.ID, client.MaxBytes)
	return nil, nil
}

func claimAs(t *testing.T, s storage.Store, key string, client storage.Client, lease time.Duration) storage.Claim {
	t.Helper()
	c, err := s.Claim(t.Context(), key, quotaFP, lease, client)
	if err != nil {
		t.Fatalf("Claim(%q) for %q: %v", key, client.ID, err)
	}
	return c
}

// wantQuota checks that err is a QuotaError whose RetryAfter lies in
// [least, most].
func wantQuota(t *testing.T, err error, least, most time.Duration) {
	t.Helper()
	var q *storage.QuotaError
	switch {
	case !errors.Is(err, storage.ErrClientQuota) || !errors.As(err, &q):
		t.Fatalf("got %v, want a *storage.QuotaError matching ErrClientQuota", err)
	case q.Used+q.Need <= q.MaxBytes && q.MaxBytes > 0:
		t.Errorf("refused with %d of %d bytes used and %d needed: that fits", q.Used, q.MaxBytes, q.Need)
	case q.RetryAfter < least || q.RetryAfter > most:
		t.Errorf("RetryAfter = %v, want between %v and %v (when the client's first record expires)", q.RetryAfter, least, most)
	}
}
