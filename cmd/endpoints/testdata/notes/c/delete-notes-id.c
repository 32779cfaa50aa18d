/* DELETE /api/notes/:id: removes a note (204), or 404. It needs a bearer
 * token. */
#include <stdio.h>

#include "endpoints.h"

/* The id's maximum is INT64_MAX, what endpoints_value_int reads: the host
 * answers 400 to a larger id before the handler runs. */
ENDPOINTS_CONTRACT(
    "{\"summary\":\"Delete a note\",\"tags\":[\"notes\"],"
    "\"request\":{\"params\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\","
    "\"minimum\":1,\"maximum\":9223372036854775807,\"description\":\"The note's id.\"}},\"required\":[\"id\"]}},"
    "\"responses\":{\"204\":{\"description\":\"Deleted\"},"
    "\"404\":{\"description\":\"No such note\",\"schema\":{\"type\":\"object\","
    "\"properties\":{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}}},"
    "\"security\":[{\"bearer\":[]}]}");

int32_t endpoints_handle(void) {
    int64_t id;
    char pbuf[32];
    if (endpoints_value_int(ENDPOINTS_PART_PARAMS, "id", &id) != 0) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, "cannot read the id");
        return 1;
    }
    endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
    endpoints_params_int(&p, id);
    endpoints_exec_result res;
    if (endpoints_exec("main", "DELETE FROM notes WHERE id = $1", endpoints_params_json(&p), &res) != 0) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, endpoints_db_error_message());
        return 1;
    }
    if (res.rows_affected == 0) {
        char msg[64];
        snprintf(msg, sizeof msg, "{\"message\":\"note %lld not found\"}", (long long)id);
        endpoints_set_status(404);
        endpoints_set_header("Content-Type", "application/json");
        return endpoints_write_str(msg);
    }
    return endpoints_set_status(204);
}
