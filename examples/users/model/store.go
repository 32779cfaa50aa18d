package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// Keys of the app's key-value store.
const (
	// userPrefix starts the key of each user: users/0000000007.
	userPrefix = "users/"
	// nextUserKey is the counter of user ids: the last id given out.
	nextUserKey = "users:next-id"
	// seedingKey counts the requests that found the store unseeded; the
	// one that makes it 1 writes the seed.
	seedingKey = "users:seeded"
	// readyKey is written once the seed is complete.
	readyKey = "users:ready"
	// orderPrefix starts the key of each order: orders/0000000001.
	orderPrefix = "orders/"
	// nextOrderKey is the counter of order ids.
	nextOrderKey = "orders:next-id"
)

// Timing of the seed (see [Seed]).
const (
	// seedLease is how long the claim to write the seed lasts: if its
	// request dies before writing readyKey, a request after that seeds
	// again.
	seedLease = 30 * time.Second
	// seedPoll is how often a waiting request looks for readyKey.
	seedPoll = 5 * time.Millisecond
)

// seedWait is how long a request waits for another to finish the seed
// before it gives up with a 503. A variable so that tests can shorten it.
var seedWait = 2 * time.Second

// seed are the users every store starts with.
var seed = []User{
	{ID: 1, Name: "Ada Lovelace", Email: "ada@example.com"},
	{ID: 2, Name: "Grace Hopper", Email: "grace@example.com"},
	{ID: 3, Name: "Alan Turing", Email: "alan@example.com"},
}

// idKey is the key of record id under prefix, the id zero-padded to ten
// digits so that keys sort, and KV.Keys lists them, in id order.
//
// It builds the key with strconv, not fmt: fmt's reflection costs
// microseconds inside a Go WebAssembly module, on every request.
func idKey(prefix string, id int) string {
	if id < 0 {
		return fmt.Sprintf("%s%010d", prefix, id)
	}
	digits := 1
	for v := id; v >= 10; v /= 10 {
		digits++
	}
	var b [32]byte
	key := append(b[:0], prefix...)
	for range 10 - digits {
		key = append(key, '0')
	}
	return string(strconv.AppendInt(key, int64(id), 10))
}

// Seed makes sure the store holds the seed users 1, 2 and 3, writing them
// when it is new; Find, All, Search, Create and Update call it first. It is
// safe against concurrent first requests on any number of hosts sharing
// the store: the request whose KV.Incr of "users:seeded" returns 1 writes
// the users, sets "users:next-id" to 3 and then writes the "users:ready"
// marker; the others wait for the marker, polling every 5 ms for at most
// 2 s, so none sees a store without its seed users.
//
//	if err := model.Seed(); err != nil {
//		return model.StoreFailure(err) // 503 when the store is down
//	}
//
// # Notes
//
//   - A wait that runs out returns an error wrapping
//     [endpoints.ErrStorageUnavailable]: answered as a 503, retried later.
//   - The claim to seed expires after 30 s, so a request that died while
//     seeding does not leave the store unseeded for good. (KV.Incr cannot
//     set an expiry: the seeding request gives the claim one with KV.Set
//     right after taking it, and deletes it if seeding fails.)
//   - Once seeded a store is never seeded again: the marker has no
//     expiry, and users 1-3 may be changed like any other.
func Seed() error {
	ready, err := isReady()
	if err != nil || ready {
		return err
	}
	n, err := endpoints.KV.Incr(seedingKey, 1)
	if err != nil {
		return fmt.Errorf("model: claiming the seed: %w", err)
	}
	if n == 1 {
		return writeSeed()
	}
	for deadline := time.Now().Add(seedWait); time.Now().Before(deadline); {
		time.Sleep(seedPoll)
		if ready, err := isReady(); err != nil || ready {
			return err
		}
	}
	return fmt.Errorf("model: another request has been writing the seed users for over %s: %w", seedWait, endpoints.ErrStorageUnavailable)
}

// isReady reports whether the seed is complete.
func isReady() (bool, error) {
	_, ok, err := endpoints.KV.Get(readyKey)
	if err != nil {
		return false, fmt.Errorf("model: reading the seed marker: %w", err)
	}
	return ok, nil
}

// writeSeed writes the seed users, the id counter and the marker, for the
// request that claimed the seed. On failure it gives up the claim so that
// the next request tries again.
func writeSeed() error {
	err := func() error {
		if err := endpoints.KV.Set(seedingKey, []byte("1"), seedLease); err != nil {
			return err
		}
		last := 0
		for _, u := range seed {
			if err := endpoints.KV.SetJSON(idKey(userPrefix, u.ID), u, 0); err != nil {
				return err
			}
			last = max(last, u.ID)
		}
		if err := endpoints.KV.Set(nextUserKey, []byte(strconv.Itoa(last)), 0); err != nil {
			return err
		}
		return endpoints.KV.Set(readyKey, []byte("1"), 0)
	}()
	if err != nil {
		if _, derr := endpoints.KV.Delete(seedingKey); derr != nil {
			endpoints.Logger().Warn("giving up the claim to seed the users failed; it expires by itself", "error", derr.Error())
		}
		return fmt.Errorf("model: writing the seed users: %w", err)
	}
	return nil
}

// Bodies of StoreFailure, in the shape of the host's own errors: the 503
// is the one a HandleFunc handler answers for the same error. Both are
// declared for the routes of the app in server/routes.config.json.
var (
	unavailableBody = json.RawMessage(`{"statusCode":503,"statusMessage":"Service Unavailable"}`)
	serverErrorBody = json.RawMessage(`{"statusCode":500,"statusMessage":"Internal Server Error"}`)
)

// StoreFailure is the answer of a Handle handler to an error of this
// package: 503 when the store cannot be reached, 500 for anything else
// (a stored value that does not decode, say). It logs err.
//
//	u, ok, err := model.Find(in.ID)
//	if err != nil {
//		return model.StoreFailure(err)
//	}
func StoreFailure(err error) endpoints.Reply {
	endpoints.Logger().Error("the users store failed", "error", err.Error())
	if errors.Is(err, endpoints.ErrStorageUnavailable) {
		return endpoints.Respond(503, unavailableBody)
	}
	return endpoints.Respond(500, serverErrorBody)
}
