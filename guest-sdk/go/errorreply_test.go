package endpoints_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// TestErrorReply: a Handle handler answers an error as HandleFunc does.
func TestErrorReply(t *testing.T) {
	unavailable := `{"statusCode":503,"statusMessage":"Service Unavailable"}`
	internal := `{"statusCode":500,"statusMessage":"Internal Server Error"}`
	for _, tt := range []struct {
		name   string
		err    error
		status int
		body   string
	}{
		{"an Error answers its status and body", endpoints.Error(404, map[string]string{"message": "no such note"}), 404, `{"message":"no such note"}`},
		{"a wrapped Error too", fmt.Errorf("finding: %w", endpoints.Error(409, nil)), 409, `null`},
		{"a database that is down answers 503", fmt.Errorf("listing: %w", &endpoints.DBError{Database: "main", Code: "unavailable", Message: "connection refused"}), 503, unavailable},
		{"a database locked past its busy timeout answers 503", fmt.Errorf("saving: %w", &endpoints.DBError{Database: "main", Code: "busy", Message: "database is locked"}), 503, unavailable},
		{"a store that is down answers 503", fmt.Errorf("counting: %w", endpoints.ErrStorageUnavailable), 503, unavailable},
		{"a constraint the handler did not answer is a 500", &endpoints.DBError{Database: "main", Code: "constraint", Message: "UNIQUE constraint failed"}, 500, internal},
		{"any other error is a 500", errors.New("boom"), 500, internal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := endpoints.ErrorReply(tt.err)
			body, err := json.Marshal(r.Body())
			if err != nil {
				t.Fatal(err)
			}
			if r.Status() != tt.status || string(body) != tt.body {
				t.Errorf("ErrorReply(%v) = %d %s, want %d %s", tt.err, r.Status(), body, tt.status, tt.body)
			}
		})
	}
}
