/*
 * GET /api/users/:id - the C twin of the Go example's endpoint (examples/users).
 *
 * Build (from the repository root):
 *
 *     clang --target=wasm32-wasi -mexec-model=reactor -O2 \
 *           -Werror=implicit-function-declaration -I guest-sdk/c \
 *           -Wl,--strip-debug -o 'examples/users-c/server/api/users/[id].get.wasm' \
 *           'examples/users-c/server/api/users/[id].get.c'
 *
 * The host validates the path parameter against the contract before
 * endpoints_handle runs, so the handler only looks the id up in the app's
 * database (server/migrations/001-users.sql creates the users table and
 * the seed users) and copies the columns' JSON into its answer: no JSON
 * encoding of its own, and one write of the whole answer.
 */
#include "endpoints.h"

#include <string.h>

ENDPOINTS_CONTRACT(
    "{"
    "\"summary\":\"Get a user\","
    "\"tags\":[\"users\"],"
    "\"request\":{"
    "\"params\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9223372036854775807,"
    "\"description\":\"The user's id.\"}},"
    "\"required\":[\"id\"]}"
    "},"
    "\"responses\":{"
    "\"200\":{\"description\":\"The user\",\"schema\":{\"$ref\":\"#/$defs/User\"}},"
    "\"404\":{\"description\":\"No such user\",\"schema\":{\"$ref\":\"#/$defs/NotFound\"}}"
    "},"
    "\"$defs\":{"
    "\"User\":{\"type\":\"object\",\"description\":\"A user of the service.\","
    "\"properties\":{"
    "\"id\":{\"type\":\"integer\",\"description\":\"The user's id.\",\"examples\":[1]},"
    "\"name\":{\"type\":\"string\",\"description\":\"Full name.\",\"examples\":[\"Ada Lovelace\"]},"
    "\"email\":{\"type\":\"string\",\"format\":\"email\",\"description\":\"Contact address.\","
    "\"examples\":[\"ada@example.com\"]}},"
    "\"required\":[\"id\",\"name\",\"email\"],\"additionalProperties\":false},"
    "\"NotFound\":{\"type\":\"object\",\"description\":\"No user has the id asked for.\","
    "\"properties\":{\"message\":{\"type\":\"string\",\"description\":\"Which id was asked for.\","
    "\"examples\":[\"user 9 not found\"]}},"
    "\"required\":[\"message\"],\"additionalProperties\":false}"
    "}"
    "}");

/* The 404 body is built in place: the host writes the id's digits right
 * after the prefix, and the suffix follows them. One instance serves one
 * request at a time, so a static buffer is safe. */
#define NOT_FOUND_PREFIX "{\"message\":\"user "
#define NOT_FOUND_SUFFIX " not found\"}"
#define ID_MAX 64 /* bytes of id text; a validated integer is far shorter */

static char not_found[sizeof NOT_FOUND_PREFIX - 1 + ID_MAX + sizeof NOT_FOUND_SUFFIX] =
    NOT_FOUND_PREFIX;

/* failed answers a database call that failed as the Go twin does: 503 when
 * the database cannot be reached or stays busy (locked past its busy
 * timeout), 500 otherwise, and logs why. */
static int32_t failed(int32_t rc) {
    static char line[256] = "users: the users store failed: ";
    const char *why = rc == ENDPOINTS_ERR_DATABASE ? endpoints_db_error_message() : "the host refused the query";
    size_t at = strlen("users: the users store failed: "), n = strlen(why);
    if (n > sizeof line - 1 - at) {
        n = sizeof line - 1 - at;
    }
    memcpy(line + at, why, n);
    line[at + n] = '\0';
    endpoints_log_str(ENDPOINTS_LOG_ERROR, line);
    if (rc == ENDPOINTS_ERR_DATABASE && (strcmp(endpoints_db_error_code(), "unavailable") == 0 ||
                                         strcmp(endpoints_db_error_code(), "busy") == 0)) {
        endpoints_set_status(503);
        return endpoints_write_str("{\"statusCode\":503,\"statusMessage\":\"Service Unavailable\"}");
    }
    endpoints_set_status(500);
    return endpoints_write_str("{\"statusCode\":500,\"statusMessage\":\"Internal Server Error\"}");
}

/* The answer is gathered in out and written in as few host calls as it
 * fits in: one for any user of ordinary length, each host call costing more
 * than copying a few hundred bytes. One instance serves one request at a
 * time, so a static buffer is safe. */
static char out[1024];
static size_t out_len;

/* flush writes what out holds. */
static int32_t flush(void) {
    int32_t rc = out_len > 0 ? endpoints_write(out, (int32_t)out_len) : 0;
    out_len = 0;
    return rc;
}

/* put appends n bytes to the answer: into out, or, when they do not fit,
 * after writing out, straight to the host. */
static void put(const char *p, size_t n) {
    if (out_len + n > sizeof out) {
        flush();
        if (n > sizeof out) {
            endpoints_write(p, (int32_t)n);
            return;
        }
    }
    memcpy(out + out_len, p, n);
    out_len += n;
}

/* put_column appends member (e.g. ,"name":) and the JSON of the row's
 * column col. */
static void put_column(const endpoints_rows *rows, int32_t col, const char *member) {
    int32_t len;
    const char *json = endpoints_rows_json(rows, col, &len);
    put(member, strlen(member));
    put(json, (size_t)len);
}

int32_t endpoints_handle(void) {
    char *id_text = not_found + sizeof NOT_FOUND_PREFIX - 1;
    /* The id arrives validated and coerced: its JSON encoding, e.g. "7",
     * which is also the JSON array of the query's one parameter once
     * bracketed. */
    char params[ID_MAX + 3] = "[";
    int32_t n = endpoints_value(ENDPOINTS_PART_PARAMS, "id", id_text, ID_MAX + 1);
    if (n < 0 || n > ID_MAX) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, "users: cannot read the id parameter");
        return 1;
    }
    memcpy(params + 1, id_text, (size_t)n);
    memcpy(params + 1 + n, "]", 2);
    endpoints_rows rows;
    int32_t rc = endpoints_query("main", "SELECT id, name, email FROM users WHERE id = $1", params, &rows);
    if (rc != 0) {
        return failed(rc);
    }
    if (endpoints_rows_next(&rows)) {
        /* 200 is the default status; the columns are JSON already. */
        out_len = 0;
        put_column(&rows, 0, "{\"id\":");
        put_column(&rows, 1, ",\"name\":");
        put_column(&rows, 2, ",\"email\":");
        put("}", 1);
        return flush();
    }
    memcpy(id_text + n, NOT_FOUND_SUFFIX, sizeof NOT_FOUND_SUFFIX - 1);
    endpoints_set_status(404);
    return endpoints_write(not_found,
                           (int32_t)(sizeof NOT_FOUND_PREFIX - 1) + n +
                               (int32_t)(sizeof NOT_FOUND_SUFFIX - 1));
}
