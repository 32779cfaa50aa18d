package model

import (
	"encoding/json"
	"errors"
	"fmt"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// db is the app's database: "main", which endpoints.json does not declare,
// so the host keeps it as an SQLite file under the app
// (.endpoints/data/main.db), or wherever ENDPOINTS_DATABASES_MAIN_* point
// it (PostgreSQL in production). Its tables come from the migrations in
// server/migrations, which the host applies when it loads the app.
var db = endpoints.DB("main")

// nextID takes the next id of counter ("users", "orders"): one statement,
// atomic on SQLite and PostgreSQL alike, so concurrent creates on any
// number of hosts get distinct ids.
func nextID(counter string) (int, error) {
	var id int
	err := db.QueryRow("UPDATE counters SET value = value + 1 WHERE name = $1 RETURNING value", counter).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("model: taking a %s id: %w", counter, err)
	}
	return id, nil
}

// Ping checks that the database answers, for a handler that must know
// before it sends its first byte (export-users streams).
func Ping() error {
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("model: the database does not answer: %w", err)
	}
	return nil
}

// Bodies of StoreFailure, in the shape of the host's own errors: the 503
// is the one a HandleFunc handler answers for the same error. Both are
// declared for the routes of the app in server/routes.config.json.
var (
	unavailableBody = json.RawMessage(`{"statusCode":503,"statusMessage":"Service Unavailable"}`)
	serverErrorBody = json.RawMessage(`{"statusCode":500,"statusMessage":"Internal Server Error"}`)
)

// StoreFailure is the answer of a Handle handler to an error of this
// package: 503 when the database (or the key-value store) cannot be
// reached or stays busy (locked past its busy timeout: trying again later
// may work), 500 for anything else. It logs err.
//
//	u, ok, err := model.Find(in.ID)
//	if err != nil {
//		return model.StoreFailure(err)
//	}
func StoreFailure(err error) endpoints.Reply {
	endpoints.Logger().Error("the users store failed", "error", err.Error())
	if errors.Is(err, endpoints.ErrDatabaseUnavailable) || errors.Is(err, endpoints.ErrBusy) || errors.Is(err, endpoints.ErrStorageUnavailable) {
		return endpoints.Respond(503, unavailableBody)
	}
	return endpoints.Respond(500, serverErrorBody)
}
