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
#include <stdio.h>  /* snprintf, for real parameters */
#include <stdlib.h> /* realloc and strtod, for database results */

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
    /* An argument is out of range or malformed: a status outside 100-599, a
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
    ENDPOINTS_ERR_DATABASE = -8
} endpoints_errno;

/* Limits of the key-value functions (abi.KVMaxKey, abi.KVMaxValue,
 * abi.KVListLimit): the longest key and value in bytes, and the most keys
 * one endpoints_kv_list call returns. */
#define ENDPOINTS_KV_MAX_KEY 1024
#define ENDPOINTS_KV_MAX_VALUE (1 << 20)
#define ENDPOINTS_KV_LIST_LIMIT 1000

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

/* endpoints_response_set_status sets the status code (100-599); the default
 * is 200. */
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

/* Middleware (server/middleware/*.wasm; abi/README.md section 6.1). */

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
ENDPOINTS_IMPORT_("db_commit")
int32_t endpoints_db_commit(const char *db, int32_t db_len);
ENDPOINTS_IMPORT_("db_rollback")
int32_t endpoints_db_rollback(const char *db, int32_t db_len);

/* ------------------------------------------------------------------------ */
/* Exports. Define endpoints_handle (and, when the contract says             */
/* "onValidationError": true, endpoints_on_validation_error); the            */
/* declarations below export them under their ABI names.                     */
/* ------------------------------------------------------------------------ */

/* endpoints_handle is called once per request, after validation. Return 0
 * when the request was answered; any other value is a guest failure, which
 * the host logs and answers with 500 when nothing was sent yet. */
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
 *     ENDPOINTS_MIDDLEWARE("{\"routes\":[\"/api/**\"],\"methods\":[\"POST\"]}");
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

/* endpoints_set_status sets the response status (100-599; 200 by default).
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

/* ------------------------------------------------------------------------ */
/* Database helpers: statements with parameters, rows read by column.        */
/* ------------------------------------------------------------------------ */

/* The helpers below keep each result in memory they malloc and reuse (one
 * instance serves one request at a time): rows, texts and error messages
 * stay valid until the next database call of the module. */

/* endpoints_params builds the JSON array of a statement's parameters in a
 * buffer the caller owns, escaping text so that it stays a value:
 *
 *     char pbuf[256];
 *     endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
 *     endpoints_params_text(&p, name);
 *     endpoints_params_int(&p, 42);
 *     endpoints_exec("main", "INSERT INTO users (name, age) VALUES ($1, $2)",
 *                    endpoints_params_json(&p), NULL);
 *
 * Notes
 *   - A buffer too small is not an error until endpoints_params_json, which
 *     then returns text the host refuses (ENDPOINTS_ERR_INVALID): a
 *     statement never runs with parameters cut short.
 *   - A literal array works as well: endpoints_query(db, sql, "[7]", &rows). */
typedef struct endpoints_params {
    char *buf;
    int32_t cap;
    int32_t len;
    int32_t overflow;
} endpoints_params;

static inline endpoints_params endpoints_params_init(char *buf, int32_t cap) {
    endpoints_params p = {buf, cap, 0, cap < 3};
    if (!p.overflow) {
        buf[p.len++] = '[';
    }
    return p;
}

/* endpoints_params_raw_ appends n bytes, or marks p overflowed; one byte is
 * kept for "]" and one for the NUL. */
static inline void endpoints_params_raw_(endpoints_params *p, const char *s,
                                         int32_t n) {
    if (p->overflow || p->len + n + 2 > p->cap) {
        p->overflow = 1;
        return;
    }
    __builtin_memcpy(p->buf + p->len, s, (size_t)n);
    p->len += n;
}

static inline void endpoints_params_sep_(endpoints_params *p) {
    if (p->len > 1) {
        endpoints_params_raw_(p, ",", 1);
    }
}

/* endpoints_params_int appends an integer. */
static inline void endpoints_params_int(endpoints_params *p, int64_t v) {
    char d[21];
    int32_t i = (int32_t)sizeof d;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        d[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) {
        d[--i] = '-';
    }
    endpoints_params_sep_(p);
    endpoints_params_raw_(p, d + i, (int32_t)sizeof d - i);
}

/* endpoints_params_double appends a real; NaN and the infinities, which
 * JSON cannot carry, go as NULL. */
static inline void endpoints_params_double(endpoints_params *p, double v) {
    char d[32];
    int n = v == v && v - v == 0 ? snprintf(d, sizeof d, "%.17g", v) : 0;
    endpoints_params_sep_(p);
    if (n <= 0) {
        endpoints_params_raw_(p, "null", 4);
        return;
    }
    endpoints_params_raw_(p, d, (int32_t)n);
}

/* endpoints_params_null appends SQL NULL. */
static inline void endpoints_params_null(endpoints_params *p) {
    endpoints_params_sep_(p);
    endpoints_params_raw_(p, "null", 4);
}

/* endpoints_params_text_n appends n bytes of UTF-8 text; endpoints_params_text
 * a NUL-terminated string (NULL appends SQL NULL). */
static inline void endpoints_params_text_n(endpoints_params *p, const char *s,
                                           int32_t n) {
    static const char hex[] = "0123456789abcdef";
    endpoints_params_sep_(p);
    endpoints_params_raw_(p, "\"", 1);
    for (int32_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            endpoints_params_raw_(p, e, 2);
        } else if (c < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            endpoints_params_raw_(p, e, 6);
        } else {
            endpoints_params_raw_(p, (const char *)&c, 1);
        }
    }
    endpoints_params_raw_(p, "\"", 1);
}

static inline void endpoints_params_text(endpoints_params *p, const char *s) {
    if (!s) {
        endpoints_params_null(p);
        return;
    }
    endpoints_params_text_n(p, s, endpoints_strlen_(s));
}

static const char endpoints_base64_[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* endpoints_params_blob appends n bytes as a blob ({"$blob":"base64"}). */
static inline void endpoints_params_blob(endpoints_params *p,
                                         const uint8_t *b, int32_t n) {
    endpoints_params_sep_(p);
    endpoints_params_raw_(p, "{\"$blob\":\"", 10);
    for (int32_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)b[i] << 16;
        if (i + 1 < n) v |= (uint32_t)b[i + 1] << 8;
        if (i + 2 < n) v |= b[i + 2];
        char q[4];
        for (int k = 0; k < 4; k++) {
            q[k] = k <= n - i ? endpoints_base64_[(v >> (18 - 6 * k)) & 63] : '=';
        }
        endpoints_params_raw_(p, q, 4);
    }
    endpoints_params_raw_(p, "\"}", 2);
}

/* endpoints_params_json ends the array and returns it, NUL-terminated; or,
 * when the buffer was too small, "[" (which the host refuses with
 * ENDPOINTS_ERR_INVALID). */
static inline const char *endpoints_params_json(endpoints_params *p) {
    if (p->overflow) {
        return "[";
    }
    /* endpoints_params_raw_ kept these two bytes; a later append replaces
     * them. */
    p->buf[p->len] = ']';
    p->buf[p->len + 1] = '\0';
    return p->buf;
}

/* endpoints_cell_ is one value of the current row: its JSON at [start,
 * start+len) of the result, and its text once decoded (NULL when it is not
 * a string). */
typedef struct endpoints_cell_ {
    int32_t start, len;
    const char *text;
    int32_t text_len;
} endpoints_cell_;

/* endpoints_db_ is the module's database state: the last result, the
 * column names, the current row, the last error. */
typedef struct endpoints_db_ {
    char *result;
    int32_t result_cap, result_len;
    char *texts; /* decoded names, then the current row's texts */
    int32_t texts_cap, row_texts;
    const char **names;
    int32_t names_cap;
    endpoints_cell_ *cells;
    int32_t cells_cap;
    const char *error_code, *error_message, *error_constraint;
    /* generation counts the results read: rows of an older one are
     * stale. */
    uint32_t generation;
} endpoints_db_;

static inline endpoints_db_ *endpoints_db_state_(void) {
    static endpoints_db_ s;
    return &s;
}

/* endpoints_grow_ returns p grown to hold at least n bytes (p itself when
 * it does), or NULL when memory is out (p is unchanged then). */
static inline void *endpoints_grow_(void *p, int32_t *cap, int32_t n) {
    if (n <= *cap) {
        return p;
    }
    void *b = realloc(p, (size_t)n);
    if (b) {
        *cap = n;
    }
    return b;
}

/* endpoints_json_space_ skips JSON white space from i. */
static inline int32_t endpoints_json_space_(const char *s, int32_t n,
                                            int32_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) {
        i++;
    }
    return i;
}

/* endpoints_json_skip_ returns the index just past the JSON value at i
 * (after white space), or -1 when there is none. */
static inline int32_t endpoints_json_skip_(const char *s, int32_t n,
                                           int32_t i) {
    int32_t depth = 0;
    i = endpoints_json_space_(s, n, i);
    if (i >= n) {
        return -1;
    }
    do {
        if (i >= n) {
            return -1;
        }
        char c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++) {
                if (s[i] == '\\') {
                    i++;
                }
            }
            if (i >= n) {
                return -1;
            }
            i++;
        } else if (c == '[' || c == '{') {
            depth++;
            i++;
        } else if (c == ']' || c == '}') {
            if (--depth < 0) {
                return -1;
            }
            i++;
        } else if (c == ',' || c == ':' || c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            if (depth == 0) {
                return -1;
            }
            i++;
        } else {
            int32_t start = i;
            while (i < n && (s[i] == '-' || s[i] == '+' || s[i] == '.' ||
                             (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
                             s[i] == 'E')) {
                i++;
            }
            if (i == start) {
                return -1;
            }
        }
    } while (depth > 0);
    return i;
}

/* endpoints_json_member_ returns the index of the value of member key of
 * the object at i, or -1. */
static inline int32_t endpoints_json_member_(const char *s, int32_t n,
                                             int32_t i, const char *key) {
    int32_t klen = endpoints_strlen_(key);
    i = endpoints_json_space_(s, n, i);
    if (i >= n || s[i] != '{') {
        return -1;
    }
    i++;
    for (;;) {
        i = endpoints_json_space_(s, n, i);
        if (i >= n || s[i] != '"') {
            return -1;
        }
        int32_t k = i, end = endpoints_json_skip_(s, n, i);
        if (end < 0) {
            return -1;
        }
        i = endpoints_json_space_(s, n, end);
        if (i >= n || s[i] != ':') {
            return -1;
        }
        i = endpoints_json_space_(s, n, i + 1);
        if (end - k - 2 == klen && __builtin_memcmp(s + k + 1, key, (size_t)klen) == 0) {
            return i;
        }
        i = endpoints_json_skip_(s, n, i);
        if (i < 0) {
            return -1;
        }
        i = endpoints_json_space_(s, n, i);
        if (i >= n || s[i] != ',') {
            return -1;
        }
        i++;
    }
}

/* endpoints_json_hex4_ reads four hex digits, or returns -1. */
static inline int32_t endpoints_json_hex4_(const char *s) {
    int32_t v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[k];
        int32_t d = c >= '0' && c <= '9' ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) {
            return -1;
        }
        v = v * 16 + d;
    }
    return v;
}

/* endpoints_json_unquote_ decodes the JSON string s[0..len) (quotes
 * included) into out, which has room for len bytes, and NUL-terminates it.
 * It returns the decoded length, or -1 for a malformed escape. */
static inline int32_t endpoints_json_unquote_(const char *s, int32_t len,
                                              char *out) {
    int32_t o = 0;
    for (int32_t i = 1; i < len - 1; i++) {
        char c = s[i];
        if (c != '\\') {
            out[o++] = c;
            continue;
        }
        c = s[++i];
        switch (c) {
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'u': {
            if (i + 4 >= len) {
                return -1;
            }
            int32_t cp = endpoints_json_hex4_(s + i + 1);
            i += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < len && s[i + 1] == '\\' && s[i + 2] == 'u') {
                int32_t lo = endpoints_json_hex4_(s + i + 3);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    i += 6;
                }
            }
            if (cp < 0) {
                return -1;
            }
            if (cp < 0x80) {
                out[o++] = (char)cp;
            } else if (cp < 0x800) {
                out[o++] = (char)(0xc0 | cp >> 6);
                out[o++] = (char)(0x80 | (cp & 63));
            } else if (cp < 0x10000) {
                out[o++] = (char)(0xe0 | cp >> 12);
                out[o++] = (char)(0x80 | (cp >> 6 & 63));
                out[o++] = (char)(0x80 | (cp & 63));
            } else {
                out[o++] = (char)(0xf0 | cp >> 18);
                out[o++] = (char)(0x80 | (cp >> 12 & 63));
                out[o++] = (char)(0x80 | (cp >> 6 & 63));
                out[o++] = (char)(0x80 | (cp & 63));
            }
            break;
        }
        default: out[o++] = c; /* " \ / */
        }
    }
    out[o] = '\0';
    return o;
}

/* endpoints_db_text_ decodes the string at [i, end) of the result into the
 * texts buffer at *at; NULL when it is not a string. */
static inline const char *endpoints_db_text_(endpoints_db_ *st, int32_t i,
                                             int32_t end, int32_t *at,
                                             int32_t *len) {
    if (st->result[i] != '"') {
        return NULL;
    }
    char *out = st->texts + *at;
    int32_t n = endpoints_json_unquote_(st->result + i, end - i, out);
    if (n < 0) {
        return NULL;
    }
    *at += n + 1;
    if (len) {
        *len = n;
    }
    return out;
}

/* endpoints_db_error_code is the code of the last ENDPOINTS_ERR_DATABASE:
 * "constraint" (answer 409 for a unique violation), "syntax", "busy",
 * "unavailable" (answer 503), "too_large", "denied", "transaction" or
 * "other"; "" when the last database call did not fail so. */
static inline const char *endpoints_db_error_code(void) {
    const char *c = endpoints_db_state_()->error_code;
    return c ? c : "";
}

/* endpoints_db_error_message is the database's message of the last
 * ENDPOINTS_ERR_DATABASE; "" when there is none. */
static inline const char *endpoints_db_error_message(void) {
    const char *m = endpoints_db_state_()->error_message;
    return m ? m : "";
}

/* endpoints_db_error_constraint is the constraint the last
 * ENDPOINTS_ERR_DATABASE names when its code is "constraint" (PostgreSQL:
 * users_email_key; SQLite: the columns, users.email); "" when none. */
static inline const char *endpoints_db_error_constraint(void) {
    const char *c = endpoints_db_state_()->error_constraint;
    return c ? c : "";
}

/* endpoints_db_fail_ records a failure the SDK found itself. */
static inline int32_t endpoints_db_fail_(endpoints_db_ *st, const char *msg) {
    st->error_code = "other";
    st->error_message = msg;
    st->error_constraint = NULL;
    return ENDPOINTS_ERR_DATABASE;
}

/* endpoints_db_read_ reads the pending result of size n into st->result
 * and, for ENDPOINTS_ERR_DATABASE, its error. It returns rc, 0 for a
 * result, or a negative errno. */
static inline int32_t endpoints_db_read_(endpoints_db_ *st, int32_t rc) {
    st->error_code = st->error_message = st->error_constraint = NULL;
    st->result_len = 0;
    st->generation++;
    if (rc < 0 && rc != ENDPOINTS_ERR_DATABASE) {
        return rc;
    }
    int32_t n = rc >= 0 ? rc : endpoints_db_result(NULL, 0);
    if (n < 0) {
        return n;
    }
    char *result = endpoints_grow_(st->result, &st->result_cap, n + 1);
    if (result) {
        st->result = result;
    }
    char *texts = result ? endpoints_grow_(st->texts, &st->texts_cap, 2 * (n + 1)) : NULL;
    if (!texts) {
        return endpoints_db_fail_(st, "out of memory reading the result");
    }
    st->texts = texts;
    int32_t m = endpoints_db_result((uint8_t *)st->result, n);
    if (m < 0 || m > n) {
        return endpoints_db_fail_(st, "the result changed while it was read");
    }
    st->result[m] = '\0';
    st->result_len = m;
    if (rc >= 0) {
        return 0;
    }
    int32_t e = endpoints_json_member_(st->result, m, 0, "error"), at = 0;
    const char **dst[3] = {&st->error_code, &st->error_message, &st->error_constraint};
    const char *keys[3] = {"code", "message", "constraint"};
    for (int k = 0; k < 3 && e >= 0; k++) {
        int32_t v = endpoints_json_member_(st->result, m, e, keys[k]);
        int32_t end = v < 0 ? -1 : endpoints_json_skip_(st->result, m, v);
        if (end > v) {
            *dst[k] = endpoints_db_text_(st, v, end, &at, NULL);
        }
    }
    if (!st->error_code) {
        endpoints_db_fail_(st, "the host's error result is malformed");
    }
    return ENDPOINTS_ERR_DATABASE;
}

/* endpoints_rows is a query's result, read row by row:
 *
 *     endpoints_rows rows;
 *     if (endpoints_query("main", "SELECT id, name FROM users", NULL, &rows) != 0) ...
 *     while (endpoints_rows_next(&rows)) {
 *         int64_t id;
 *         endpoints_rows_int(&rows, 0, &id);
 *         const char *name = endpoints_rows_text(&rows, 1, NULL);
 *     }
 *
 * columns and names are public; the rest is the SDK's. The rows are read
 * from the module's last result: after the next database call, a stale
 * endpoints_rows has no more rows and no columns to read. */
typedef struct endpoints_rows {
    /* The number of columns, and their names in order. */
    int32_t columns;
    const char *const *names;
    int32_t next_, row_;
    uint32_t generation_;
} endpoints_rows;

/* endpoints_db_name_ is strlen for the database name arguments. */
#define endpoints_db_name_(db) (db), endpoints_strlen_(db)

/* endpoints_query runs one statement that returns rows on database db,
 * with params a JSON array (NULL or "" for none; see endpoints_params),
 * and points rows at its result. It returns 0, ENDPOINTS_ERR_DATABASE when
 * the database refused it (endpoints_db_error_code says why),
 * ENDPOINTS_ERR_NOT_FOUND for a database the app does not declare, or
 * ENDPOINTS_ERR_INVALID for params that are not a JSON array.
 *
 *     endpoints_query("main", "SELECT name FROM users WHERE id = $1", "[7]", &rows); */
static inline int32_t endpoints_query(const char *db, const char *sql,
                                      const char *params,
                                      endpoints_rows *rows) {
    endpoints_db_ *st = endpoints_db_state_();
    int32_t plen = params ? endpoints_strlen_(params) : 0;
    int32_t rc = endpoints_db_read_(st, endpoints_db_query(endpoints_db_name_(db), sql, endpoints_strlen_(sql), params, plen));
    rows->columns = 0;
    rows->names = NULL;
    rows->next_ = rows->row_ = -1;
    rows->generation_ = st->generation;
    if (rc != 0) {
        return rc;
    }
    const char *r = st->result;
    int32_t n = st->result_len;
    int32_t c = endpoints_json_member_(r, n, 0, "columns");
    int32_t w = endpoints_json_member_(r, n, 0, "rows");
    if (c < 0 || r[c] != '[' || w < 0 || r[w] != '[') {
        return endpoints_db_fail_(st, "the host's result has no columns or rows");
    }
    /* Count the columns, then decode their names. */
    int32_t count = 0;
    for (int32_t i = endpoints_json_space_(r, n, c + 1); i < n && r[i] != ']';) {
        i = endpoints_json_skip_(r, n, i);
        if (i < 0) {
            return endpoints_db_fail_(st, "the host's column list is malformed");
        }
        count++;
        i = endpoints_json_space_(r, n, i);
        if (i < n && r[i] == ',') {
            i++;
        }
    }
    const char **names = endpoints_grow_(st->names, &st->names_cap, (int32_t)sizeof(const char *) * (count + 1));
    if (names) {
        st->names = names;
    }
    endpoints_cell_ *cells = names ? endpoints_grow_(st->cells, &st->cells_cap, (int32_t)sizeof(endpoints_cell_) * (count + 1)) : NULL;
    if (!cells) {
        return endpoints_db_fail_(st, "out of memory reading the columns");
    }
    st->cells = cells;
    int32_t at = 0, i = c + 1;
    for (int32_t k = 0; k < count; k++) {
        i = endpoints_json_space_(r, n, i);
        int32_t end = endpoints_json_skip_(r, n, i);
        st->names[k] = endpoints_db_text_(st, i, end, &at, NULL);
        if (!st->names[k]) {
            return endpoints_db_fail_(st, "a column name is not a string");
        }
        i = endpoints_json_space_(r, n, end) + 1;
    }
    st->row_texts = at;
    rows->columns = count;
    rows->names = (const char *const *)st->names;
    rows->next_ = endpoints_json_space_(r, n, w + 1);
    return 0;
}

/* endpoints_rows_next moves to the next row: 1, or 0 after the last. */
static inline int32_t endpoints_rows_next(endpoints_rows *rows) {
    endpoints_db_ *st = endpoints_db_state_();
    const char *r = st->result;
    int32_t n = st->result_len, i = rows->next_;
    rows->row_ = -1;
    if (rows->generation_ != st->generation || i < 0 || i >= n || r[i] != '[') {
        rows->next_ = -1;
        return 0;
    }
    int32_t at = st->row_texts;
    i++;
    for (int32_t k = 0; k < rows->columns; k++) {
        i = endpoints_json_space_(r, n, i);
        int32_t end = endpoints_json_skip_(r, n, i);
        if (end < 0) {
            rows->next_ = -1;
            endpoints_db_fail_(st, "a row of the host's result is malformed");
            return 0;
        }
        endpoints_cell_ *cell = &st->cells[k];
        cell->start = i;
        cell->len = end - i;
        cell->text_len = 0;
        cell->text = endpoints_db_text_(st, i, end, &at, &cell->text_len);
        i = endpoints_json_space_(r, n, end);
        if (i < n && r[i] == ',') {
            i++;
        }
    }
    i = endpoints_json_space_(r, n, i);
    if (i >= n || r[i] != ']') {
        rows->next_ = -1;
        endpoints_db_fail_(st, "a row of the host's result does not have one value per column");
        return 0;
    }
    i = endpoints_json_space_(r, n, i + 1);
    if (i < n && r[i] == ',') {
        i = endpoints_json_space_(r, n, i + 1);
    }
    rows->row_ = rows->next_;
    rows->next_ = i;
    return 1;
}

/* endpoints_rows_column is the position of the column named name, or
 * ENDPOINTS_ERR_NOT_FOUND. */
static inline int32_t endpoints_rows_column(const endpoints_rows *rows,
                                            const char *name) {
    for (int32_t k = 0; k < rows->columns; k++) {
        if (__builtin_strcmp(rows->names[k], name) == 0) {
            return k;
        }
    }
    return ENDPOINTS_ERR_NOT_FOUND;
}

/* endpoints_rows_cell_ is column col of the current row, or NULL. */
static inline const endpoints_cell_ *endpoints_rows_cell_(const endpoints_rows *rows,
                                                          int32_t col) {
    if (rows->row_ < 0 || col < 0 || col >= rows->columns ||
        rows->generation_ != endpoints_db_state_()->generation) {
        return NULL;
    }
    return &endpoints_db_state_()->cells[col];
}

/* endpoints_rows_json is column col of the current row as the JSON the host
 * sent (integers exact, reals numbers, text and blobs strings, NULL null),
 * len bytes NOT terminated by a NUL: write it into a JSON answer as it is.
 * NULL when there is no such column or no current row. */
static inline const char *endpoints_rows_json(const endpoints_rows *rows,
                                              int32_t col, int32_t *len) {
    const endpoints_cell_ *c = endpoints_rows_cell_(rows, col);
    if (!c) {
        return NULL;
    }
    *len = c->len;
    return endpoints_db_state_()->result + c->start;
}

/* endpoints_rows_is_null is 1 when column col of the current row is NULL,
 * 0 when it is not, ENDPOINTS_ERR_NOT_FOUND when there is no such column. */
static inline int32_t endpoints_rows_is_null(const endpoints_rows *rows,
                                             int32_t col) {
    const endpoints_cell_ *c = endpoints_rows_cell_(rows, col);
    if (!c) {
        return ENDPOINTS_ERR_NOT_FOUND;
    }
    return c->len == 4 && __builtin_memcmp(endpoints_db_state_()->result + c->start, "null", 4) == 0;
}

/* endpoints_rows_int reads column col of the current row as an integer into
 * *out: 0, ENDPOINTS_ERR_NOT_FOUND for no such column, or
 * ENDPOINTS_ERR_INVALID when it is NULL or not an integer. */
static inline int32_t endpoints_rows_int(const endpoints_rows *rows,
                                         int32_t col, int64_t *out) {
    const endpoints_cell_ *c = endpoints_rows_cell_(rows, col);
    if (!c) {
        return ENDPOINTS_ERR_NOT_FOUND;
    }
    return endpoints_parse_int(endpoints_db_state_()->result + c->start, c->len, out);
}

/* endpoints_rows_double reads column col of the current row as a number
 * (an integer or a real) into *out: 0, ENDPOINTS_ERR_NOT_FOUND, or
 * ENDPOINTS_ERR_INVALID when it is NULL or not a number. */
static inline int32_t endpoints_rows_double(const endpoints_rows *rows,
                                            int32_t col, double *out) {
    const endpoints_cell_ *c = endpoints_rows_cell_(rows, col);
    if (!c) {
        return ENDPOINTS_ERR_NOT_FOUND;
    }
    const char *s = endpoints_db_state_()->result + c->start;
    char *end;
    if (!(s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
        return ENDPOINTS_ERR_INVALID;
    }
    double v = strtod(s, &end);
    if (end != s + c->len) {
        return ENDPOINTS_ERR_INVALID;
    }
    *out = v;
    return 0;
}

/* endpoints_rows_text is column col of the current row as NUL-terminated
 * text (its length in *len when len is not NULL), valid until the next row
 * or database call; NULL when it is NULL, not text, or no such column. */
static inline const char *endpoints_rows_text(const endpoints_rows *rows,
                                              int32_t col, int32_t *len) {
    const endpoints_cell_ *c = endpoints_rows_cell_(rows, col);
    if (!c || !c->text) {
        return NULL;
    }
    if (len) {
        *len = c->text_len;
    }
    return c->text;
}

/* endpoints_rows_blob decodes column col of the current row, a blob
 * (base64 text on the wire), into buf when it fits in cap bytes and returns
 * its size either way, like endpoints_kv_get; ENDPOINTS_ERR_NOT_FOUND for
 * no such column, ENDPOINTS_ERR_INVALID when it is NULL or not base64. */
static inline int32_t endpoints_rows_blob(const endpoints_rows *rows,
                                          int32_t col, uint8_t *buf,
                                          int32_t cap) {
    const endpoints_cell_ *c = endpoints_rows_cell_(rows, col);
    if (!c) {
        return ENDPOINTS_ERR_NOT_FOUND;
    }
    const char *s = c->text;
    int32_t n = c->text_len;
    if (!s || n % 4 != 0) {
        return ENDPOINTS_ERR_INVALID;
    }
    int32_t pad = n > 0 && s[n - 1] == '=' ? (n > 1 && s[n - 2] == '=' ? 2 : 1) : 0;
    int32_t size = n / 4 * 3 - pad;
    for (int32_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) {
            char ch = s[i + k];
            int32_t d = ch >= 'A' && ch <= 'Z' ? ch - 'A'
                      : ch >= 'a' && ch <= 'z' ? ch - 'a' + 26
                      : ch >= '0' && ch <= '9' ? ch - '0' + 52
                      : ch == '+' ? 62 : ch == '/' ? 63
                      : ch == '=' && i + 4 == n && k >= 4 - pad ? 0 : -1;
            if (d < 0) {
                return ENDPOINTS_ERR_INVALID;
            }
            v = v << 6 | (uint32_t)d;
        }
        for (int k = 0; k < 3; k++) {
            int32_t o = i / 4 * 3 + k;
            if (o < size && size <= cap) {
                buf[o] = (uint8_t)(v >> (16 - 8 * k));
            }
        }
    }
    return size;
}

/* endpoints_exec_result is what endpoints_exec changed. */
typedef struct endpoints_exec_result {
    /* The rows inserted, updated or deleted. */
    int64_t rows_affected;
    /* The rowid of the last insert on SQLite, when has_last_insert_id;
     * PostgreSQL has none: say INSERT ... RETURNING id and use
     * endpoints_query. */
    int64_t last_insert_id;
    int32_t has_last_insert_id;
} endpoints_exec_result;

/* endpoints_exec runs one statement for its effect on database db, with
 * params as endpoints_query takes them, and fills *res (when not NULL).
 * It returns 0 or a negative errno as endpoints_query does.
 *
 *     endpoints_exec_result res;
 *     if (endpoints_exec("main", "DELETE FROM users WHERE id = $1", "[7]", &res) == 0 &&
 *         res.rows_affected == 0) ... not found */
static inline int32_t endpoints_exec(const char *db, const char *sql,
                                     const char *params,
                                     endpoints_exec_result *res) {
    endpoints_db_ *st = endpoints_db_state_();
    int32_t plen = params ? endpoints_strlen_(params) : 0;
    int32_t rc = endpoints_db_read_(st, endpoints_db_exec(endpoints_db_name_(db), sql, endpoints_strlen_(sql), params, plen));
    if (rc != 0 || !res) {
        return rc;
    }
    const char *r = st->result;
    int32_t n = st->result_len;
    int32_t a = endpoints_json_member_(r, n, 0, "rowsAffected");
    int32_t l = endpoints_json_member_(r, n, 0, "lastInsertId");
    int32_t aend = a < 0 ? -1 : endpoints_json_skip_(r, n, a);
    if (aend < 0 || endpoints_parse_int(r + a, aend - a, &res->rows_affected) != 0) {
        return endpoints_db_fail_(st, "the host's result has no rowsAffected");
    }
    int32_t lend = l < 0 ? -1 : endpoints_json_skip_(r, n, l);
    res->has_last_insert_id = lend > 0 && endpoints_parse_int(r + l, lend - l, &res->last_insert_id) == 0;
    if (!res->has_last_insert_id) {
        res->last_insert_id = 0;
    }
    return 0;
}

/* endpoints_db_call_ records the error of a transaction call. */
static inline int32_t endpoints_db_call_(int32_t rc) {
    endpoints_db_ *st = endpoints_db_state_();
    if (rc >= 0) {
        st->error_code = st->error_message = st->error_constraint = NULL;
        return 0;
    }
    return endpoints_db_read_(st, rc);
}

/* endpoints_begin, endpoints_commit and endpoints_rollback open, commit and
 * roll back a transaction on database db (prefer endpoints_transaction).
 * They return 0 or a negative errno; ENDPOINTS_ERR_DATABASE with code
 * "transaction" for a commit without a begin, or a second begin. */
static inline int32_t endpoints_begin(const char *db) {
    return endpoints_db_call_(endpoints_db_begin(endpoints_db_name_(db)));
}

static inline int32_t endpoints_commit(const char *db) {
    return endpoints_db_call_(endpoints_db_commit(endpoints_db_name_(db)));
}

static inline int32_t endpoints_rollback(const char *db) {
    return endpoints_db_call_(endpoints_db_rollback(endpoints_db_name_(db)));
}

/* endpoints_transaction runs fn(arg) in a transaction on database db: the
 * statements fn runs on db run in it. It commits when fn returns 0 and
 * returns the commit's result; it rolls back when fn returns anything else,
 * and returns that. A trap or a return from endpoints_handle without a
 * commit rolls back too (the host does it).
 *
 *     static int32_t transfer(void *arg) {
 *         const char *params = arg;
 *         int32_t rc = endpoints_exec("main", "UPDATE accounts SET balance = balance - $1 WHERE id = $2", params, NULL);
 *         if (rc != 0) return rc;
 *         return endpoints_exec("main", "UPDATE accounts SET balance = balance + $1 WHERE id = $3", params, NULL);
 *     }
 *     ...
 *     int32_t rc = endpoints_transaction("main", transfer, (void *)"[10,1,2]"); */
static inline int32_t endpoints_transaction(const char *db,
                                            int32_t (*fn)(void *arg),
                                            void *arg) {
    int32_t rc = endpoints_begin(db);
    if (rc != 0) {
        return rc;
    }
    rc = fn(arg);
    if (rc != 0) {
        /* fn's failure is the one that matters: the raw call keeps its
         * error for endpoints_db_error_code. */
        endpoints_db_rollback(endpoints_db_name_(db));
        return rc;
    }
    return endpoints_commit(db);
}

#ifdef __cplusplus
}
#endif

#endif /* ENDPOINTS_H */
