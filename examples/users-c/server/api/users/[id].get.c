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
 * endpoints_handle runs, so the handler only looks the id up: no allocation,
 * no JSON parsing, each answer a precomputed string.
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
    "\"User\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"
    "\"email\":{\"type\":\"string\",\"format\":\"email\"}},"
    "\"required\":[\"id\",\"name\",\"email\"],\"additionalProperties\":false},"
    "\"NotFound\":{\"type\":\"object\","
    "\"properties\":{\"message\":{\"type\":\"string\"}},"
    "\"required\":[\"message\"],\"additionalProperties\":false}"
    "}"
    "}");

/* user is one seed user with its 200 body, encoded once at compile time. */
struct user {
    int64_t id;
    const char *json;
    int32_t len;
};

#define USER_JSON(id, name, email) \
    "{\"id\":" #id ",\"name\":\"" name "\",\"email\":\"" email "\"}"
#define USER(id, name, email) \
    {id, USER_JSON(id, name, email), (int32_t)sizeof USER_JSON(id, name, email) - 1}

/* users are the seed users, the same as the Go twin's. */
static const struct user users[] = {
    USER(1, "Ada Lovelace", "ada@example.com"),
    USER(2, "Grace Hopper", "grace@example.com"),
    USER(3, "Alan Turing", "alan@example.com"),
};

/* The 404 body is built in place: the host writes the id's digits right
 * after the prefix, and the suffix follows them. One instance serves one
 * request at a time, so a static buffer is safe. */
#define NOT_FOUND_PREFIX "{\"message\":\"user "
#define NOT_FOUND_SUFFIX " not found\"}"
#define ID_MAX 64 /* bytes of id text; a validated integer is far shorter */

static char not_found[sizeof NOT_FOUND_PREFIX - 1 + ID_MAX + sizeof NOT_FOUND_SUFFIX] =
    NOT_FOUND_PREFIX;

int32_t endpoints_handle(void) {
    char *id_text = not_found + sizeof NOT_FOUND_PREFIX - 1;
    /* The id arrives validated and coerced: its JSON encoding, e.g. "7". */
    int32_t n = endpoints_value(ENDPOINTS_PART_PARAMS, "id", id_text, ID_MAX + 1);
    if (n < 0 || n > ID_MAX) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, "users: cannot read the id parameter");
        return 1;
    }
    int64_t id;
    if (endpoints_parse_int(id_text, n, &id) == 0) {
        for (size_t i = 0; i < sizeof users / sizeof users[0]; i++) {
            if (users[i].id == id) {
                /* 200 is the default status. */
                return endpoints_write(users[i].json, users[i].len);
            }
        }
    }
    memcpy(id_text + n, NOT_FOUND_SUFFIX, sizeof NOT_FOUND_SUFFIX - 1);
    endpoints_set_status(404);
    return endpoints_write(not_found,
                           (int32_t)(sizeof NOT_FOUND_PREFIX - 1) + n +
                               (int32_t)(sizeof NOT_FOUND_SUFFIX - 1));
}
