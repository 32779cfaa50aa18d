package idempotency

import (
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Problem is the Problem Details body (RFC 9457) of an Idempotency-Key
// failure, sent as application/problem+json (docs/spec.md §6). Clients
// decode it as host.IdempotencyProblem, its public name.
//
//	{"type":"urn:endpoints:problem:idempotency-key-reused","title":"Idempotency-Key reused",
//	 "status":422,"detail":"...","code":"IDEMPOTENCY_KEY_REUSED"}
type Problem struct {
	// Type is a URN naming the problem: urn:endpoints:problem:...
	Type string `json:"type"`
	// Title is its short, human summary, the same for every occurrence.
	Title string `json:"title"`
	// Status is the answer's status: 400, 409, 422, 429 or 503.
	Status int `json:"status"`
	// Detail explains this occurrence.
	Detail string `json:"detail"`
	// Code is the machine-readable code clients branch on
	// ([openapi.CodeKeyReused]...).
	Code string `json:"code"`
}

// problemTitles are the titles of the failures by code.
var problemTitles = map[string]string{
	openapi.CodeKeyInvalid:       "Invalid Idempotency-Key",
	openapi.CodeKeyRequired:      "Idempotency-Key required",
	openapi.CodeKeyReused:        "Idempotency-Key reused",
	openapi.CodeInFlight:         "Request in flight",
	openapi.CodeLeaseLost:        "Idempotency lease lost",
	openapi.CodeStoreUnavailable: "Idempotency store unavailable",
	openapi.CodeClientQuota:      "Idempotency-Key records over the client's share",
}

// writeProblem answers an Idempotency-Key failure.
func (s *Step) writeProblem(w http.ResponseWriter, r *http.Request, status int, code, detail string) {
	p := Problem{
		Type:   "urn:endpoints:problem:" + strings.ReplaceAll(strings.ToLower(code), "_", "-"),
		Title:  problemTitles[code],
		Status: status,
		Detail: detail,
		Code:   code,
	}
	body, err := json.Marshal(p, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		s.WriteError(w, r, http.StatusInternalServerError)
		return
	}
	answer.Write(w, r, status, "application/problem+json", body)
}
