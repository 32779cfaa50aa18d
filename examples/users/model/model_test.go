package model

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/endpointstest"
)

// Natively (go test), endpoints.DB("main") is an SQLite file that
// endpointstest.Database makes for each test, with the app's migrations
// (server/migrations) applied: each test starts from the seed users.

func fresh(t *testing.T) {
	t.Helper()
	endpointstest.Reset(t)
	endpointstest.Database(t, "..")
}

// check fails the test on an error.
func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ptr(s string) *string { return &s }

// TestSeedIsAMigration: the seed users come from the first migration, and
// a changed seed user stays changed.
func TestSeedIsAMigration(t *testing.T) {
	fresh(t)
	_, _, err := Update(1, UserPatch{Name: ptr("Augusta Ada King")})
	check(t, err)
	u, _, err := Find(1)
	check(t, err)
	if u.Name != "Augusta Ada King" || u.Email != "ada@example.com" {
		t.Errorf("user 1 after an update of its name = %+v, want the changed name and the seed email", u)
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

// TestAllOrdersByIDPastNine checks that users list in id order (10 after
// 9), across pages of All.
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
		var userID int
		var stored, createdAt string
		check(t, endpoints.DB("main").QueryRow("SELECT user_id, items, created_at FROM orders WHERE id = $1", want).Scan(&userID, &stored, &createdAt))
		if userID != 1 || stored != `[{"sku":"BOOK-42","quantity":2}]` || createdAt != o.CreatedAt {
			t.Errorf("stored order %d = %d %s %s, want %+v", want, userID, stored, createdAt, o)
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
		{"database down", fmt.Errorf("model: reading user 1: %w", &endpoints.DBError{Code: "unavailable", Message: "connection refused"}), 503, `{"statusCode":503,"statusMessage":"Service Unavailable"}`},
		{"a constraint", fmt.Errorf("model: writing user 1: %w", &endpoints.DBError{Code: "constraint", Message: "duplicate"}), 500, `{"statusCode":500,"statusMessage":"Internal Server Error"}`},
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

func TestSearchEscapesLikePatterns(t *testing.T) {
	fresh(t)
	_, err := Create(NewUser{Name: "100% Sure_Thing", Email: "sure@example.com"})
	check(t, err)
	for q, want := range map[string]int{"%": 1, "_": 1, "0% s": 1, "a_e": 0} {
		res, err := Search(q, 10)
		check(t, err)
		if res.Total != want {
			t.Errorf("Search(%q) found %d, want %d: %+v", q, res.Total, want, res.Items)
		}
	}
}
