package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/endpointstest"
)

// Natively (go test), endpoints.KV is an in-memory map of the process;
// each test starts from an empty one with endpointstest.Reset.

func fresh(t *testing.T) {
	t.Helper()
	endpointstest.Reset(t)
}

// check fails the test on an error.
func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ptr(s string) *string { return &s }

func TestSeedWritesOnce(t *testing.T) {
	fresh(t)
	check(t, Seed())
	var keys []string
	for key, err := range endpoints.KV.Keys("") {
		check(t, err)
		keys = append(keys, key)
	}
	wantKeys := []string{"users/0000000001", "users/0000000002", "users/0000000003", "users:next-id", "users:ready", "users:seeded"}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("keys after the seed = %q, want %q", keys, wantKeys)
	}
	// A changed seed user stays changed: a second Seed writes nothing.
	_, _, err := Update(1, UserPatch{Name: ptr("Augusta Ada King")})
	check(t, err)
	check(t, Seed())
	u, _, err := Find(1)
	check(t, err)
	if u.Name != "Augusta Ada King" {
		t.Errorf("user 1 after a second Seed = %+v, want the changed name kept", u)
	}
}

func TestSeedWaitsForAnotherSeeder(t *testing.T) {
	fresh(t)
	defer func(d time.Duration) { seedWait = d }(seedWait)
	seedWait = 20 * time.Millisecond
	// Another request claimed the seed and has not finished it.
	_, err := endpoints.KV.Incr(seedingKey, 1)
	check(t, err)

	start := time.Now()
	_, _, err = Find(1)
	if !errors.Is(err, endpoints.ErrStorageUnavailable) {
		t.Fatalf("Find while another request seeds: error %v, want one wrapping ErrStorageUnavailable", err)
	}
	if waited := time.Since(start); waited < seedWait {
		t.Errorf("gave up after %s, want a wait of %s", waited, seedWait)
	}
	if _, ok, _ := endpoints.KV.Get(idKey(userPrefix, 1)); ok {
		t.Error("the waiting request wrote the seed, which another request claimed")
	}

	// The other request finishes: the marker is all a waiter looks for.
	check(t, endpoints.KV.Set(readyKey, []byte("1"), 0))
	if err := Seed(); err != nil {
		t.Errorf("Seed once the marker is there: %v, want nil", err)
	}
}

func TestUsers(t *testing.T) {
	fresh(t)
	steps := []struct {
		name string
		do   func() (any, error)
		want string // JSON
	}{
		{"find a seed user", func() (any, error) { u, ok, err := Find(2); return []any{u, ok}, err },
			`[{"id":2,"name":"Grace Hopper","email":"grace@example.com"},true]`},
		{"find a missing user", func() (any, error) { u, ok, err := Find(9); return []any{u, ok}, err },
			`[{"id":0,"name":"","email":""},false]`},
		{"create: the first id after the seed", func() (any, error) {
			return Create(NewUser{Name: "Barbara Liskov", Email: "barbara@example.com"})
		}, `{"id":4,"name":"Barbara Liskov","email":"barbara@example.com"}`},
		{"create again: the next id", func() (any, error) {
			return Create(NewUser{Name: "Edsger Dijkstra", Email: "edsger@example.com"})
		}, `{"id":5,"name":"Edsger Dijkstra","email":"edsger@example.com"}`},
		{"find a created user", func() (any, error) { u, ok, err := Find(4); return []any{u, ok}, err },
			`[{"id":4,"name":"Barbara Liskov","email":"barbara@example.com"},true]`},
		{"update sets the fields given", func() (any, error) {
			u, ok, err := Update(3, UserPatch{Email: ptr("turing@example.com")})
			return []any{u, ok}, err
		}, `[{"id":3,"name":"Alan Turing","email":"turing@example.com"},true]`},
		{"the update is stored", func() (any, error) { u, ok, err := Find(3); return []any{u, ok}, err },
			`[{"id":3,"name":"Alan Turing","email":"turing@example.com"},true]`},
		{"update a missing user", func() (any, error) {
			u, ok, err := Update(9, UserPatch{Name: ptr("Nobody")})
			return []any{u, ok}, err
		}, `[{"id":0,"name":"","email":""},false]`},
		{"search ignores case and counts every match", func() (any, error) { return Search("E", 2) },
			`{"items":[{"id":1,"name":"Ada Lovelace","email":"ada@example.com"},{"id":2,"name":"Grace Hopper","email":"grace@example.com"}],"total":5}`},
		{"search finds created and changed users", func() (any, error) { return Search("example.com", 10) },
			`{"items":[{"id":1,"name":"Ada Lovelace","email":"ada@example.com"},{"id":2,"name":"Grace Hopper","email":"grace@example.com"},` +
				`{"id":3,"name":"Alan Turing","email":"turing@example.com"},{"id":4,"name":"Barbara Liskov","email":"barbara@example.com"},` +
				`{"id":5,"name":"Edsger Dijkstra","email":"edsger@example.com"}],"total":5}`},
		{"search without a match", func() (any, error) { return Search("zuse", 10) }, `{"items":[],"total":0}`},
		{"all, in id order", func() (any, error) {
			var ids []int
			for u, err := range All() {
				if err != nil {
					return nil, err
				}
				ids = append(ids, u.ID)
			}
			return ids, nil
		}, `[1,2,3,4,5]`},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			v, err := st.do()
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(v)
			if !jsonEqual(t, got, st.want) {
				t.Errorf("got %s, want %s", got, st.want)
			}
		})
	}
}

// TestAllOrdersByIDPastNine checks that zero-padded keys list users in id
// order, not text order (10 after 9, not after 1).
func TestAllOrdersByIDPastNine(t *testing.T) {
	fresh(t)
	for i := range 8 {
		_, err := Create(NewUser{Name: fmt.Sprint("User ", i), Email: "u@example.com"})
		check(t, err)
	}
	var ids []int
	for u, err := range All() {
		check(t, err)
		ids = append(ids, u.ID)
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
}

func TestCreateOrder(t *testing.T) {
	fresh(t)
	items := []OrderItem{{SKU: "BOOK-42", Quantity: 2}}
	for want := 1; want <= 2; want++ {
		o, err := CreateOrder(NewOrder{UserID: 1, Items: items})
		check(t, err)
		if o.ID != want || o.UserID != 1 || !reflect.DeepEqual(o.Items, items) {
			t.Errorf("order %d = %+v, want id %d for user 1 with %v", want, o, want, items)
		}
		if at, err := time.Parse(time.RFC3339Nano, o.CreatedAt); err != nil || time.Since(at) > time.Minute {
			t.Errorf("createdAt = %q (%v), want about now in RFC 3339", o.CreatedAt, err)
		}
		var stored Order
		if ok, err := endpoints.KV.GetJSON(fmt.Sprintf("orders/%010d", want), &stored); err != nil || !ok || !reflect.DeepEqual(stored, o) {
			t.Errorf("stored order %d = %+v (found %v, %v), want %+v", want, stored, ok, err, o)
		}
	}
}

func TestStoreFailure(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantBody   string
	}{
		{"store down", fmt.Errorf("model: reading user 1: %w", endpoints.ErrStorageUnavailable), 503, `{"statusCode":503,"statusMessage":"Service Unavailable"}`},
		{"anything else", fmt.Errorf("model: reading user 1: %w", abi.ErrInvalid), 500, `{"statusCode":500,"statusMessage":"Internal Server Error"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := StoreFailure(tt.err)
			body, _ := json.Marshal(r.Body())
			if r.Status() != tt.wantStatus || string(body) != tt.wantBody {
				t.Errorf("got %d %s, want %d %s", r.Status(), body, tt.wantStatus, tt.wantBody)
			}
		})
	}
}

func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got invalid JSON %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is invalid JSON %s: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

func TestIDKey(t *testing.T) {
	for _, id := range []int{0, 1, 7, 42, 999999999, 1000000000, 12345678901, -5} {
		if got, want := idKey(userPrefix, id), fmt.Sprintf("%s%010d", userPrefix, id); got != want {
			t.Errorf("idKey(%d) = %q, want %q", id, got, want)
		}
	}
}
