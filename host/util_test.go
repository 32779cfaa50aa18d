package host_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func mustRequest(t *testing.T, method, target string) *http.Request {
	t.Helper()
	return httptest.NewRequest(method, target, nil)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
