/*
 * helpers.c - a plain route that exercises the inline helpers of endpoints.h
 * for internal/guestbuild/c_test.go, which builds it with guestbuild.C and
 * runs it against a test host.
 *
 * The query value "op" (a JSON string) selects the helper; the answer body
 * reports what the helper returned and wrote, so the Go test checks it.
 */
#include "endpoints.h"

#include <stdio.h>
#include <string.h>

ENDPOINTS_ROUTE();

/* buf is filled with '#' before each call, to tell "not written" apart. */
static char buf[512];

/* cap reads the integer query value "cap", the buffer size to pass. */
static int32_t cap(void) {
    int64_t v = 0;
    if (endpoints_value_int(ENDPOINTS_PART_QUERY, "cap", &v) != 0 || v < 0 ||
        v > (int64_t)sizeof buf) {
        return -1;
    }
    return (int32_t)v;
}

/* report writes "<n> <what buf holds>": the value when n < c and it is
 * NUL-terminated, "unwritten" when the helper left buf alone. */
static int32_t report(int32_t n, int32_t c) {
    char out[600];
    const char *what;
    if (n >= 0 && n < c) {
        what = memchr(buf, '\0', (size_t)c) == buf + n ? buf : "unterminated";
    } else {
        what = buf[0] == '#' ? "unwritten" : "clobbered";
    }
    int len = snprintf(out, sizeof out, "%d %s", (int)n, what);
    return endpoints_write(out, len);
}

static int is_op(const char *op, const char *want) {
    return strcmp(op, want) == 0;
}

int32_t endpoints_handle(void) {
    char op[32];
    int32_t n = endpoints_value(ENDPOINTS_PART_QUERY, "op", op, sizeof op);
    if (n < 0 || n >= (int32_t)sizeof op) {
        return 1;
    }
    int32_t c = cap();
    memset(buf, '#', sizeof buf);

    if (is_op(op, "\"value\"")) {
        return report(endpoints_value(ENDPOINTS_PART_PARAMS, "n", buf, c), c);
    }
    if (is_op(op, "\"header\"")) {
        return report(endpoints_header("X-Test", buf, c), c);
    }
    if (is_op(op, "\"request\"")) {
        return report(endpoints_request(buf, c), c);
    }
    if (is_op(op, "\"int\"")) {
        int64_t v = 42;
        int32_t r = endpoints_value_int(ENDPOINTS_PART_PARAMS, "n", &v);
        char out[64];
        int len = snprintf(out, sizeof out, "%d %lld", (int)r, (long long)v);
        return endpoints_write(out, len);
    }
    if (is_op(op, "\"respond\"")) {
        int32_t a = endpoints_set_status(201);
        int32_t b = endpoints_set_header("X-A", "1");
        int32_t d = endpoints_add_header("X-A", "2");
        endpoints_log_str(ENDPOINTS_LOG_WARN, "respond called");
        char out[64];
        int len = snprintf(out, sizeof out, "%d %d %d ", (int)a, (int)b, (int)d);
        endpoints_write(out, len);
        return endpoints_write_str("done");
    }
    if (is_op(op, "\"jsonstr\"")) {
        /* A JSON array of texts written with endpoints_write_json_str:
         * escapes, UTF-8, NULL, a NUL inside a counted text, and one long
         * enough to take several of its buffers, escapes at their ends. */
        static char long_text[700];
        for (int i = 0; i < (int)sizeof long_text - 1; i++) {
            long_text[i] = "a\"\\\x01"[i % 4];
        }
        endpoints_write_str("[");
        endpoints_write_json_str("");
        endpoints_write_str(",");
        endpoints_write_json_str("Ada \"A\" \\ / \xc3\xa9\xf0\x9f\x98\x80\n\t\x1f <&>");
        endpoints_write_str(",");
        endpoints_write_json_str(NULL);
        endpoints_write_str(",");
        endpoints_write_json_str_n("a\0b", 3);
        endpoints_write_str(",");
        endpoints_write_json_str(long_text);
        return endpoints_write_str("]");
    }
    return 2;
}
