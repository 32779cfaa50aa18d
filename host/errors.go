package host

import (
	"net/http"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/answer"
)

// FrameworkError is the body of every response the host makes itself for a
// request it refuses or a guest that failed (docs/spec.md §4): the shape the
// server engine of nuxt-endpoints serialises errors into, so one client error
// handler covers endpoints and plain routes.
//
//	{"statusCode":400,"statusMessage":"Validation Error",
//	 "data":{"query":[{"path":["limit"],"message":"must be less than or equal to 100"}]}}
type FrameworkError struct {
	// StatusCode is the answer's status.
	StatusCode int `json:"statusCode"`
	// StatusMessage is [http.StatusText] of it, or [MessageValidation] or
	// [MessageResponseContract].
	StatusMessage string `json:"statusMessage"`
	// Data says what went wrong, when there is more to say: a
	// [ValidationData] (400), a [MediaTypeData] (406, 415), a
	// [ContractErrorData] (500 in development). Omitted when nil.
	Data any `json:"data,omitempty"`
}

// ValidationData is the data of a 400: the issues of every failing part, in
// pipeline order. Parts without issues are omitted.
type ValidationData struct {
	// Params are the issues of the path parameters.
	Params []abi.Issue `json:"params,omitempty"`
	// Query are the issues of the query string.
	Query []abi.Issue `json:"query,omitempty"`
	// Headers are the issues of the request headers.
	Headers []abi.Issue `json:"headers,omitempty"`
	// Body are the issues of the request body.
	Body []abi.Issue `json:"body,omitempty"`
}

// MediaTypeData is the data of a 415 (and of a 406): what the client sent
// and what the endpoint supports.
type MediaTypeData struct {
	// Received is the request's Content-Type (415) or Accept (406).
	Received string `json:"received"`
	// SupportedMediaTypes are the types the endpoint accepts (415) or
	// offers (406).
	SupportedMediaTypes []string `json:"supportedMediaTypes"`
}

// ContractErrorData is the data of a 500 Response Contract Error: the
// status the guest answered and what is wrong with the answer.
type ContractErrorData struct {
	// Status is the status the guest answered.
	Status int `json:"status"`
	// Issues say what is wrong with the answer: an undeclared status, or
	// where its body fails the declared schema.
	Issues []abi.Issue `json:"issues"`
}

// Status messages the host uses beyond [http.StatusText], in
// [FrameworkError.StatusMessage].
const (
	// MessageValidation is the message of a 400: a request that failed
	// validation ([ValidationData]).
	MessageValidation = "Validation Error"
	// MessageResponseContract is the message of a 500 for an answer that
	// broke its contract ([ContractErrorData]).
	MessageResponseContract = "Response Contract Error"
)

func writeError(w http.ResponseWriter, r *http.Request, status int, message string, data any) {
	body, err := answer.ErrorBody(status, message, data)
	if err != nil {
		body = []byte(`{"statusCode":500,"statusMessage":"Internal Server Error"}`)
		status = http.StatusInternalServerError
	}
	answer.Write(w, r, status, "application/json", body)
}
