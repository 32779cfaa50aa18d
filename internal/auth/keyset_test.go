package auth

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAddToKeySetKidsOnlyWhenGiven: a key set whose keys name no kid (an
// identity provider's may not: the host tries each) takes a new key, as
// keygen --add adds one; two keys of one kid are still refused.
func TestAddToKeySetKidsOnlyWhenGiven(t *testing.T) {
	public := func(kid string) []byte {
		_, pub, _, err := NewKey("ES256", "k")
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(pub, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "kid")
		if kid != "" {
			m["kid"] = kid
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	unnamed, err := KeySet(public(""), public(""))
	if err != nil {
		t.Fatalf("a key set of two keys without a kid: %v", err)
	}
	got, err := AddToKeySet(unnamed, public("users-2"))
	if err != nil {
		t.Fatalf("adding a key to a set whose keys name no kid: %v", err)
	}
	keys, err := parseKeySet(got, false)
	if err != nil || len(keys) != 3 || keys[2].KeyID != "users-2" {
		t.Errorf("the set after the add: %d keys (%v), want the two without a kid, then users-2", len(keys), err)
	}
	named, err := KeySet(public("users-1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AddToKeySet(named, public("users-1")); err == nil || !strings.Contains(err.Error(), `already has a key of kid "users-1"`) {
		t.Errorf("adding a second key of kid users-1: %v, want it refused", err)
	}
}
