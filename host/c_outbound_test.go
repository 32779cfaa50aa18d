package host_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// cFetch is a C plain route that GETs url with endpoints_http_get and
// answers the status line and body it read, or 502 with http_error's
// JSON.
const cFetch = `#include "endpoints.h"

ENDPOINTS_ROUTE();

static uint8_t buf[4096];

int32_t endpoints_handle(void) {
    int32_t h = endpoints_http_get("%s");
    if (h < 0) {
        int32_t n = endpoints_http_error(buf, sizeof buf);
        endpoints_set_status(502);
        endpoints_write(buf, n > 0 && n <= (int32_t)sizeof buf ? n : 0);
        return h == ENDPOINTS_ERR_NOT_ALLOWED ? 0 : 1;
    }
    int32_t n = endpoints_http_response(h, buf, sizeof buf);
    if (n < 0 || n > (int32_t)sizeof buf) return 2;
    endpoints_write(buf, n);
    while ((n = endpoints_http_body_read(h, buf, sizeof buf)) > 0)
        endpoints_write(buf, n);
    return n == 0 && endpoints_http_close(h) == 0 ? 0 : 3;
}
`

// TestCFetch: endpoints.h's endpoints_http_get reaches a listed service
// through the host; a refused one gets ENDPOINTS_ERR_NOT_ALLOWED and the
// host's reason.
func TestCFetch(t *testing.T) {
	t.Parallel()
	requireTool(t, "clang")
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello from "+r.URL.Path)
	}))
	t.Cleanup(backend.Close)
	a := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}}`)).
		file("server/routes/listed.get.c", []byte(fmt.Sprintf(cFetch, backend.URL+"/a"))).
		file("server/routes/refused.get.c", []byte(fmt.Sprintf(cFetch, "http://169.254.169.254/latest/meta-data/")))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, _ := a.serve(host.Options{})
	if got := do(t, srv, "GET", "/listed", ""); got.status != 200 || !strings.HasPrefix(got.body, `{"status":200,`) || !strings.HasSuffix(got.body, "hello from /a") {
		t.Errorf("a listed service: got %d %s", got.status, got.body)
	}
	if got := do(t, srv, "GET", "/refused", ""); got.status != 502 || !strings.HasPrefix(got.body, `{"code":"not_allowed"`) {
		t.Errorf("a refused one: got %d %s", got.status, got.body)
	}
}
