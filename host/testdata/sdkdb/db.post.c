/* The C half of TestSDKDatabases: a plain route that runs the database
 * operation its x-op header names with endpoints.h's database helpers. */
#include <stdio.h>
#include <string.h>

#include "endpoints.h"

ENDPOINTS_ROUTE();

static char out[8192];
static int32_t used;

/* put appends formatted text to the answer. */
#define put(...) (used += snprintf(out + used, sizeof out - (size_t)used, __VA_ARGS__))

/* put_text appends s as a JSON string, or null. */
static void put_text(const char *s) {
    if (!s) {
        put("null");
        return;
    }
    char pbuf[512];
    endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
    endpoints_params_text(&p, s);
    const char *json = endpoints_params_json(&p);
    put("%.*s", (int)strlen(json) - 2, json + 1); /* the array's one element */
}

static void put_failure(void) {
    put("{\"code\":\"%s\",\"constraint\":", endpoints_db_error_code());
    const char *c = endpoints_db_error_constraint();
    if (*c) {
        put_text(c);
    } else {
        put("null");
    }
    const char *k = endpoints_db_error_kind();
    if (*k) {
        put(",\"kind\":\"%s\"", k);
    } else {
        put(",\"kind\":null");
    }
    put(",\"detail\":");
    const char *d = endpoints_db_error_detail();
    if (*d) {
        put_text(d);
    } else {
        put("null");
    }
    put("}");
}

/* refused answers a constraint error by its kind: 409 for a unique
 * violation, 422 for another (a foreign key naming a missing row). */
static void refused(void) {
    endpoints_set_status(strcmp(endpoints_db_error_kind(), "unique") == 0 ? 409 : 422);
    put_failure();
}

static int32_t list(void) {
    endpoints_rows rows;
    int32_t rc = endpoints_query("main", "SELECT id, name, score, avatar FROM users WHERE id >= $1 ORDER BY id", "[1]", &rows);
    if (rc != 0) {
        return rc;
    }
    int32_t name = endpoints_rows_column(&rows, "name"), avatar = endpoints_rows_column(&rows, "avatar");
    put("[");
    for (int first = 1; endpoints_rows_next(&rows); first = 0) {
        int64_t id;
        double score;
        if (endpoints_rows_int(&rows, 0, &id) != 0) {
            return ENDPOINTS_ERR_INVALID;
        }
        put("%s{\"id\":%lld,\"name\":", first ? "" : ",", (long long)id);
        put_text(endpoints_rows_text(&rows, name, NULL));
        if (endpoints_rows_double(&rows, 2, &score) == 0) {
            put(",\"score\":%g", score);
        } else if (endpoints_rows_is_null(&rows, 2) == 1) {
            put(",\"score\":null");
        } else {
            return ENDPOINTS_ERR_INVALID;
        }
        uint8_t blob[16];
        int32_t n = endpoints_rows_blob(&rows, avatar, blob, sizeof blob);
        if (n >= 0 && n <= (int32_t)sizeof blob) {
            put(",\"avatar\":\"");
            for (int32_t i = 0; i < n; i++) {
                put("%02x", blob[i]);
            }
            put("\"}");
        } else if (endpoints_rows_is_null(&rows, avatar) == 1) {
            put(",\"avatar\":null}");
        } else {
            return ENDPOINTS_ERR_INVALID;
        }
    }
    put("]");
    return 0;
}

/* add inserts a user; the avatar arrives as base64 text (x-avatar), as a
 * JSON body carries bytes, and is bound as a blob. */
static int32_t add(const char *name) {
    char pbuf[512], b64[64];
    uint8_t avatar[32];
    int32_t n = endpoints_header("x-avatar", b64, sizeof b64);
    int32_t size = n < 0 || n >= (int32_t)sizeof b64 ? ENDPOINTS_ERR_INVALID : endpoints_base64_decode(b64, n, avatar, sizeof avatar);
    if (size < 0 || size > (int32_t)sizeof avatar) {
        endpoints_set_status(400);
        put("{\"message\":\"avatar is not base64\"}");
        return 0;
    }
    endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
    endpoints_params_text(&p, name);
    endpoints_params_double(&p, 2.25);
    endpoints_params_blob(&p, avatar, size);
    endpoints_exec_result res;
    int32_t rc = endpoints_exec("main", "INSERT INTO users (name, score, avatar) VALUES ($1, $2, $3)", endpoints_params_json(&p), &res);
    if (rc == ENDPOINTS_ERR_DATABASE && strcmp(endpoints_db_error_code(), "constraint") == 0) {
        refused();
        return 0;
    }
    if (rc != 0) {
        return rc;
    }
    put("{\"rowsAffected\":%lld,\"lastInsertId\":%lld}", (long long)res.rows_affected, (long long)res.last_insert_id);
    return 0;
}

struct tx {
    const char *name;
    int fail;
    double score;
};

static int32_t in_tx(void *arg) {
    struct tx *tx = arg;
    char pbuf[512];
    endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
    endpoints_params_text(&p, tx->name);
    int32_t rc = endpoints_exec("main", "INSERT INTO users (name) VALUES ($1)", endpoints_params_json(&p), NULL);
    if (rc == 0) {
        rc = endpoints_exec("main", "UPDATE users SET score = (SELECT count(*) FROM users) WHERE name = $1", pbuf, NULL);
    }
    if (rc != 0) {
        return rc;
    }
    if (tx->fail) {
        return ENDPOINTS_ERR_INVALID;
    }
    endpoints_rows rows;
    rc = endpoints_query("main", "SELECT score FROM users WHERE name = $1", pbuf, &rows);
    if (rc != 0 || !endpoints_rows_next(&rows)) {
        return rc ? rc : ENDPOINTS_ERR_NOT_FOUND;
    }
    return endpoints_rows_double(&rows, 0, &tx->score);
}

/* in_read_only counts the users into *arg, then tries a write, which the
 * read-only transaction refuses. */
static int32_t in_read_only(void *arg) {
    int64_t *users = arg;
    endpoints_rows rows;
    int32_t rc = endpoints_query("main", "SELECT count(*) FROM users", NULL, &rows);
    if (rc != 0 || !endpoints_rows_next(&rows) || (rc = endpoints_rows_int(&rows, 0, users)) != 0) {
        return rc ? rc : ENDPOINTS_ERR_NOT_FOUND;
    }
    return endpoints_exec("main", "INSERT INTO users (name) VALUES ('Nobody')", NULL, NULL);
}

/* in_serializable puts the transaction's isolation level (PostgreSQL). */
static int32_t in_serializable(void *arg) {
    (void)arg;
    endpoints_rows rows;
    int32_t rc = endpoints_query("main", "SELECT current_setting('transaction_isolation')", NULL, &rows);
    if (rc != 0 || !endpoints_rows_next(&rows)) {
        return rc ? rc : ENDPOINTS_ERR_NOT_FOUND;
    }
    put("{\"isolation\":");
    put_text(endpoints_rows_text(&rows, 0, NULL));
    put("}");
    return 0;
}

int32_t endpoints_handle(void) {
    char op[16], name[256], fail[8];
    used = 0;
    if (endpoints_header("x-op", op, sizeof op) < 0) {
        op[0] = '\0';
    }
    if (endpoints_header("x-name", name, sizeof name) < 0) {
        name[0] = '\0';
    }
    int32_t rc = 0;
    if (strcmp(op, "list") == 0) {
        rc = list();
    } else if (strcmp(op, "add") == 0) {
        rc = add(name);
    } else if (strcmp(op, "tx") == 0) {
        struct tx tx = {name, endpoints_header("x-fail", fail, sizeof fail) >= 0, 0};
        rc = endpoints_transaction("main", in_tx, &tx);
        if (rc == 0) {
            put("{\"committed\":true,\"score\":%g}", tx.score);
        } else {
            put("{\"committed\":false,\"why\":\"%s\"}", rc == ENDPOINTS_ERR_DATABASE ? endpoints_db_error_code() : "host");
            rc = 0;
        }
    } else if (strcmp(op, "half") == 0) {
        char pbuf[64];
        endpoints_params p = endpoints_params_init(pbuf, sizeof pbuf);
        endpoints_params_double(&p, 3.0);
        endpoints_rows rows;
        double h;
        rc = endpoints_query("main", "SELECT $1 / 2 AS h", endpoints_params_json(&p), &rows);
        if (rc == 0 && endpoints_rows_next(&rows) && endpoints_rows_double(&rows, 0, &h) == 0) {
            put("{\"h\":%g}", h);
        }
    } else if (strcmp(op, "one") == 0) {
        /* The first row, no row, and a statement that fails. */
        endpoints_rows rows;
        rc = endpoints_query("main", "SELECT name FROM users WHERE id >= $1 ORDER BY id", "[2]", &rows);
        if (rc == 0 && endpoints_rows_next(&rows)) {
            put("{\"first\":");
            put_text(endpoints_rows_text(&rows, 0, NULL));
            rc = endpoints_query("main", "SELECT name FROM users WHERE id < 0", NULL, &rows);
        }
        if (rc == 0) {
            put(",\"none\":%s", endpoints_rows_next(&rows) ? "false" : "true");
            put(",\"failed\":\"%s\"}", endpoints_query("main", "SELECT nope FROM users", NULL, &rows) == ENDPOINTS_ERR_DATABASE ? endpoints_db_error_code() : "?");
        }
    } else if (strcmp(op, "numeric") == 0) {
        /* PostgreSQL's numeric (sum(), avg()) arrives as its exact
         * decimal's text, as these do. */
        endpoints_rows rows;
        int64_t total;
        double mean;
        rc = endpoints_query("main", "SELECT CAST(9007199254740993 AS TEXT) AS total, '12.50' AS mean", NULL, &rows);
        if (rc == 0 && endpoints_rows_next(&rows) && (rc = endpoints_rows_int(&rows, 0, &total)) == 0 &&
            (rc = endpoints_rows_double(&rows, 1, &mean)) == 0) {
            put("{\"total\":%lld,\"mean\":%g}", (long long)total, mean);
        }
    } else if (strcmp(op, "orphan") == 0) {
        /* A tag of a user that does not exist: the foreign key refuses it. */
        endpoints_exec_result res;
        rc = endpoints_exec("main", "INSERT INTO tags (user_id) VALUES ($1)", "[99]", &res);
        if (rc == ENDPOINTS_ERR_DATABASE && strcmp(endpoints_db_error_code(), "constraint") == 0) {
            refused();
            rc = 0;
        } else if (rc == 0) {
            put("{\"rowsAffected\":%lld}", (long long)res.rows_affected);
        }
    } else if (strcmp(op, "bad") == 0) {
        endpoints_rows rows;
        if (endpoints_query("main", "SELEC name FROM users", NULL, &rows) == ENDPOINTS_ERR_DATABASE) {
            put_failure();
        }
    } else if (strcmp(op, "readonly") == 0) {
        int64_t users = -1;
        rc = endpoints_transaction_with("main", ENDPOINTS_TX_READ_ONLY, in_read_only, &users);
        put("{\"users\":%lld,\"write\":\"%s\"}", (long long)users, rc == ENDPOINTS_ERR_DATABASE ? endpoints_db_error_code() : "committed");
        rc = 0;
    } else if (strcmp(op, "isolation") == 0) {
        rc = endpoints_transaction_with("main", ENDPOINTS_TX_SERIALIZABLE, in_serializable, NULL);
    } else if (strcmp(op, "badopts") == 0) {
        rc = endpoints_begin_with("main", "{\"isolation\":\"snapshot\"}");
        /* The host's message says which option it refused. */
        put("{\"errno\":%d,\"says\":%s}", (int)rc, strstr(endpoints_db_error_message(), "isolation \"snapshot\" is not a level") ? "true" : "false");
        rc = 0;
    } else if (strcmp(op, "badparams") == 0) {
        /* A parameter that is an array: the host's message names it. */
        endpoints_rows rows;
        rc = endpoints_query("main", "SELECT $1, $2", "[1,[2]]", &rows);
        put("{\"errno\":%d,\"says\":%s}", (int)rc, strstr(endpoints_db_error_message(), "db_query: parameters must be a JSON array") && strstr(endpoints_db_error_message(), "parameter 2 is an array") ? "true" : "false");
        rc = 0;
    } else if (strcmp(op, "nodb") == 0) {
        endpoints_rows rows;
        rc = endpoints_query("other", "SELECT 1", NULL, &rows);
        put("{\"code\":\"%s\",\"constraint\":null,\"kind\":null,\"detail\":null}", rc == ENDPOINTS_ERR_NOT_FOUND ? "host" : endpoints_db_error_code());
        rc = 0;
    }
    if (rc != 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "database: errno %d: %s: %s", rc, endpoints_db_error_code(), endpoints_db_error_message());
        endpoints_log_str(ENDPOINTS_LOG_ERROR, msg);
        return 1;
    }
    endpoints_write(out, used);
    return 0;
}
