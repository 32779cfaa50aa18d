package host_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestUsersExampleWebhook: an order created in examples/users is posted
// to the webhook of ORDERS_WEBHOOK_URL, signed with ORDERS_WEBHOOK_SECRET,
// which a loopback receiver verifies; a receiver that fails does not fail
// the order, and the host logs the failure without the secret.
func TestUsersExampleWebhook(t *testing.T) {
	t.Parallel()
	dir := builtExample(t, "users")
	const secret = "whsec-example-2b7f"
	got := make(chan string, 4)
	var down atomic.Bool // the receiver answers 503
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
		if !hmac.Equal([]byte(r.Header.Get("Webhook-Signature")), []byte(want)) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		got <- string(body)
		if down.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	e := &env{m: map[string]string{"ORDERS_WEBHOOK_URL": receiver.URL + "/hooks/orders", "ORDERS_WEBHOOK_SECRET": secret}}
	h, logs := (&app{t: t, dir: dir}).host(host.Options{Mode: host.Development, LookupEnv: e.lookup,
		ConfigOverrides: []config.Override{{Pointer: "/outbound/allowedHosts", Value: `["` + receiver.URL + `"]`, Source: "the test"}}})
	srv := newServer(t, h)
	post := func(key string) response {
		t.Helper()
		headers := append([]string{"Content-Type", "application/json", "Idempotency-Key", key}, writer(t)...)
		return do(t, srv, "POST", "/api/orders", `{"userId":1,"items":[{"sku":"BOOK-42","quantity":2}]}`, headers...)
	}

	res := post("webhook-1")
	if res.status != 201 {
		t.Fatalf("POST /api/orders: %d %s", res.status, res.body)
	}
	var event struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(<-got), &event); err != nil || event.Type != "order.created" || !jsonEqual(t, string(event.Data), res.body) {
		t.Errorf("the receiver got %+v (%v); want order.created with the order %s", event, err, res.body)
	}

	down.Store(true)
	res = post("webhook-2")
	if res.status != 201 {
		t.Errorf("with the receiver down, POST /api/orders: %d %s; want the order to stand", res.status, res.body)
	}
	<-got
	if !strings.Contains(logs.String(), "the order.created webhook failed; the order stands") {
		t.Errorf("the failed webhook was not logged:\n%s", logs)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the log shows the webhook secret:\n%s", logs)
	}
}
