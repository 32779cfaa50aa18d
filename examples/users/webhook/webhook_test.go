package webhook_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/examples/users/webhook"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/endpointstest"
)

// receiver is a webhook receiver that verifies signatures with secret and
// answers status; got receives each body it accepted.
func receiver(t *testing.T, secret string, status int) (*httptest.Server, chan string) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get(webhook.SignatureHeader) != webhook.Sign(secret, body) || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		got <- string(body)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func TestSign(t *testing.T) {
	// RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
	const want = "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
	if got := webhook.Sign("Jefe", []byte("what do ya want for nothing?")); got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

func TestSend(t *testing.T) {
	const secret = "whsec-test"
	tests := []struct {
		name              string
		url, key          string // the variables; url "receiver" is the test's receiver
		receiverKey       string
		status            int
		wantSent, wantErr bool
		errText           string
	}{
		{name: "no webhookUrl: nothing is sent", url: "", key: secret},
		{name: "signed and accepted", url: "receiver", key: secret, receiverKey: secret, status: 204, wantSent: true},
		{name: "refused by the receiver", url: "receiver", key: secret, receiverKey: secret, status: 503, wantSent: true, wantErr: true,
			errText: "the receiver answered the order.created event with status 503"},
		{name: "signed with another secret", url: "receiver", key: "wrong", receiverKey: secret, status: 204, wantSent: true, wantErr: true,
			errText: "with status 401"},
		{name: "a url without a secret", url: "receiver", key: "", wantErr: true, errText: "webhookSecret is empty"},
		{name: "an unreachable receiver", url: "http://127.0.0.1:1/hooks", key: secret, wantErr: true, errText: "posting the order.created event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			endpointstest.Reset(t)
			srv, got := receiver(t, tt.receiverKey, tt.status)
			url := tt.url
			if url == "receiver" {
				url = srv.URL + "/hooks"
			}
			endpointstest.SetVariable(t, webhook.URLVariable, url)
			endpointstest.SetVariable(t, webhook.SecretVariable, tt.key)
			sent, err := webhook.Send("order.created", map[string]int{"id": 7})
			if sent != tt.wantSent || (err != nil) != tt.wantErr || err != nil && !strings.Contains(err.Error(), tt.errText) {
				t.Fatalf("Send = %v, %v; want sent %v, error %v containing %q", sent, err, tt.wantSent, tt.wantErr, tt.errText)
			}
			if tt.wantSent && !tt.wantErr {
				if body := <-got; body != `{"type":"order.created","data":{"id":7}}` {
					t.Errorf("the receiver got %s", body)
				}
			}
		})
	}
}
