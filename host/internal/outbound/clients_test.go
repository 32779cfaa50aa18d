package outbound_test

import (
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/outbound"
)

func TestClientsKeepTheClientOfTheSameSettings(t *testing.T) {
	var cs outbound.Clients
	defer cs.Close()
	first, err := cs.Get("a", outbound.Config{})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		key     string
		cfg     outbound.Config
		wantErr bool
		same    bool // the client is the one held before
	}{
		{name: "same settings: the same client", key: "a", same: true},
		{name: "settings that fail: an error, the client held is kept", key: "b", cfg: outbound.Config{CAs: []byte("not PEM")}, wantErr: true},
		{name: "still the same client for the first settings", key: "a", same: true},
		{name: "other settings: a new client", key: "c", same: false},
	}
	held := first
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			c, err := cs.Get(s.key, s.cfg)
			if (err != nil) != s.wantErr {
				t.Fatalf("Get(%q): error %v, want one: %v", s.key, err, s.wantErr)
			}
			if err != nil {
				return
			}
			if (c == held) != s.same {
				t.Errorf("Get(%q) returned the held client: %v, want %v", s.key, c == held, s.same)
			}
			held = c
		})
	}
}
