/*
 * endpoints.h - the C SDK for Endpoints route modules (ABI v1).
 *
 * A route module is a WebAssembly module the Endpoints host loads from
 * server/api or server/routes. This header declares the host functions
 * of ABI v1 (module "endpoints", see abi/abi.go and abi/README.md in the
 * Endpoints repository, which are the specification) and a few small inline
 * helpers over them. It is header-only and needs clang with wasi-libc:
 *
 *     clang --target=wasm32-wasi -mexec-model=reactor -O2 \
 *           -Werror=implicit-function-declaration -Wl,--strip-debug \
 *           -I guest-sdk/c -o users.wasm users.c
 *
 * A plain route answers a request:
 *
 *     #include "endpoints.h"
 *
 *     ENDPOINTS_ROUTE();
 *
 *     int32_t endpoints_handle(void) {
 *         endpoints_set_header("Content-Type", "text/plain; charset=utf-8");
 *         endpoints_write_str("ok");
 *         return 0;
 *     }
 *
 * An endpoint also exports its contract, a JSON string literal
 * (docs/spec.md §3); the host validates each request against it before
 * endpoints_handle runs:
 *
 *     ENDPOINTS_CONTRACT("{\"summary\":\"Say hello\"}");
 *
 * Notes
 *   - The host never allocates in guest memory. Every function that hands
 *     data to the guest writes into a buffer the caller owns.
 *   - Host functions return a negative endpoints_errno on an error the guest
 *     can handle; sizes and success are zero or positive.
 *   - Passing memory outside the module's linear memory traps: the host
 *     answers 500 and discards the instance.
 *   - One instance serves one request at a time, so static buffers are safe
 *     to reuse between requests.
 */
#ifndef ENDPOINTS_H
#define ENDPOINTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ENDPOINTS_ABI_VERSION is the ABI version this header implements; the
 * endpoints_abi_version export returns it (abi.Version). */
#define ENDPOINTS_ABI_VERSION 1

/* endpoints_errno is the negative result of a host function (abi.Errno). */
typedef enum endpoints_errno {
    /* The value, parameter or header is absent. */
    ENDPOINTS_ERR_NOT_FOUND = -1,
    /* An argument is out of range or malformed: a status outside 200-599, a
     * header name that is not a token, a value with CR or LF, a header the
     * host owns, an unknown part. */
    ENDPOINTS_ERR_INVALID = -2,
    /* Status or headers changed after body bytes reached the client. */
    ENDPOINTS_ERR_HEADERS_SENT = -3,
    /* The request body is larger than the host's limit. */
    ENDPOINTS_ERR_BODY_TOO_LARGE = -4,
    /* Reading the request or writing the response failed, usually because
     * the client went away. */
    ENDPOINTS_ERR_IO = -5,
    /* The function is not available now, e.g. a request or key-value
     * function called outside any request. */
    ENDPOINTS_ERR_STATE = -6,
    /* The key-value store cannot be reached, or has no room; nothing was
     * changed. Answer 503. */
    ENDPOINTS_ERR_UNAVAILABLE = -7,
    /* The database refused or failed the statement (or the transaction
     * call); endpoints_db_error_code and endpoints_db_error_message say
     * why. */
    ENDPOINTS_ERR_DATABASE = -8,
    /* An outbound request's origin is not in outbound.allowedHosts, or the
     * address it resolved to is private and not itself listed. */
    ENDPOINTS_ERR_NOT_ALLOWED = -9,
    /* An outbound bound: limits.outboundRequests, limits.outboundBytes of a
     * response read whole, the concurrent requests to one host
     * (outbound.maxConcurrentPerHost), or a response's headers (64 KiB of
     * one, HTTPResponseHeaderMaxBytes; limits.outboundHeaderBytes of the
     * call's open ones). */
    ENDPOINTS_ERR_LIMIT = -10
} endpoints_errno;

/* Limits of the key-value functions (abi.KVMaxKey, abi.KVMaxValue,
 * abi.KVListLimit): the longest key and value in bytes, and the most keys
 * one endpoints_kv_list call returns. */
#define ENDPOINTS_KV_MAX_KEY 1024
#define ENDPOINTS_KV_MAX_VALUE (1 << 20)
#define ENDPOINTS_KV_LIST_LIMIT 1000

/* The longest timeout in milliseconds an outbound request's "timeout" and
 * endpoints_db_timeout take (abi.HTTPTimeoutMax, abi.DBTimeoutMax): one
 * hour. */
#define ENDPOINTS_TIMEOUT_MAX_MS 3600000

/* endpoints_part selects one validated part of the request in
 * endpoints_request_value (abi.Part). */
typedef enum endpoints_part {
    ENDPOINTS_PART_PARAMS = 0,
    ENDPOINTS_PART_QUERY = 1,
    ENDPOINTS_PART_HEADERS = 2,
    ENDPOINTS_PART_BODY = 3
} endpoints_part;

/* endpoints_log_level is the level argument of endpoints_log
 * (abi.LogLevel). */
typedef enum endpoints_log_level {
    ENDPOINTS_LOG_DEBUG = 0,
    ENDPOINTS_LOG_INFO = 1,
    ENDPOINTS_LOG_WARN = 2,
    ENDPOINTS_LOG_ERROR = 3
} endpoints_log_level;

/* endpoints_hook_result is what endpoints_on_validation_error returns
 * (abi.HookAnswered, abi.HookDeclined). */
typedef enum endpoints_hook_result {
    /* The guest wrote the replacement answer. */
    ENDPOINTS_HOOK_ANSWERED = 0,
    /* The guest leaves the failure to the next hook, or to the default
     * body. Anything it wrote is discarded. */
    ENDPOINTS_HOOK_DECLINED = 1
} endpoints_hook_result;

/* ------------------------------------------------------------------------ */
/* Host functions, exactly as ABI v1 declares them.                         */
/* ------------------------------------------------------------------------ */

#define ENDPOINTS_IMPORT_(name) \
    __attribute__((import_module("endpoints"), import_name(name)))

/* endpoints_request_read writes the request envelope (JSON, abi.Envelope)
 * into buf when it fits in buf_len bytes and returns its size either way. */
ENDPOINTS_IMPORT_("request_read")
int32_t endpoints_request_read(uint8_t *buf, int32_t buf_len);

/* endpoints_request_value writes the JSON encoding of one validated,
 * coerced value into buf when it fits and returns its size, or
 * ENDPOINTS_ERR_NOT_FOUND when the value is absent. An empty name selects the
 * whole part.
 *
 *     endpoints_request_value(ENDPOINTS_PART_PARAMS, "id", 2, buf, 16)
 *     -> 1, buf = "7" */
ENDPOINTS_IMPORT_("request_value")
int32_t endpoints_request_value(int32_t part, const char *name, int32_t name_len,
                                uint8_t *buf, int32_t buf_len);

/* endpoints_request_header writes the raw values of request header name
 * (case-insensitive), joined with ", ", into buf when they fit and returns
 * their size, or ENDPOINTS_ERR_NOT_FOUND. */
ENDPOINTS_IMPORT_("request_header")
int32_t endpoints_request_header(const char *name, int32_t name_len,
                                 uint8_t *buf, int32_t buf_len);

/* endpoints_body_read reads the next bytes of the raw request body into buf
 * (at most buf_len) and returns how many it wrote; 0 is the end of the body.
 * ENDPOINTS_ERR_BODY_TOO_LARGE past the host's limit, ENDPOINTS_ERR_IO when
 * the client went away. */
ENDPOINTS_IMPORT_("body_read")
int32_t endpoints_body_read(uint8_t *buf, int32_t buf_len);

/* endpoints_file_read reads the next bytes of one file of a
 * multipart/form-data request into buf (at most buf_len) and returns how
 * many it wrote; 0 is the end of that file. index is the file's position in
 * the envelope's "files" list (abi.File); files can be read in any order,
 * each once. ENDPOINTS_ERR_NOT_FOUND when there is no such file. */
ENDPOINTS_IMPORT_("file_read")
int32_t endpoints_file_read(int32_t index, uint8_t *buf, int32_t buf_len);

/* endpoints_response_set_status sets the status code (200-599: a 1xx is
 * refused); the default is 200. */
ENDPOINTS_IMPORT_("response_set_status")
int32_t endpoints_response_set_status(int32_t status);

/* endpoints_response_set_header replaces a response header. */
ENDPOINTS_IMPORT_("response_set_header")
int32_t endpoints_response_set_header(const char *name, int32_t name_len,
                                      const char *value, int32_t value_len);

/* endpoints_response_add_header adds a value to a response header. */
ENDPOINTS_IMPORT_("response_add_header")
int32_t endpoints_response_add_header(const char *name, int32_t name_len,
                                      const char *value, int32_t value_len);

/* endpoints_response_write appends buf_len bytes to the response body and
 * returns 0. */
ENDPOINTS_IMPORT_("response_write")
int32_t endpoints_response_write(const uint8_t *buf, int32_t buf_len);

/* endpoints_log writes msg to the host's log at level, tagged with the
 * route. */
ENDPOINTS_IMPORT_("log")
void endpoints_log(int32_t level, const char *msg, int32_t msg_len);

/* The app's key-value store, kept by the host between requests and shared
 * by every route of the app (and by every host, with a Redis store). Keys
 * and values are bytes. Every function returns ENDPOINTS_ERR_STATE outside
 * a request and ENDPOINTS_ERR_UNAVAILABLE when the store is down or full. */

/* endpoints_kv_get writes the value stored under key into buf when it fits
 * in buf_len bytes and returns its size either way, or
 * ENDPOINTS_ERR_NOT_FOUND.
 *
 *     int32_t n = endpoints_kv_get("hits", 4, buf, sizeof buf);
 *     if (n > (int32_t)sizeof buf) ... grow buf to n, call again */
ENDPOINTS_IMPORT_("kv_get")
int32_t endpoints_kv_get(const char *key, int32_t key_len, uint8_t *buf,
                         int32_t buf_len);

/* endpoints_kv_set stores value under key, replacing any value; it expires
 * after ttl_seconds when that is positive. It returns 0, or
 * ENDPOINTS_ERR_INVALID for a key longer than ENDPOINTS_KV_MAX_KEY or a
 * value longer than ENDPOINTS_KV_MAX_VALUE. */
ENDPOINTS_IMPORT_("kv_set")
int32_t endpoints_kv_set(const char *key, int32_t key_len,
                         const uint8_t *value, int32_t value_len,
                         int32_t ttl_seconds);

/* endpoints_kv_delete removes key: 0, or ENDPOINTS_ERR_NOT_FOUND when it did
 * not exist. */
ENDPOINTS_IMPORT_("kv_delete")
int32_t endpoints_kv_delete(const char *key, int32_t key_len);

/* endpoints_kv_incr adds delta to the decimal integer stored under key (0
 * when absent), atomically across every host sharing the store, and writes
 * the result to *out. It returns 0, or ENDPOINTS_ERR_INVALID when the value
 * is not an integer. */
ENDPOINTS_IMPORT_("kv_incr")
int32_t endpoints_kv_incr(const char *key, int32_t key_len, int64_t delta,
                          int64_t *out);

/* endpoints_kv_list writes a JSON array of the keys that start with prefix
 * and sort after after (bytewise; empty for the first page), at most
 * ENDPOINTS_KV_LIST_LIMIT of them, into buf when it fits and returns its
 * size either way. A page shorter than the limit is the last; the next
 * page starts after the last key of this one. */
ENDPOINTS_IMPORT_("kv_list")
int32_t endpoints_kv_list(const char *prefix, int32_t prefix_len,
                          const char *after, int32_t after_len, uint8_t *buf,
                          int32_t buf_len);

/* ENDPOINTS_VARIABLE_MAX_VALUE is the longest value of a variable in bytes
 * (abi.VariableMaxValue). */
#define ENDPOINTS_VARIABLE_MAX_VALUE 65536

/* endpoints_variable_get writes the value of the app's variable name
 * (endpoints.json "variables", resolved by the host from its environment,
 * a file or a default) into buf when it fits in buf_len bytes and returns
 * its size either way; an optional variable without a value is empty (0).
 * ENDPOINTS_ERR_NOT_FOUND when the app does not declare name,
 * ENDPOINTS_ERR_STATE outside a request (while the module loads). A secret
 * reads the same way: the host never writes it anywhere, so neither
 * should the handler.
 *
 *     char url[512];
 *     int32_t n = endpoints_variable_get("webhookUrl", 10, (uint8_t *)url, sizeof url);
 *     if (n > (int32_t)sizeof url) ... grow the buffer to n, call again */
ENDPOINTS_IMPORT_("variable_get")
int32_t endpoints_variable_get(const char *name, int32_t name_len, uint8_t *buf,
                               int32_t buf_len);
/* Outbound HTTP (abi/README.md section 3.1): requests to the services
 * endpoints.json's outbound.allowedHosts lists, sent by the host within the
 * call's deadline. A failed call returns a negative endpoints_errno
 * (ENDPOINTS_ERR_NOT_ALLOWED, ENDPOINTS_ERR_LIMIT, ENDPOINTS_ERR_IO,
 * ENDPOINTS_ERR_INVALID) and endpoints_http_error says why.
 *
 *     static const char req[] =
 *         "{\"method\":\"POST\",\"url\":\"https://api.example.com/v1/events\","
 *         "\"headers\":[[\"content-type\",\"application/json\"]]}";
 *     int32_t h = endpoints_http_send(req, sizeof req - 1, body, body_len);
 *     if (h < 0) { ... endpoints_http_error(buf, sizeof buf) ... }
 *     int32_t n = endpoints_http_response(h, buf, sizeof buf); // {"status":201,...}
 *     while ((n = endpoints_http_body_read(h, buf, sizeof buf)) > 0) { ... }
 *     endpoints_http_close(h); */

/* endpoints_http_send sends the request req describes, JSON
 * {"method","url","headers":[[name,value],...],"stream","timeout"}, with
 * body, and waits for the response's status and headers. It returns a
 * handle (0 or more) or a negative endpoints_errno. "timeout" bounds the
 * request in milliseconds (its headers and every body read), below the
 * call's deadline: past it, ENDPOINTS_ERR_IO and the code "timeout", and
 * the handler answers from a fallback with the rest of its time. */
ENDPOINTS_IMPORT_("http_send")
int32_t endpoints_http_send(const char *req, int32_t req_len,
                            const uint8_t *body, int32_t body_len);

/* endpoints_http_response writes the response's status and headers, JSON
 * {"status":200,"headers":[["content-type","..."],...]}, into buf when it
 * fits and returns its size either way, or ENDPOINTS_ERR_NOT_FOUND. */
ENDPOINTS_IMPORT_("http_response")
int32_t endpoints_http_response(int32_t handle, uint8_t *buf, int32_t buf_len);

/* endpoints_http_body_read reads the next bytes of the response body into
 * buf and returns how many, 0 at the end; ENDPOINTS_ERR_LIMIT past
 * limits.outboundBytes unless the request said "stream":true. */
ENDPOINTS_IMPORT_("http_body_read")
int32_t endpoints_http_body_read(int32_t handle, uint8_t *buf,
                                 int32_t buf_len);

/* endpoints_http_close releases a response before the call ends: 0, or
 * ENDPOINTS_ERR_NOT_FOUND. */
ENDPOINTS_IMPORT_("http_close")
int32_t endpoints_http_close(int32_t handle);

/* endpoints_http_error writes why the last failed endpoints_http_* call
 * failed, JSON {"code":"not_allowed","message":"..."}, into buf when it
 * fits and returns its size, or ENDPOINTS_ERR_NOT_FOUND. */
ENDPOINTS_IMPORT_("http_error")
int32_t endpoints_http_error(uint8_t *buf, int32_t buf_len);

/* endpoints_http_get_timeout sends a GET of url (a NUL-terminated
 * absolute URL without quotes or backslashes) bounded by timeout_ms
 * milliseconds (0 for none: the call's deadline alone; a longer one than
 * ENDPOINTS_TIMEOUT_MAX_MS, an hour, is sent as that, as the Go, Rust and
 * AssemblyScript SDKs clamp it), and returns the response's handle, or a
 * negative endpoints_errno (ENDPOINTS_ERR_INVALID for a URL too long for
 * its 2 KiB request, or a negative timeout; ENDPOINTS_ERR_IO, code
 * "timeout", when the service did not answer in time).
 *
 *     int32_t h = endpoints_http_get_timeout("https://rates.example.com/v1/eur", 300);
 *     if (h == ENDPOINTS_ERR_IO) { ... answer from a fallback ... } */
static inline int32_t endpoints_http_get_timeout(const char *url,
                                                 int32_t timeout_ms) {
    static char req[2048];
    static const char head[] = "{\"url\":\"";
    static const char member[] = "\",\"timeout\":";
    size_t n = sizeof head - 1, i = 0;
    if (timeout_ms < 0) return ENDPOINTS_ERR_INVALID;
    /* Longer than any call may run: an hour, as the other SDKs clamp. */
    if (timeout_ms > ENDPOINTS_TIMEOUT_MAX_MS) timeout_ms = ENDPOINTS_TIMEOUT_MAX_MS;
    for (size_t k = 0; k < n; k++) req[k] = head[k];
    for (; url[i] != 0; i++) {
        if (n + i + 32 > sizeof req || url[i] == '"' || url[i] == '\\')
            return ENDPOINTS_ERR_INVALID;
        req[n + i] = url[i];
    }
    n += i;
    if (timeout_ms == 0) {
        req[n++] = '"';
    } else {
        char digits[10];
        size_t d = 0;
        for (size_t k = 0; k < sizeof member - 1; k++) req[n++] = member[k];
        for (int32_t v = timeout_ms; v > 0; v /= 10) digits[d++] = (char)('0' + v % 10);
        while (d > 0) req[n++] = digits[--d];
    }
    req[n++] = '}';
    return endpoints_http_send(req, (int32_t)n, (const uint8_t *)0, 0);
}

/* endpoints_http_get is endpoints_http_get_timeout without a timeout of
 * its own: the call's deadline bounds it. */
static inline int32_t endpoints_http_get(const char *url) {
    return endpoints_http_get_timeout(url, 0);
}

/* Middleware (the modules of server/middleware; abi/README.md section 6.1). */

/* endpoints_request_set_header replaces a request header for the
 * middleware that follows, the contract's validation and the handler; an
 * empty value removes it. Only in endpoints_before. */
ENDPOINTS_IMPORT_("request_set_header")
int32_t endpoints_request_set_header(const char *name, int32_t name_len,
                                     const char *value, int32_t value_len);

/* endpoints_context_set passes a value to the handler, in the envelope's
 * "context" member. Only in endpoints_before and endpoints_verify. */
ENDPOINTS_IMPORT_("context_set")
int32_t endpoints_context_set(const char *name, int32_t name_len,
                              const char *value, int32_t value_len);

/* endpoints_principal_set records who the client is, as JSON:
 * {"subject":"alice","scopes":["read"]}. Only in endpoints_verify. */
ENDPOINTS_IMPORT_("principal_set")
int32_t endpoints_principal_set(const char *json, int32_t json_len);

/* Databases (abi/README.md section 3, "Databases"): the app's databases,
 * by the name endpoints.json's "databases" gives them ("main" is an SQLite
 * file the host keeps under the app when it declares none). A module
 * imports these only when it calls them; endpoints_query, endpoints_exec
 * and the functions after them are easier to use. */

/* endpoints_db_query runs one statement that returns rows, with params a
 * JSON array of values bound to it (params_len 0: none), and returns the
 * size of its result ({"columns":[...],"rows":[[...]]}), which
 * endpoints_db_result then writes; or ENDPOINTS_ERR_NOT_FOUND for a
 * database the app does not declare, ENDPOINTS_ERR_INVALID for params that
 * are not a JSON array, ENDPOINTS_ERR_DATABASE when the statement failed
 * (the result is then {"error":{"code":...,"message":...}}). */
ENDPOINTS_IMPORT_("db_query")
int32_t endpoints_db_query(const char *db, int32_t db_len, const char *sql,
                           int32_t sql_len, const char *params,
                           int32_t params_len);

/* endpoints_db_exec runs one statement for its effect, as
 * endpoints_db_query; its result is {"rowsAffected":1,"lastInsertId":7}. */
ENDPOINTS_IMPORT_("db_exec")
int32_t endpoints_db_exec(const char *db, int32_t db_len, const char *sql,
                          int32_t sql_len, const char *params,
                          int32_t params_len);

/* endpoints_db_result writes the pending result of the last
 * endpoints_db_query or endpoints_db_exec (or its error) into buf when it
 * fits and returns its size either way. */
ENDPOINTS_IMPORT_("db_result")
int32_t endpoints_db_result(uint8_t *buf, int32_t buf_len);

/* endpoints_db_begin, endpoints_db_commit and endpoints_db_rollback open,
 * commit and roll back a transaction on db for the rest of the call; a
 * transaction still open when the call ends is rolled back. They return 0
 * or a negative errno (ENDPOINTS_ERR_DATABASE, code "transaction", for a
 * commit without a begin or a second begin). */
ENDPOINTS_IMPORT_("db_begin")
int32_t endpoints_db_begin(const char *db, int32_t db_len);
/* endpoints_db_begin_with opens a transaction as endpoints_db_begin does,
 * with options: opts is a JSON object, {"isolation":"serializable",
 * "readOnly":true} (ABI §4.5). Options the host does not know return
 * ENDPOINTS_ERR_INVALID, the pending result saying which. */
ENDPOINTS_IMPORT_("db_begin_with")
int32_t endpoints_db_begin_with(const char *db, int32_t db_len,
                                const char *opts, int32_t opts_len);
ENDPOINTS_IMPORT_("db_commit")
int32_t endpoints_db_commit(const char *db, int32_t db_len);
ENDPOINTS_IMPORT_("db_rollback")
int32_t endpoints_db_rollback(const char *db, int32_t db_len);

/* endpoints_db_timeout bounds each later statement of the call (query,
 * exec, begin, commit) to timeout_ms milliseconds from its start; 0 lifts
 * it. A statement past it is stopped in the database and fails with
 * ENDPOINTS_ERR_DATABASE, code "timeout", while the handler goes on.
 * ENDPOINTS_ERR_INVALID below 0 or past ENDPOINTS_TIMEOUT_MAX_MS
 * (abi/README.md section 4.5).
 *
 *     endpoints_db_timeout(300);
 *     int32_t rc = endpoints_db_query("main", 4, sql, sql_len, 0, 0);
 *     endpoints_db_timeout(0); */
ENDPOINTS_IMPORT_("db_timeout")
int32_t endpoints_db_timeout(int32_t timeout_ms);

/* ------------------------------------------------------------------------ */
/* Exports. Define endpoints_handle (and, when the contract says             */
/* "onValidationError": true, endpoints_on_validation_error); the            */
/* declarations below export them under their ABI names.                     */
/* ------------------------------------------------------------------------ */

/* endpoints_handle is called once per request, after validation. Return 0
 * when the request was answered; any other value is a guest failure, which
 * the host logs and answers with 500 when nothing was sent yet (503 with
 * Retry-After when the last statement failed "unavailable" or "busy" and no
 * status was set: the database's failure, as for an abort). */
int32_t endpoints_handle(void)
    __attribute__((export_name("endpoints_handle")));

/* endpoints_on_validation_error replaces the default 400/406/415 body; it
 * is called instead of endpoints_handle when validation failed, with the
 * failure in the envelope's "error" member. It returns
 * ENDPOINTS_HOOK_ANSWERED after writing the answer (whose status starts as
 * the failure's), or ENDPOINTS_HOOK_DECLINED. Define it only when the
 * contract declares "onValidationError": true. */
int32_t endpoints_on_validation_error(void)
    __attribute__((export_name("endpoints_on_validation_error")));

/* ENDPOINTS_ROUTE() makes the file a route module: it defines the
 * endpoints_abi_version export. Use it once, at file scope, in a plain
 * route; ENDPOINTS_CONTRACT includes it. */
#define ENDPOINTS_ROUTE()                                         \
    __attribute__((export_name("endpoints_abi_version"))) int32_t \
    endpoints_abi_version(void) { return ENDPOINTS_ABI_VERSION; } \
    typedef int endpoints_route_defined_

/* ENDPOINTS_CONTRACT(json) makes the file an endpoint: it defines the
 * endpoints_contract export, returning the string literal json (packed as
 * offset<<32 | length, without the terminating NUL), and the
 * endpoints_abi_version export. Use it once, at file scope. json must be a
 * string literal holding a valid contract (docs/spec.md §3); adjacent
 * literals may split it over several lines:
 *
 *     ENDPOINTS_CONTRACT(
 *         "{\"summary\":\"Get a user\","
 *         "\"tags\":[\"users\"]}"); */
#define ENDPOINTS_CONTRACT(json)                                        \
    static const char endpoints_contract_json_[] = json;               \
    __attribute__((export_name("endpoints_contract"))) int64_t         \
    endpoints_contract(void) {                                          \
        return (int64_t)(((uint64_t)(uintptr_t)endpoints_contract_json_ \
                          << 32) |                                      \
                         (uint64_t)(sizeof endpoints_contract_json_ - 1)); \
    }                                                                   \
    ENDPOINTS_ROUTE()

/* Results of endpoints_before (abi.MiddlewareContinue, MiddlewareAnswered)
 * and endpoints_verify (abi.VerifyOK, VerifyMissing, VerifyRejected). */
typedef enum endpoints_middleware_result {
    ENDPOINTS_CONTINUE = 0,
    ENDPOINTS_ANSWERED = 1,
} endpoints_middleware_result;

typedef enum endpoints_verify_result {
    ENDPOINTS_VERIFY_OK = 0,
    ENDPOINTS_VERIFY_MISSING = 1,
    ENDPOINTS_VERIFY_REJECTED = 2,
} endpoints_verify_result;

/* A middleware module defines any of these three (at least one):
 *
 * endpoints_before runs before validation and the handler: it returns
 * ENDPOINTS_CONTINUE, or ENDPOINTS_ANSWERED after writing an answer in the
 * handler's place. endpoints_after runs once the handler answered (the
 * status is in the envelope's "response" member) and returns 0.
 * endpoints_verify verifies a security scheme's credential (the scheme is
 * in the envelope's "verify" member) and returns an
 * endpoints_verify_result, after endpoints_principal_set for OK. */
int32_t endpoints_before(void) __attribute__((export_name("endpoints_before")));
int32_t endpoints_after(void) __attribute__((export_name("endpoints_after")));
int32_t endpoints_verify(void) __attribute__((export_name("endpoints_verify")));

/* ENDPOINTS_MIDDLEWARE(json) makes the file a middleware module: it
 * defines the endpoints_middleware export, returning the declaration json
 * (abi.Middleware: routes, methods), and endpoints_abi_version. Use it once,
 * at file scope:
 *
 *     ENDPOINTS_MIDDLEWARE("{\"routes\":[\"/api/orders\"],\"methods\":[\"POST\"]}");
 *
 *     int32_t endpoints_before(void) {
 *         endpoints_request_set_header_str("x-checked", "yes");
 *         return ENDPOINTS_CONTINUE;
 *     } */
#define ENDPOINTS_MIDDLEWARE(json)                                        \
    static const char endpoints_middleware_json_[] = json;               \
    __attribute__((export_name("endpoints_middleware"))) int64_t         \
    endpoints_middleware(void) {                                          \
        return (int64_t)(((uint64_t)(uintptr_t)endpoints_middleware_json_ \
                          << 32) |                                        \
                         (uint64_t)(sizeof endpoints_middleware_json_ - 1)); \
    }                                                                     \
    ENDPOINTS_ROUTE()

/* ------------------------------------------------------------------------ */
/* Helpers.                                                                  */
/* ------------------------------------------------------------------------ */

/* endpoints_strlen_ is strlen without a libc dependency; clang folds it for
 * string literals. */
static inline int32_t endpoints_strlen_(const char *s) {
    return (int32_t)__builtin_strlen(s);
}

/* endpoints_terminate_ ends a value the host wrote into buf with a NUL when
 * it fit, and returns its length n, like snprintf. The callers pass the host
 * cap - 1 bytes, so the NUL always has room. */
static inline int32_t endpoints_terminate_(char *buf, int32_t cap, int32_t n) {
    if (n >= 0 && n < cap) {
        buf[n] = '\0';
    }
    return n;
}

/* endpoints_value reads the JSON encoding of the validated value name of
 * part into buf, like snprintf: it returns the value's length, and the value
 * followed by a NUL was written only when that length is less than cap.
 * It returns ENDPOINTS_ERR_NOT_FOUND when the value is absent.
 *
 *     char id[24];
 *     int32_t n = endpoints_value(ENDPOINTS_PART_PARAMS, "id", id, sizeof id);
 *     if (n < 0 || n >= (int32_t)sizeof id) return 1;  // id = "7"
 *
 * Notes
 *   - Values are JSON: a string arrives quoted and escaped ("\"Ada\""), an
 *     integer as its digits, an object or array whole.
 *   - An empty name selects the whole part ("{\"id\":7}"). */
static inline int32_t endpoints_value(endpoints_part part, const char *name,
                                      char *buf, int32_t cap) {
    int32_t n = endpoints_request_value((int32_t)part, name,
                                        endpoints_strlen_(name), (uint8_t *)buf,
                                        cap > 0 ? cap - 1 : 0);
    return endpoints_terminate_(buf, cap, n);
}

/* endpoints_parse_int parses the len bytes at s as a decimal integer with
 * an optional '-' sign (the JSON encoding of an integer value) into *out.
 * It returns 0, or ENDPOINTS_ERR_INVALID when s is not such an integer or
 * does not fit in int64_t; *out is unchanged then. */
static inline int32_t endpoints_parse_int(const char *s, int32_t len,
                                          int64_t *out) {
    int32_t i = 0;
    int negative = 0;
    uint64_t v = 0;
    if (len > 0 && s[0] == '-') {
        negative = 1;
        i = 1;
    }
    /* 19 digits always fit in uint64_t; the range check comes after. */
    if (i == len || len - i > 19) {
        return ENDPOINTS_ERR_INVALID;
    }
    for (; i < len; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9) {
            return ENDPOINTS_ERR_INVALID;
        }
        v = v * 10 + d;
    }
    if (v > (uint64_t)INT64_MAX + (uint64_t)negative) {
        return ENDPOINTS_ERR_INVALID;
    }
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* endpoints_value_int reads the validated integer value name of part into
 * *out. It returns 0, ENDPOINTS_ERR_NOT_FOUND when the value is absent, or
 * ENDPOINTS_ERR_INVALID when it is not an integer that fits in int64_t.
 * Declare the value's "minimum" and "maximum" within int64_t in the
 * contract (9223372036854775807 at most): a JSON Schema integer has no
 * range of its own, and without them the host passes a client's
 * 9223372036854775808 to the handler instead of answering 400.
 *
 *     int64_t id;
 *     if (endpoints_value_int(ENDPOINTS_PART_PARAMS, "id", &id) != 0) return 1; */
static inline int32_t endpoints_value_int(endpoints_part part,
                                          const char *name, int64_t *out) {
    char buf[24]; /* "-9223372036854775808" is 20 bytes */
    int32_t n = endpoints_value(part, name, buf, (int32_t)sizeof buf);
    if (n < 0) {
        return n;
    }
    if (n >= (int32_t)sizeof buf) {
        return ENDPOINTS_ERR_INVALID;
    }
    return endpoints_parse_int(buf, n, out);
}

/* endpoints_header reads the raw values of request header name
 * (case-insensitive, joined with ", ") into buf, like snprintf: it returns
 * their length, and they were written with a NUL only when that length is
 * less than cap. ENDPOINTS_ERR_NOT_FOUND when the request has no such
 * header. */
static inline int32_t endpoints_header(const char *name, char *buf,
                                       int32_t cap) {
    int32_t n = endpoints_request_header(name, endpoints_strlen_(name),
                                         (uint8_t *)buf, cap > 0 ? cap - 1 : 0);
    return endpoints_terminate_(buf, cap, n);
}

/* endpoints_request reads the request envelope (JSON, abi.Envelope) into
 * buf, like snprintf: it returns its length, and it was written with a NUL
 * only when that length is less than cap. Prefer endpoints_value, which
 * needs no JSON parsing. */
static inline int32_t endpoints_request(char *buf, int32_t cap) {
    int32_t n = endpoints_request_read((uint8_t *)buf, cap > 0 ? cap - 1 : 0);
    return endpoints_terminate_(buf, cap, n);
}

/* endpoints_set_status sets the response status (200-599; 200 by default).
 * It returns 0, ENDPOINTS_ERR_INVALID out of range, or
 * ENDPOINTS_ERR_HEADERS_SENT once body bytes were sent. */
static inline int32_t endpoints_set_status(int32_t status) {
    return endpoints_response_set_status(status);
}

/* endpoints_set_header replaces the response header name with value (both
 * NUL-terminated). It returns 0 or ENDPOINTS_ERR_INVALID for a name that is
 * not an HTTP token, a value holding CR, LF or NUL, or a header the host owns
 * (Content-Length, Transfer-Encoding, Connection, ...).
 *
 *     endpoints_set_header("Content-Type", "text/plain; charset=utf-8"); */
static inline int32_t endpoints_set_header(const char *name,
                                           const char *value) {
    return endpoints_response_set_header(name, endpoints_strlen_(name), value,
                                         endpoints_strlen_(value));
}

/* endpoints_add_header adds value to the response header name, keeping the
 * values already set; the rules of endpoints_set_header apply. */
static inline int32_t endpoints_add_header(const char *name,
                                           const char *value) {
    return endpoints_response_add_header(name, endpoints_strlen_(name), value,
                                         endpoints_strlen_(value));
}

/* endpoints_write appends len bytes at buf to the response body and
 * returns 0. An endpoint's body is JSON; without a Content-Type header the
 * host sends application/json. */
static inline int32_t endpoints_write(const void *buf, int32_t len) {
    return endpoints_response_write((const uint8_t *)buf, len);
}

/* endpoints_write_str appends the NUL-terminated string s to the response
 * body and returns 0.
 *
 *     endpoints_write_str("{\"message\":\"created\"}"); */
static inline int32_t endpoints_write_str(const char *s) {
    return endpoints_response_write((const uint8_t *)s, endpoints_strlen_(s));
}

/* endpoints_write_json_str_n appends n bytes of UTF-8 text to the response
 * body as one JSON string: quoted, with quotes, backslashes and control
 * characters escaped (as endpoints_params_text escapes a parameter); a NULL
 * s appends null. It returns 0 or the first failed write's errno. Text the
 * handler did not write itself (a column's text, a database's message,
 * which quotes names on PostgreSQL) goes into a JSON answer so:
 *
 *     endpoints_write_str("{\"message\":");
 *     endpoints_write_json_str(endpoints_db_error_message());
 *     endpoints_write_str("}"); */
static inline int32_t endpoints_write_json_str_n(const char *s, int32_t n) {
    static const char hex[] = "0123456789abcdef";
    if (!s) {
        return endpoints_write("null", 4);
    }
    char buf[256];
    int32_t used = 0;
    buf[used++] = '"';
    for (int32_t i = 0; i < n; i++) {
        /* An escape takes at most 6 bytes; one more stays for the closing
         * quote. */
        if (used > (int32_t)sizeof buf - 7) {
            int32_t rc = endpoints_write(buf, used);
            if (rc != 0) {
                return rc;
            }
            used = 0;
        }
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            buf[used++] = '\\';
            buf[used++] = (char)c;
        } else if (c < 0x20) {
            buf[used++] = '\\';
            buf[used++] = 'u';
            buf[used++] = '0';
            buf[used++] = '0';
            buf[used++] = hex[c >> 4];
            buf[used++] = hex[c & 15];
        } else {
            buf[used++] = (char)c;
        }
    }
    buf[used++] = '"';
    return endpoints_write(buf, used);
}

/* endpoints_write_json_str appends the NUL-terminated s as one JSON string,
 * as endpoints_write_json_str_n does (NULL appends null). */
static inline int32_t endpoints_write_json_str(const char *s) {
    return endpoints_write_json_str_n(s, s ? endpoints_strlen_(s) : 0);
}

/* endpoints_log_str writes the NUL-terminated msg to the host's log at
 * level.
 *
 *     endpoints_log_str(ENDPOINTS_LOG_WARN, "cache miss"); */
static inline void endpoints_log_str(endpoints_log_level level,
                                     const char *msg) {
    endpoints_log((int32_t)level, msg, endpoints_strlen_(msg));
}

/* endpoints_request_set_header_str, endpoints_context_set_str and
 * endpoints_principal_set_str take NUL-terminated strings. */
static inline int32_t endpoints_request_set_header_str(const char *name,
                                                       const char *value) {
    return endpoints_request_set_header(name, endpoints_strlen_(name), value,
                                        endpoints_strlen_(value));
}

static inline int32_t endpoints_context_set_str(const char *name,
                                                const char *value) {
    return endpoints_context_set(name, endpoints_strlen_(name), value,
                                 endpoints_strlen_(value));
}

static inline int32_t endpoints_principal_set_str(const char *json) {
    return endpoints_principal_set(json, endpoints_strlen_(json));
}

/* The database helpers (endpoints_query, endpoints_exec, ...). */
#include "endpoints_db.h"

#ifdef __cplusplus
}
#endif

#endif /* ENDPOINTS_H */
