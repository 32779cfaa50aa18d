// Package webhook tells another service about the example's events: an
// event is POSTed as JSON to the app's variable webhookUrl, signed with
// webhookSecret, when webhookUrl is set.
//
// The receiver checks the Webhook-Signature header, "sha256=" and the hex
// HMAC-SHA256 of the body keyed by the secret, before trusting the body:
//
//	mac := hmac.New(sha256.New, secret)
//	mac.Write(body)
//	ok := hmac.Equal([]byte(r.Header.Get("Webhook-Signature")), []byte("sha256="+hex.EncodeToString(mac.Sum(nil))))
//
// The variables come from the host's environment (examples/users/
// endpoints.json: ORDERS_WEBHOOK_URL, ORDERS_WEBHOOK_SECRET), and the
// host must allow the receiver in outbound.allowedHosts: a guest reaches
// only the hosts listed there.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/outbound/fetch" // no net/http: the bundle stays small
)

// SignatureHeader is the header that carries the body's signature.
const SignatureHeader = "Webhook-Signature"

// Variables of endpoints.json the package reads.
const (
	// URLVariable is where events are posted; empty: none is.
	URLVariable = "webhookUrl"
	// SecretVariable keys the signature; required when URLVariable is set.
	SecretVariable = "webhookSecret"
)

// Event is what the receiver gets: the event's type and its data.
type Event struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// Sign returns the Webhook-Signature of body keyed by secret:
// "sha256=<hex HMAC-SHA256>".
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Send posts the event of type typ with data to the webhook, when the
// variable webhookUrl is set; it does nothing otherwise. It reports
// whether it posted, and an error when the post failed or was refused
// (a status other than 2xx): the caller decides what a failed webhook
// means (the example logs it, and the order stands).
func Send(typ string, data any) (sent bool, err error) {
	url, err := endpoints.Variable(URLVariable)
	if err != nil || url == "" {
		return false, err
	}
	secret, err := endpoints.Variable(SecretVariable)
	if err != nil {
		return false, err
	}
	if secret == "" {
		return false, errors.New("webhook: webhookUrl is set but webhookSecret is empty: set ORDERS_WEBHOOK_SECRET")
	}
	body, err := json.Marshal(Event{Type: typ, Data: data})
	if err != nil {
		return false, fmt.Errorf("webhook: encoding the %s event: %w", typ, err)
	}
	res, err := fetch.Send(fetch.Request{
		Method: "POST",
		URL:    url,
		Header: fetch.Header{"Content-Type": {"application/json"}, SignatureHeader: {Sign(secret, body)}},
		Body:   body,
	})
	if err != nil {
		return false, fmt.Errorf("webhook: posting the %s event: %w", typ, err)
	}
	if res.StatusCode/100 != 2 {
		return true, fmt.Errorf("webhook: the receiver answered the %s event with status %d", typ, res.StatusCode)
	}
	return true, nil
}
