package accesslog_test

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/observe/accesslog"
)

// TestOutboundCallsAreLogged: a request whose guests called out says how
// many calls and how long they took; one that did not, says nothing.
func TestOutboundCallsAreLogged(t *testing.T) {
	var out lockedBuffer
	access := accesslog.New(slog.New(slog.NewTextHandler(&out, nil)))
	r := httptest.NewRequest("POST", "/api/orders", nil)
	access.Observer().Request(host.RequestEvent{Request: r, Method: "POST", Route: "/api/orders", Status: 201,
		OutboundRequests: 2, OutboundDuration: 1500 * time.Microsecond})
	access.Observer().Request(host.RequestEvent{Request: r, Method: "POST", Route: "/api/orders", Status: 201})
	access.Close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], " outbound=2 outboundDuration=1.5ms") || strings.Contains(lines[1], "outbound") {
		t.Errorf("lines:\n%s", out.String())
	}
}
