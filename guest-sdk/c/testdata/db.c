/*
 * db.c - a plain route that exercises the database helpers of endpoints.h
 * for internal/guestbuild/c_test.go (TestCDatabaseHelpers), which builds
 * it with guestbuild.C and runs it against a test host whose database
 * answers what each case needs.
 *
 * The query value "op" (a JSON string) selects what to run; the answer body
 * reports what the helpers returned and read, so the Go test checks it.
 */
#include "endpoints.h"

#include <stdio.h>
#include <string.h>

ENDPOINTS_ROUTE();

static char out[4096];
static int32_t used;

#define put(...) (used += snprintf(out + used, sizeof out - (size_t)used, __VA_ARGS__))

static int is_op(const char *op, const char *want) {
    return strcmp(op, want) == 0;
}

/* params builds one of each kind of parameter and runs it; the test host
 * records the array it received. */
static int32_t params(void) {
    static char pbuf[512];
    static const uint8_t blob1[] = {0xff}, blob2[] = {0, 1}, blob3[] = {0xfb, 0xef, 0xbe};
    endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
    endpoints_params_int(&p, INT64_MIN);
    endpoints_params_int(&p, INT64_MAX);
    endpoints_params_int(&p, 0);
    endpoints_params_double(&p, 0.1);
    endpoints_params_double(&p, 1.0 / 0.0);
    endpoints_params_double(&p, 3.0);
    endpoints_params_double(&p, -0.0);
    endpoints_params_double(&p, 1e21);
    endpoints_params_text(&p, "q\"b\\s\n\x01 é");
    endpoints_params_text(&p, NULL);
    endpoints_params_null(&p);
    endpoints_params_blob(&p, blob1, 0);
    endpoints_params_blob(&p, blob1, sizeof blob1);
    endpoints_params_blob(&p, blob2, sizeof blob2);
    endpoints_params_blob(&p, blob3, sizeof blob3);
    /* An object, an array and an integer past int64_t go as their JSON
     * text, as Rust's From<&Json> binds them: the host takes none of
     * them as a value. */
    static const char *values[] = {"\"Zo\u00eb \\\"q\\\"\"", " 9007199254740993 ", "null",
                                   " {\"n\":[1,\"\\\"\"]} ", "[]", "-9223372036854775809", "9223372036854775808", "1.5e3"};
    for (int k = 0; k < 8; k++) {
        endpoints_params_value(&p, values[k], (int32_t)strlen(values[k]));
    }
    return endpoints_exec("main", "params", endpoints_params_json(&p), NULL);
}

/* overflow builds parameters that do not fit their buffer. */
static int32_t overflow(void) {
    char pbuf[8];
    endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
    endpoints_params_int(&p, 1);
    endpoints_params_text(&p, "too long");
    return endpoints_exec("main", "overflow", endpoints_params_json(&p), NULL);
}

/* badvalue passes endpoints_params_value text that is not one JSON value. */
static int32_t badvalue(void) {
    char pbuf[64];
    endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
    endpoints_params_int(&p, 1);
    endpoints_params_value(&p, "1],[2", 5);
    return endpoints_exec("main", "params", endpoints_params_json(&p), NULL);
}

/* cell reports column c of the current row as each reader sees it. */
static void cell(const endpoints_rows *rows, int32_t c) {
    int64_t i;
    double d;
    int32_t len;
    uint8_t blob[8];
    if (endpoints_rows_int(rows, c, &i) == 0) {
        put(" i:%lld", (long long)i);
    } else if (endpoints_rows_double(rows, c, &d) == 0) {
        put(" d:%g", d);
    } else if (endpoints_rows_is_null(rows, c) == 1) {
        put(" null");
    } else {
        const char *t = endpoints_rows_text(rows, c, &len);
        if (t) {
            put(" t:%d:%s", (int)len, t);
            int32_t n = endpoints_rows_blob(rows, c, blob, sizeof blob);
            if (n >= 0 && n <= (int32_t)sizeof blob) {
                put(" b:");
                for (int32_t k = 0; k < n; k++) {
                    put("%02x", blob[k]);
                }
            } else if (n > (int32_t)sizeof blob) {
                put(" b:%d-unwritten", (int)n);
            }
        } else {
            const char *j = endpoints_rows_json(rows, c, &len);
            put(" json:%.*s", (int)len, j);
        }
    }
}

static int32_t rows(void) {
    endpoints_rows rows;
    int32_t rc = endpoints_query("main", "rows", NULL, &rows);
    if (rc != 0) {
        return rc;
    }
    put("%d", (int)rows.columns);
    for (int32_t c = 0; c < rows.columns; c++) {
        put(" %s", rows.names[c]);
    }
    put(" | name at %d, nope %d |", (int)endpoints_rows_column(&rows, "name"), (int)endpoints_rows_column(&rows, "nope"));
    while (endpoints_rows_next(&rows)) {
        put("\n");
        for (int32_t c = 0; c < rows.columns; c++) {
            cell(&rows, c);
        }
        for (int32_t c = 0; c < rows.columns; c += 4) {
            int32_t b = -1;
            int32_t rc = endpoints_rows_bool(&rows, c, &b);
            put(" bool%d:%d:%d", (int)c, (int)rc, (int)b);
        }
        int64_t i;
        put(" past:%d", (int)endpoints_rows_int(&rows, rows.columns, &i));
    }
    put("\nend %d", (int)endpoints_rows_next(&rows));
    return 0;
}

/* stale reads rows of a query after a second query replaced its result. */
static int32_t stale(void) {
    endpoints_rows first, second;
    int32_t rc = endpoints_query("main", "rows", NULL, &first);
    if (rc == 0) {
        rc = endpoints_query("main", "rows", NULL, &second);
    }
    if (rc != 0) {
        return rc;
    }
    put("first %d second %d", (int)endpoints_rows_next(&first), (int)endpoints_rows_next(&second));
    return 0;
}

static int32_t exec(void) {
    endpoints_exec_result res = {-1, -1, -1};
    int32_t rc = endpoints_exec("main", "exec", NULL, &res);
    if (rc == 0) {
        put("%lld %lld %d", (long long)res.rows_affected, (long long)res.last_insert_id, (int)res.has_last_insert_id);
    }
    return rc;
}

/* numbers reads each column of the first row with endpoints_rows_int and
 * endpoints_rows_double: rc and value of each. */
static int32_t numbers(void) {
    endpoints_rows rows;
    int32_t rc = endpoints_query("main", "rows", NULL, &rows);
    if (rc != 0) {
        return rc;
    }
    if (!endpoints_rows_next(&rows)) {
        return ENDPOINTS_ERR_NOT_FOUND;
    }
    for (int32_t c = 0; c < rows.columns; c++) {
        int64_t i = 42;
        double d = 42;
        int32_t ri = endpoints_rows_int(&rows, c, &i);
        int32_t rd = endpoints_rows_double(&rows, c, &d);
        put("%s%s i:%d:%lld d:%d:%.17g", c ? "\n" : "", rows.names[c], (int)ri, (long long)i, (int)rd, d);
    }
    return 0;
}

/* objects writes the rows as JSON objects straight to the answer, then
 * what endpoints_rows_write_object returns past the last row and for a
 * stale cursor. */
static int32_t objects(void) {
    endpoints_rows rows, other;
    int32_t rc = endpoints_query("main", "rows", NULL, &rows);
    if (rc != 0) {
        return rc;
    }
    endpoints_write_str("[");
    for (int first = 1; endpoints_rows_next(&rows); first = 0) {
        if (!first) {
            endpoints_write_str(",");
        }
        if ((rc = endpoints_rows_write_object(&rows)) != 0) {
            return rc;
        }
    }
    endpoints_write_str("]");
    put("\npast %d", (int)endpoints_rows_write_object(&rows));
    rc = endpoints_query("main", "rows", NULL, &rows);
    if (rc == 0 && endpoints_rows_next(&rows) && (rc = endpoints_query("main", "rows", NULL, &other)) == 0) {
        put(" stale %d", (int)endpoints_rows_write_object(&rows));
    }
    return rc;
}

/* beginwith begins a transaction with options the test host refuses. */
static int32_t beginwith(void) {
    return endpoints_begin_with("main", "{\"isolation\":\"snapshot\"}");
}

/* base64 decodes texts with endpoints_base64_decode into a buffer of 4
 * bytes: each one's size (or errno) and the bytes written. */
static int32_t base64(void) {
    static const char *texts[] = {"", "Zg==", "Zm8=", "Zm9v", "AAH//g==", "Zm9vYg==", "Zg=", "Z===", "Zg=a", "Zm9v!A==", "=Zg="};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        uint8_t buf[4] = {0xee, 0xee, 0xee, 0xee};
        int32_t n = endpoints_base64_decode(texts[k], (int32_t)strlen(texts[k]), buf, sizeof buf);
        put("%s%s:%d:", k ? " " : "", texts[k], (int)n);
        for (int i = 0; i < 4; i++) {
            put("%02x", buf[i]);
        }
    }
    return 0;
}

int32_t endpoints_handle(void) {
    char op[32];
    int32_t n = endpoints_value(ENDPOINTS_PART_QUERY, "op", op, sizeof op);
    if (n < 0 || n >= (int32_t)sizeof op) {
        return 1;
    }
    used = 0;
    int32_t rc = -100;
    if (is_op(op, "\"params\"")) {
        rc = params();
    } else if (is_op(op, "\"badvalue\"")) {
        rc = badvalue();
    } else if (is_op(op, "\"overflow\"")) {
        rc = overflow();
    } else if (is_op(op, "\"rows\"")) {
        rc = rows();
    } else if (is_op(op, "\"stale\"")) {
        rc = stale();
    } else if (is_op(op, "\"exec\"")) {
        rc = exec();
    } else if (is_op(op, "\"objects\"")) {
        rc = objects();
    } else if (is_op(op, "\"numbers\"")) {
        rc = numbers();
    } else if (is_op(op, "\"beginwith\"")) {
        rc = beginwith();
    } else if (is_op(op, "\"base64\"")) {
        rc = base64();
    }
    put("%src %d [%s|%s|%s]", used ? "\n" : "", (int)rc, endpoints_db_error_code(), endpoints_db_error_message(), endpoints_db_error_constraint());
    if (*endpoints_db_error_kind()) {
        put(" kind:%s", endpoints_db_error_kind());
    }
    return endpoints_write(out, used);
}
