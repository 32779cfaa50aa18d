/* The C route of TestSDKDatabaseOutage: a plain route that runs the
 * statement of its x-sql header on the database main and, when it fails,
 * returns 1 (x-how: err) or aborts (x-how: abort). */
#include <stdlib.h>
#include <string.h>

#include "endpoints.h"

ENDPOINTS_ROUTE();

int32_t endpoints_handle(void) {
    char sql[256], how[16] = "";
    int32_t n = endpoints_header("x-sql", sql, sizeof sql);
    if (n < 0 || n >= (int32_t)sizeof sql) {
        return 1;
    }
    endpoints_header("x-how", how, sizeof how);
    endpoints_rows rows;
    if (endpoints_query("main", sql, NULL, &rows) != 0) {
        if (strcmp(how, "abort") == 0) {
            abort();
        }
        return 1;
    }
    endpoints_write_str("up");
    return 0;
}
