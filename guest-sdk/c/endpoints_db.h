/*
 * endpoints_db.h - the database helpers of the C SDK for Endpoints route
 * modules: statements with bound parameters, rows read by column,
 * transactions, over the db_* host functions endpoints.h declares (ABI v1,
 * abi/README.md section 3, "Databases"). endpoints.h includes it: a route
 * includes endpoints.h only.
 *
 *     endpoints_rows rows;
 *     if (endpoints_query("main", "SELECT name FROM users WHERE id = $1", "[7]", &rows) == 0 &&
 *         endpoints_rows_next(&rows)) {
 *         const char *name = endpoints_rows_text(&rows, 0, NULL);
 *         ...
 *     }
 *
 * Notes
 *   - The helpers keep each result in memory they malloc and reuse (one
 *     instance serves one request at a time): rows, texts and error messages
 *     stay valid until the next database call of the module.
 *   - A module that calls none of them links none of it, and imports no
 *     db_* function.
 */
#ifndef ENDPOINTS_DB_H
#define ENDPOINTS_DB_H

#ifndef ENDPOINTS_H
#error "include endpoints.h, which includes endpoints_db.h"
#endif

#include <stdio.h>  /* snprintf, for real parameters */
#include <stdlib.h> /* realloc and strtod, for results */

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

/* endpoints_params_double appends a real, bound as one even when it is
 * integral (3.0 goes as "3.0": the host binds "3" as an integer, and
 * $1 / 2 would divide integers); NaN and the infinities, which JSON cannot
 * carry, go as NULL. */
static inline void endpoints_params_double(endpoints_params *p, double v) {
    char d[40];
    int n = v == v && v - v == 0 ? snprintf(d, sizeof d - 2, "%.17g", v) : 0;
    endpoints_params_sep_(p);
    if (n <= 0 || n >= (int)sizeof d - 2) {
        endpoints_params_raw_(p, "null", 4);
        return;
    }
    if (!__builtin_memchr(d, '.', (size_t)n) && !__builtin_memchr(d, 'e', (size_t)n)) {
        d[n++] = '.';
        d[n++] = '0';
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

/* endpoints_base64_decode decodes n bytes of standard, padded base64 (RFC
 * 4648 section 4, the alphabet the host gives and takes blobs in) into buf
 * when the bytes fit in cap, and returns their number either way,
 * snprintf-style; ENDPOINTS_ERR_INVALID when s is not such base64. A
 * request's base64 value (a string with "contentEncoding": "base64" in the
 * contract) becomes a blob parameter so, its quotes left out:
 *
 *     char b64[1400];
 *     uint8_t avatar[1024];
 *     int32_t n = endpoints_value(ENDPOINTS_PART_BODY, "avatar", b64, sizeof b64);
 *     if (n < 2 || n >= (int32_t)sizeof b64) return 1;
 *     int32_t size = endpoints_base64_decode(b64 + 1, n - 2, avatar, sizeof avatar);
 *     if (size < 0 || size > (int32_t)sizeof avatar) ... answer 400
 *     endpoints_params_blob(&p, avatar, size); */
static inline int32_t endpoints_base64_decode(const char *s, int32_t n,
                                              uint8_t *buf, int32_t cap) {
    if (n < 0 || n % 4 != 0) {
        return ENDPOINTS_ERR_INVALID;
    }
    int32_t pad = n > 0 && s[n - 1] == '=' ? (n > 1 && s[n - 2] == '=' ? 2 : 1) : 0;
    int32_t size = n / 4 * 3 - pad;
    /* The first pass checks the text, the second writes: buf is untouched
     * when s is not base64. */
    for (int pass = 0; pass < 2; pass++) {
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
                if (pass == 1 && o < size && size <= cap) {
                    buf[o] = (uint8_t)(v >> (16 - 8 * k));
                }
            }
        }
    }
    return size;
}

static inline int32_t endpoints_json_skip_(const char *s, int32_t n, int32_t i);

/* endpoints_params_value appends a value given as its JSON, len bytes: a
 * value as endpoints_value reads it from the request ("\"Ada\"", "7",
 * "null"), bound as the JSON says (a string as text, an integer exactly),
 * with nothing to unquote or convert. An object or an array is bound as its
 * JSON text (for a json/jsonb column or SQLite's JSON functions), and an
 * integer beyond int64_t as its digits in text (which a numeric column
 * takes exactly), as the Rust SDK binds a request's value: the host takes
 * neither as a value. Text that is not one JSON value makes
 * endpoints_params_json return what the host refuses, as a buffer too small
 * does.
 *
 *     char sku[256];
 *     int32_t n = endpoints_value(ENDPOINTS_PART_BODY, "sku", sku, sizeof sku);
 *     if (n < 0 || n >= (int32_t)sizeof sku) return 1;
 *     endpoints_params_value(&p, sku, n); */
static inline void endpoints_params_value(endpoints_params *p,
                                          const char *json, int32_t len) {
    int32_t start = 0, stop = len > 0 ? endpoints_json_skip_(json, len, 0) : -1;
    int32_t end = stop;
    while (end > 0 && end < len && (json[end] == ' ' || json[end] == '\t' || json[end] == '\n' || json[end] == '\r')) {
        end++;
    }
    if (end != len) {
        p->overflow = 1;
        return;
    }
    while (json[start] == ' ' || json[start] == '\t' || json[start] == '\n' || json[start] == '\r') {
        start++;
    }
    /* Digits only, with an optional '-': an integer, which the host takes
     * when it fits int64_t. */
    int32_t first = json[start] == '-' ? start + 1 : start, digits = first;
    while (digits < stop && json[digits] >= '0' && json[digits] <= '9') {
        digits++;
    }
    int64_t ignored;
    if (json[start] == '{' || json[start] == '[' ||
        (digits == stop && stop - first >= 19 &&
         endpoints_parse_int(json + start, stop - start, &ignored) != 0)) {
        endpoints_params_text_n(p, json + start, stop - start);
        return;
    }
    endpoints_params_sep_(p);
    endpoints_params_raw_(p, json, len);
}

/* endpoints_params_json ends the array and returns it, NUL-terminated; or,
 * when the buffer was too small or a value given to endpoints_params_value
 * was not JSON, "[" (which the host refuses with ENDPOINTS_ERR_INVALID). */
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
    const char *error_code, *error_message, *error_constraint, *error_kind, *error_detail;
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
 * "unavailable" (answer 503), "too_large", "denied", "transaction",
 * "timeout" (past endpoints_db_timeout: the handler goes on, and may answer
 * from a fallback; an outbound request past its "timeout" has the same
 * code, from endpoints_http_error) or "other"; "host" when the host refused the last call before any database
 * saw it (ENDPOINTS_ERR_NOT_FOUND, ENDPOINTS_ERR_INVALID...), as the Rust
 * and AssemblyScript SDKs say; "" when the last database call worked. */
static inline const char *endpoints_db_error_code(void) {
    const char *c = endpoints_db_state_()->error_code;
    return c ? c : "";
}

/* endpoints_db_error_message is the database's message of the last
 * ENDPOINTS_ERR_DATABASE, or why the host refused the last call (code
 * "host"); "" when the last call worked. */
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

/* endpoints_db_error_kind is which constraint refused the change when the
 * last ENDPOINTS_ERR_DATABASE's code is "constraint" and the database says:
 * "unique" (a primary key too: answer 409), "foreign_key" (a row naming one
 * that does not exist: 404 or 422), "check" or "not_null" (422),
 * "exclusion" (PostgreSQL only: 409); "" when it does not say. Compare it
 * with strcmp; a kind this SDK does not list may come from a newer host.
 *
 *     if (rc == ENDPOINTS_ERR_DATABASE && strcmp(endpoints_db_error_kind(), "unique") == 0) {
 *         endpoints_set_status(409);
 *         return endpoints_write_str("{\"message\":\"that email is taken\"}");
 *     }
 */
static inline const char *endpoints_db_error_kind(void) {
    const char *k = endpoints_db_state_()->error_kind;
    return k ? k : "";
}

/* endpoints_db_error_detail is the database's detail of the last
 * ENDPOINTS_ERR_DATABASE, as the server sent it: PostgreSQL's DETAIL
 * ("Key (email)=(ada@example.com) already exists."), for any code; "" when
 * there is none (SQLite never gives one). It is for a person (a log line, a
 * 409's message), in the server's words and language: act on the code,
 * kind and constraint. The host never logs it (abi/README.md §4.5). */
static inline const char *endpoints_db_error_detail(void) {
    const char *d = endpoints_db_state_()->error_detail;
    return d ? d : "";
}

/* endpoints_db_fail_ records a failure the SDK found itself. */
static inline int32_t endpoints_db_fail_(endpoints_db_ *st, const char *msg) {
    st->error_code = "other";
    st->error_message = msg;
    st->error_constraint = st->error_kind = st->error_detail = NULL;
    return ENDPOINTS_ERR_DATABASE;
}

/* endpoints_db_host_why_ says why the host refused a database call with
 * errno rc before any database saw it. */
static inline const char *endpoints_db_host_why_(int32_t rc) {
    switch (rc) {
    case ENDPOINTS_ERR_NOT_FOUND:
        return "the app declares no such database (endpoints.json's \"databases\"; \"main\" when it declares none)";
    case ENDPOINTS_ERR_INVALID:
        return "the parameters are not a JSON array of values, or did not fit their buffer (endpoints_params)";
    case ENDPOINTS_ERR_STATE:
        return "a database call outside a request (while the module loads)";
    default:
        return "the host refused the call";
    }
}

/* endpoints_db_load_ reads the pending result, of size n, into
 * st->result; NULL, or why it could not. */
static inline const char *endpoints_db_load_(endpoints_db_ *st, int32_t n) {
    char *result = endpoints_grow_(st->result, &st->result_cap, n + 1);
    if (result) {
        st->result = result;
    }
    char *texts = result ? endpoints_grow_(st->texts, &st->texts_cap, 2 * (n + 1)) : NULL;
    if (!texts) {
        return "out of memory reading the result";
    }
    st->texts = texts;
    int32_t m = endpoints_db_result((uint8_t *)st->result, n);
    if (m < 0 || m > n) {
        return "the result changed while it was read";
    }
    st->result[m] = '\0';
    st->result_len = m;
    return NULL;
}

/* endpoints_db_error_ decodes the "error" member of the loaded result
 * into st's error fields; those it lacks stay NULL. */
static inline void endpoints_db_error_(endpoints_db_ *st) {
    int32_t m = st->result_len;
    int32_t e = endpoints_json_member_(st->result, m, 0, "error"), at = 0;
    const char **dst[5] = {&st->error_code, &st->error_message, &st->error_constraint, &st->error_kind, &st->error_detail};
    const char *keys[5] = {"code", "message", "constraint", "kind", "detail"};
    for (int k = 0; k < 5 && e >= 0; k++) {
        int32_t v = endpoints_json_member_(st->result, m, e, keys[k]);
        int32_t end = v < 0 ? -1 : endpoints_json_skip_(st->result, m, v);
        if (end > v) {
            *dst[k] = endpoints_db_text_(st, v, end, &at, NULL);
        }
    }
}

/* endpoints_db_refused_ reads why the host refused the parameters of
 * db_query or db_exec, or db_begin_with's options (ENDPOINTS_ERR_INVALID):
 * the message of the error it leaves pending, which names the parameter
 * or option and what was expected. It
 * returns 0 when there is none (an older host left none). */
static inline int32_t endpoints_db_refused_(endpoints_db_ *st) {
    int32_t n = endpoints_db_result(NULL, 0);
    if (n < 0 || endpoints_db_load_(st, n)) {
        return 0;
    }
    endpoints_db_error_(st);
    const char *why = st->error_message;
    st->error_code = st->error_message = st->error_constraint = st->error_kind = st->error_detail = NULL;
    st->result_len = 0;
    if (!why || !*why) {
        return 0;
    }
    st->error_code = "host";
    st->error_message = why;
    return 1;
}

/* endpoints_db_read_ reads the pending result of size n into st->result
 * and, for ENDPOINTS_ERR_DATABASE, its error. It returns rc, 0 for a
 * result, or a negative errno. */
static inline int32_t endpoints_db_read_(endpoints_db_ *st, int32_t rc) {
    st->error_code = st->error_message = st->error_constraint = st->error_kind = st->error_detail = NULL;
    st->result_len = 0;
    st->generation++;
    if (rc == ENDPOINTS_ERR_INVALID && endpoints_db_refused_(st)) {
        return rc;
    }
    if (rc < 0 && rc != ENDPOINTS_ERR_DATABASE) {
        st->error_code = "host";
        st->error_message = endpoints_db_host_why_(rc);
        return rc;
    }
    int32_t n = rc >= 0 ? rc : endpoints_db_result(NULL, 0);
    if (n < 0) {
        return n;
    }
    const char *failed = endpoints_db_load_(st, n);
    if (failed) {
        return endpoints_db_fail_(st, failed);
    }
    if (rc >= 0) {
        return 0;
    }
    endpoints_db_error_(st);
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
 * ENDPOINTS_ERR_INVALID for params that are not a JSON array of values
 * (endpoints_db_error_message says which parameter and what was expected).
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

/* endpoints_rows_write_object appends the current row to the response body
 * as one JSON object, a member per column named as the column is, its
 * value as endpoints_rows_json gives it ({"id":7,"name":"Ada","nickname":null}).
 * Name the members in SQL (SELECT id, full_name AS name ...). It returns 0,
 * ENDPOINTS_ERR_NOT_FOUND when there is no current row, or the first failed
 * write's errno.
 *
 *     endpoints_write_str("[");
 *     for (int first = 1; endpoints_rows_next(&rows); first = 0) {
 *         if (!first) endpoints_write_str(",");
 *         endpoints_rows_write_object(&rows);
 *     }
 *     endpoints_write_str("]"); */
static inline int32_t endpoints_rows_write_object(const endpoints_rows *rows) {
    if (rows->row_ < 0 || rows->generation_ != endpoints_db_state_()->generation) {
        return ENDPOINTS_ERR_NOT_FOUND;
    }
    int32_t rc = endpoints_write("{", 1);
    for (int32_t c = 0; c < rows->columns && rc == 0; c++) {
        int32_t len = 0;
        const char *json = endpoints_rows_json(rows, c, &len);
        if (c > 0) {
            rc = endpoints_write(",", 1);
        }
        if (rc == 0) {
            rc = endpoints_write_json_str(rows->names[c]);
        }
        if (rc == 0) {
            rc = endpoints_write(":", 1);
        }
        if (rc == 0) {
            rc = endpoints_write(json, len);
        }
    }
    return rc == 0 ? endpoints_write("}", 1) : rc;
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

/* endpoints_rows_number_ points *s and *n at column c's number: its JSON,
 * or the text of a string (PostgreSQL's numeric, which sum() and avg() of
 * integers return, arrives as its exact decimal's text, "12.50"). */
static inline void endpoints_rows_number_(const endpoints_cell_ *c,
                                          const char **s, int32_t *n) {
    if (c->text) {
        *s = c->text;
        *n = c->text_len;
    } else {
        *s = endpoints_db_state_()->result + c->start;
        *n = c->len;
    }
}

/* endpoints_json_number_ is 1 when s[0..n) is one JSON number whole
 * (-12.5e3), 0 otherwise. */
static inline int endpoints_json_number_(const char *s, int32_t n) {
    int32_t i = 0, digits;
    if (i < n && s[i] == '-') {
        i++;
    }
    for (digits = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        digits++;
    }
    if (digits == 0) {
        return 0;
    }
    if (i < n && s[i] == '.') {
        for (i++, digits = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            digits++;
        }
        if (digits == 0) {
            return 0;
        }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            i++;
        }
        for (digits = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            digits++;
        }
        if (digits == 0) {
            return 0;
        }
    }
    return i == n;
}

/* endpoints_rows_int reads column col of the current row as an integer into
 * *out: an integer, or text that holds one (PostgreSQL's numeric: sum() of
 * a bigint column is one). It returns 0, ENDPOINTS_ERR_NOT_FOUND for no
 * such column, or ENDPOINTS_ERR_INVALID when it is NULL, not an integer,
 * or one beyond int64_t. */
static inline int32_t endpoints_rows_int(const endpoints_rows *rows,
                                         int32_t col, int64_t *out) {
    const endpoints_cell_ *c = endpoints_rows_cell_(rows, col);
    if (!c) {
        return ENDPOINTS_ERR_NOT_FOUND;
    }
    const char *s;
    int32_t n;
    endpoints_rows_number_(c, &s, &n);
    return endpoints_parse_int(s, n, out);
}

/* endpoints_rows_double reads column col of the current row as a number
 * (an integer or a real, or text that holds one: PostgreSQL's numeric,
 * "12.50", avg() of integers among them) into *out: 0,
 * ENDPOINTS_ERR_NOT_FOUND, or ENDPOINTS_ERR_INVALID when it is NULL or not
 * a number. */
static inline int32_t endpoints_rows_double(const endpoints_rows *rows,
                                            int32_t col, double *out) {
    const endpoints_cell_ *c = endpoints_rows_cell_(rows, col);
    if (!c) {
        return ENDPOINTS_ERR_NOT_FOUND;
    }
    const char *s;
    int32_t n;
    endpoints_rows_number_(c, &s, &n);
    if (!endpoints_json_number_(s, n)) {
        return ENDPOINTS_ERR_INVALID;
    }
    char *end;
    double v = strtod(s, &end);
    if (end != s + n) {
        return ENDPOINTS_ERR_INVALID;
    }
    *out = v;
    return 0;
}

/* endpoints_rows_bool reads column col of the current row as a boolean
 * into *out (1 or 0): PostgreSQL's true/false, SQLite's 1/0 (SQLite has no
 * boolean type). It returns 0, ENDPOINTS_ERR_NOT_FOUND for no such column,
 * or ENDPOINTS_ERR_INVALID when it is NULL or another value. */
static inline int32_t endpoints_rows_bool(const endpoints_rows *rows,
                                          int32_t col, int32_t *out) {
    const endpoints_cell_ *c = endpoints_rows_cell_(rows, col);
    if (!c) {
        return ENDPOINTS_ERR_NOT_FOUND;
    }
    const char *s = endpoints_db_state_()->result + c->start;
    if ((c->len == 4 && __builtin_memcmp(s, "true", 4) == 0) || (c->len == 1 && s[0] == '1')) {
        *out = 1;
    } else if ((c->len == 5 && __builtin_memcmp(s, "false", 5) == 0) || (c->len == 1 && s[0] == '0')) {
        *out = 0;
    } else {
        return ENDPOINTS_ERR_INVALID;
    }
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
    if (!c->text) {
        return ENDPOINTS_ERR_INVALID;
    }
    return endpoints_base64_decode(c->text, c->text_len, buf, cap);
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
        st->error_code = st->error_message = st->error_constraint = st->error_kind = st->error_detail = NULL;
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

/* Transaction options for endpoints_begin_with and
 * endpoints_transaction_with (ABI §4.5): a JSON object, these or one of
 * your own ("{\"isolation\":\"repeatable_read\",\"readOnly\":true}").
 * A read-only transaction refuses writes (code "denied"); on SQLite it
 * takes no write lock, so it runs beside a writer. SQLite's transactions
 * are always serializable, which each level allows. */
#define ENDPOINTS_TX_READ_ONLY "{\"readOnly\":true}"
#define ENDPOINTS_TX_SERIALIZABLE "{\"isolation\":\"serializable\"}"
#define ENDPOINTS_TX_REPEATABLE_READ "{\"isolation\":\"repeatable_read\"}"
#define ENDPOINTS_TX_READ_COMMITTED "{\"isolation\":\"read_committed\"}"

/* endpoints_begin_with opens a transaction on database db with opts (a
 * JSON object, ENDPOINTS_TX_READ_ONLY...; NULL or "" for none, as
 * endpoints_begin). Options the host does not know return
 * ENDPOINTS_ERR_INVALID, endpoints_db_error_code is then "host" and
 * endpoints_db_error_message says which. */
static inline int32_t endpoints_begin_with(const char *db, const char *opts) {
    const char *o = opts ? opts : "";
    /* ENDPOINTS_ERR_INVALID reads as refused parameters do: code "host",
     * the reason the host left pending as the message. */
    return endpoints_db_call_(endpoints_db_begin_with(endpoints_db_name_(db), o, endpoints_strlen_(o)));
}

static inline int32_t endpoints_commit(const char *db) {
    return endpoints_db_call_(endpoints_db_commit(endpoints_db_name_(db)));
}

static inline int32_t endpoints_rollback(const char *db) {
    return endpoints_db_call_(endpoints_db_rollback(endpoints_db_name_(db)));
}

static inline int32_t endpoints_transaction_with(const char *db, const char *opts,
                                                 int32_t (*fn)(void *arg),
                                                 void *arg);

/* endpoints_transaction runs fn(arg) in a transaction on database db: the
 * statements fn runs on db run in it. It commits when fn returns 0 and
 * returns the commit's result; it rolls back when fn returns anything else,
 * and returns that. A trap or a return from endpoints_handle without a
 * commit rolls back too (the host does it).
 *
 *     struct transfer { int64_t amount, from, to; };
 *
 *     static int32_t move(int64_t amount, int64_t id) {
 *         char pbuf[48];
 *         endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
 *         endpoints_params_int(&p, amount);
 *         endpoints_params_int(&p, id);
 *         return endpoints_exec("main", "UPDATE accounts SET balance = balance + $1 WHERE id = $2",
 *                               endpoints_params_json(&p), NULL);
 *     }
 *
 *     static int32_t transfer(void *arg) {
 *         const struct transfer *t = arg;
 *         int32_t rc = move(-t->amount, t->from);
 *         return rc != 0 ? rc : move(t->amount, t->to);
 *     }
 *     ...
 *     struct transfer t = {10, 1, 2};
 *     int32_t rc = endpoints_transaction("main", transfer, &t);
 *
 * A statement takes exactly the parameters it uses: "[10,1,2]" for one
 * that uses $1 and $2 is refused (code "syntax"). */
static inline int32_t endpoints_transaction(const char *db,
                                            int32_t (*fn)(void *arg),
                                            void *arg) {
    return endpoints_transaction_with(db, NULL, fn, arg);
}

/* endpoints_transaction_with runs fn(arg) in a transaction begun with opts
 * (endpoints_begin_with), as endpoints_transaction does:
 *
 *     int32_t rc = endpoints_transaction_with("main", ENDPOINTS_TX_READ_ONLY, report, &totals);
 */
static inline int32_t endpoints_transaction_with(const char *db, const char *opts,
                                                 int32_t (*fn)(void *arg),
                                                 void *arg) {
    int32_t rc = opts && *opts ? endpoints_begin_with(db, opts) : endpoints_begin(db);
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

#endif /* ENDPOINTS_DB_H */
