/* GET /api/notes/:id: one note, or 404. */
#include <stdio.h>

#include "endpoints.h"

/* The id's maximum is INT64_MAX, what endpoints_value_int reads: the host
 * answers 400 to a larger id before the handler runs. */
ENDPOINTS_CONTRACT(
    "{\"summary\":\"Get a note\",\"tags\":[\"notes\"],"
    "\"request\":{\"params\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\","
    "\"minimum\":1,\"maximum\":9223372036854775807,\"description\":\"The note's id.\"}},\"required\":[\"id\"]}},"
    "\"responses\":{\"200\":{\"description\":\"The note\",\"schema\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"integer\"},\"text\":{\"type\":\"string\"}},"
    "\"required\":[\"id\",\"text\"]}},"
    "\"404\":{\"description\":\"No such note\",\"schema\":{\"type\":\"object\","
    "\"properties\":{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}}}}");

int32_t endpoints_handle(void) {
    int64_t id;
    char pbuf[32];
    if (endpoints_value_int(ENDPOINTS_PART_PARAMS, "id", &id) != 0) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, "cannot read the id");
        return 1;
    }
    endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
    endpoints_params_int(&p, id);
    endpoints_rows rows;
    if (endpoints_query("main", "SELECT id, text FROM notes WHERE id = $1", endpoints_params_json(&p), &rows) != 0) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, endpoints_db_error_message());
        return 1;
    }
    endpoints_set_header("Content-Type", "application/json");
    if (!endpoints_rows_next(&rows)) {
        char msg[64];
        snprintf(msg, sizeof msg, "{\"message\":\"note %lld not found\"}", (long long)id);
        endpoints_set_status(404);
        return endpoints_write_str(msg);
    }
    int32_t len;
    const char *json = endpoints_rows_json(&rows, 0, &len);
    endpoints_write_str("{\"id\":");
    endpoints_write(json, len);
    endpoints_write_str(",\"text\":");
    json = endpoints_rows_json(&rows, 1, &len);
    endpoints_write(json, len);
    return endpoints_write_str("}");
}
