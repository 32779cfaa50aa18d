/* POST /api/notes: stores a note. It needs a bearer token and an
 * Idempotency-Key. */
#include <stdio.h>

#include "endpoints.h"

ENDPOINTS_CONTRACT(
    "{\"summary\":\"Create a note\",\"tags\":[\"notes\"],"
    "\"request\":{\"body\":{\"schema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
    "\"minLength\":1,\"maxLength\":200,\"description\":\"The note.\"}},\"required\":[\"text\"],\"additionalProperties\":false}}},"
    "\"responses\":{\"201\":{\"description\":\"The new note\",\"schema\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"integer\"},\"text\":{\"type\":\"string\"}},"
    "\"required\":[\"id\",\"text\"]},"
    "\"headers\":{\"Location\":{\"type\":\"string\",\"description\":\"The new note's URL\"}}}},"
    "\"idempotency\":{\"required\":true},"
    "\"security\":[{\"bearer\":[]}]}");

/* TEXT_MAX bounds the text's JSON encoding: 200 characters, each at most
 * 12 bytes escaped (a surrogate pair), and the quotes. */
#define TEXT_MAX 2402

int32_t endpoints_handle(void) {
    /* The parameters are a JSON array: the text arrives as JSON already. */
    char params[TEXT_MAX + 3];
    int32_t n = endpoints_value(ENDPOINTS_PART_BODY, "text", params + 1, TEXT_MAX + 1);
    if (n < 2 || n > TEXT_MAX) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, "cannot read the text");
        return 1;
    }
    params[0] = '[';
    params[n + 1] = ']';
    params[n + 2] = '\0';
    endpoints_rows rows;
    int64_t id;
    if (endpoints_query("main", "INSERT INTO notes (text) VALUES ($1) RETURNING id", params, &rows) != 0 ||
        !endpoints_rows_next(&rows) || endpoints_rows_int(&rows, 0, &id) != 0) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, endpoints_db_error_message());
        return 1;
    }
    char location[64];
    snprintf(location, sizeof location, "/api/notes/%lld", (long long)id);
    char head[48];
    snprintf(head, sizeof head, "{\"id\":%lld,\"text\":", (long long)id);
    endpoints_set_status(201);
    endpoints_set_header("Content-Type", "application/json");
    endpoints_set_header("Location", location);
    endpoints_write_str(head);
    endpoints_write(params + 1, n);
    return endpoints_write_str("}");
}
