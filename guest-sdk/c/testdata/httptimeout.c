/*
 * httptimeout.c - a plain route that sends requests with
 * endpoints_http_get and endpoints_http_get_timeout, for
 * internal/guestbuild/c_test.go (TestCHTTPGetTimeout), which builds it with
 * guestbuild.C and runs it against a test host that records each request's
 * JSON. The answer body is what each call returned, one per line.
 */
#include "endpoints.h"

#include <stdio.h>

ENDPOINTS_ROUTE();

static char out[256];
static int n;

static void put(int32_t rc) { n += snprintf(out + n, sizeof out - n, "%d\n", (int)rc); }

int32_t endpoints_handle(void) {
    put(endpoints_http_get("https://a.example/plain"));
    put(endpoints_http_get_timeout("https://a.example/timed", 300));
    put(endpoints_http_get_timeout("https://a.example/most", 3600000));
    put(endpoints_http_get_timeout("https://a.example/negative", -1));
    put(endpoints_http_get_timeout("https://a.example/past", 3600001));
    put(endpoints_http_get_timeout("https://a.example/longest", 2147483647));
    return endpoints_response_write((const uint8_t *)out, n);
}
