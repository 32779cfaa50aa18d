/* GET /api/notes?limit=: the first notes, oldest first. */
#include "endpoints.h"

ENDPOINTS_CONTRACT(
    "{\"summary\":\"List notes\",\"tags\":[\"notes\"],"
    "\"request\":{\"query\":{\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\","
    "\"minimum\":1,\"maximum\":100,\"default\":10,\"description\":\"How many notes to answer.\"}}}},"
    "\"responses\":{\"200\":{\"description\":\"The notes\",\"schema\":{\"type\":\"object\","
    "\"properties\":{\"notes\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"integer\"},\"text\":{\"type\":\"string\"}},"
    "\"required\":[\"id\",\"text\"]}}},\"required\":[\"notes\"]}}}}");

int32_t endpoints_handle(void) {
    int64_t limit;
    char pbuf[32];
    if (endpoints_value_int(ENDPOINTS_PART_QUERY, "limit", &limit) != 0) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, "cannot read the limit");
        return 1;
    }
    endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
    endpoints_params_int(&p, limit);
    endpoints_rows rows;
    if (endpoints_query("main", "SELECT id, text FROM notes ORDER BY id LIMIT $1",
                        endpoints_params_json(&p), &rows) != 0) {
        endpoints_log_str(ENDPOINTS_LOG_ERROR, endpoints_db_error_message());
        return 1;
    }
    endpoints_set_header("Content-Type", "application/json");
    endpoints_write_str("{\"notes\":[");
    for (int first = 1; endpoints_rows_next(&rows); first = 0) {
        int32_t len;
        const char *json;
        endpoints_write_str(first ? "{\"id\":" : ",{\"id\":");
        json = endpoints_rows_json(&rows, 0, &len);
        endpoints_write(json, len);
        endpoints_write_str(",\"text\":");
        json = endpoints_rows_json(&rows, 1, &len);
        endpoints_write(json, len);
        endpoints_write_str("}");
    }
    return endpoints_write_str("]}");
}
