package host

import (
	"net/http"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/internal/validation"
)

// FrameworkError is the body of every response the host makes itself for a
// request it refuses or a guest that failed (docs/spec.md §4): the shape the
// server engine of nuxt-endpoints serialises errors into, so one client error
// handler covers endpoints and plain routes.
//
//	{"statusCode":400,"statusMessage":"Validation Error",
//	 "data":{"query":[{"path":["limit"],"message":"must be less than or equal to 100"}]}}
type FrameworkError struct {
	StatusCode    int    `json:"statusCode"`
	StatusMessage string `json:"statusMessage"`
	Data          any    `json:"data,omitempty"`
}

// ValidationData is the data of a 400: the issues of every failing part, in
// pipeline order. Parts without issues are omitted.
type ValidationData struct {
	Params  []validation.Issue `json:"params,omitempty"`
	Query   []validation.Issue `json:"query,omitempty"`
	Headers []validation.Issue `json:"headers,omitempty"`
	Body    []validation.Issue `json:"body,omitempty"`
}

func (d *ValidationData) empty() bool {
	return d.Params == nil && d.Query == nil && d.Headers == nil && d.Body == nil
}

// MediaTypeData is the data of a 415 (and of a 406): what the client sent
// and what the endpoint supports.
type MediaTypeData struct {
	Received            string   `json:"received"`
	SupportedMediaTypes []string `json:"supportedMediaTypes"`
}

// ContractErrorData is the data of a 500 Response Contract Error: the
// status the guest answered and what is wrong with the answer.
type ContractErrorData struct {
	Status int                `json:"status"`
	Issues []validation.Issue `json:"issues"`
}

// Status messages the host uses beyond http.StatusText.
const (
	MessageValidation       = "Validation Error"
	MessageResponseContract = "Response Contract Error"
)

func writeError(w http.ResponseWriter, r *http.Request, status int, message string, data any) {
	if message == "" {
		message = http.StatusText(status)
	}
	body, err := json.Marshal(FrameworkError{StatusCode: status, StatusMessage: message, Data: data}, json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
	if err != nil {
		body = []byte(`{"statusCode":500,"statusMessage":"Internal Server Error"}`)
		status = http.StatusInternalServerError
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
