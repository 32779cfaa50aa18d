package apikeys_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/apikeys"
	"github.com/wasmendpoints/endpoints/storage"
)

func TestPutLookupDelete(t *testing.T) {
	ctx := context.Background()
	s := storage.NewMemory(storage.MemoryOptions{})
	defer s.Close()
	key := apikeys.New()
	sum := apikeys.Sum(key)
	if err := apikeys.Put(ctx, s, "shop", strings.ToUpper(sum), apikeys.Record{Subject: "ci", Scopes: []string{"orders:write"}}, 0); err != nil {
		t.Fatal(err)
	}
	got, ok, err := apikeys.Lookup(ctx, s, "shop", sum)
	if err != nil || !ok || string(got) != `{"subject":"ci","scopes":["orders:write"]}` {
		t.Errorf("Lookup = %s, %v, %v; want the record", got, ok, err)
	}
	if _, ok, _ := s.Get(ctx, "shop", apikeys.Prefix+sum); ok {
		t.Error("the record is in the app's (the guests') namespace")
	}
	if _, ok, _ := apikeys.Lookup(ctx, s, "other", sum); ok {
		t.Error("another app sees the record")
	}
	if ok, err := apikeys.Delete(ctx, s, "shop", sum); !ok || err != nil {
		t.Errorf("Delete = %v, %v; want true, nil", ok, err)
	}
	if _, ok, _ := apikeys.Lookup(ctx, s, "shop", sum); ok {
		t.Error("the deleted record is still there")
	}
}

func TestPutRefuses(t *testing.T) {
	sum := apikeys.Sum("k")
	for _, tt := range []struct {
		name, sum, subject, want string
	}{
		{"a short sum", sum[:63], "ci", "want 64 hexadecimal digits"},
		{"a sum that is not hex", "z" + sum[1:], "ci", "want 64 hexadecimal digits"},
		{"the key itself", "k", "ci", "want 64 hexadecimal digits"},
		{"no subject", sum, " ", "needs a subject"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := storage.NewMemory(storage.MemoryOptions{})
			defer s.Close()
			err := apikeys.Put(context.Background(), s, "shop", tt.sum, apikeys.Record{Subject: tt.subject}, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Put = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestNewKeysDiffer(t *testing.T) {
	a, b := apikeys.New(), apikeys.New()
	if a == b || !strings.HasPrefix(a, "ek_") || len(a) != 3+64 {
		t.Errorf("New() = %q, %q: want two distinct ek_ keys of 64 hex digits", a, b)
	}
}
