// Command wirecal calibrates the wire benchmark: it serves GET
// /api/users/{id} as the benchmark's native variant does (net/http's
// ServeMux, the id checked against {"type":"integer","minimum":1} by
// jsonschema, the user encoded by encoding/json v2), plus a fixed amount
// of busy CPU work per request (-work). Served on one core with wrk on the
// other (run.sh), the requests per second at each amount of work show
// what a given per-request cost does to a ratio on that setup, which is
// not proportional: the client, idle while it waits, is woken for every
// answer once the server is the slower of the two.
//
// With -db it reads the user from a SQLite database instead of making it
// up, as a Go developer would (database/sql, the SQLite driver the host
// uses, a prepared statement): the native variant doing the read the
// examples' handlers do, to price the runtime apart from the database.
//
//	go run ./bench/wirecal -addr 127.0.0.1:18090 -work 10us
//	go run ./bench/wirecal -db examples/users-c/.endpoints/data/main.db
package main

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	_ "github.com/ncruces/go-sqlite3/driver" // registers "sqlite3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

type user struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen on `HOST:PORT`")
	work := flag.Duration("work", 0, "busy CPU `time` spent per request before answering")
	dbFile := flag.String("db", "", "read the user from the users table of the SQLite database `FILE` (as the examples' migrations make it)")
	flag.Parse()
	var users *sql.DB
	if *dbFile != "" {
		var err error
		if users, err = openUsers(*dbFile); err != nil {
			fmt.Fprintln(os.Stderr, "wirecal:", err)
			os.Exit(1)
		}
	}
	handler, err := newHandler(*work, users)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wirecal:", err)
		os.Exit(1)
	}
	log.Fatal(http.ListenAndServe(*addr, handler))
}

// openUsers opens the SQLite database file as the host opens an app's
// (WAL, a busy timeout), failing when it has no users table.
func openUsers(file string) (*sql.DB, error) {
	if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("-db: %w (serve the example once to make its database)", err)
	}
	db, err := sql.Open("sqlite3", "file:"+file+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(wal)")
	if err != nil {
		return nil, err
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM users").Scan(&n); err != nil {
		db.Close()
		return nil, fmt.Errorf("-db %s: %w", file, err)
	}
	return db, nil
}

// newHandler is the native variant of the wire benchmark with work of
// busy CPU time added to every request, reading the user from users when
// not nil.
func newHandler(work time.Duration, users *sql.DB) (http.Handler, error) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("id.json", map[string]any{"type": "integer", "minimum": 1}); err != nil {
		return nil, err
	}
	schema, err := c.Compile("id.json")
	if err != nil {
		return nil, err
	}
	var read *sql.Stmt
	if users != nil {
		if read, err = users.Prepare("SELECT id, name, email FROM users WHERE id = ?"); err != nil {
			return nil, err
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		spins.Add(uint64(busy(work)))
		segment := r.PathValue("id")
		var value any = segment
		id, err := strconv.ParseInt(segment, 10, 64)
		if err == nil {
			value = id
		}
		if schema.Validate(value) != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"id must be an integer >= 1"}`))
			return
		}
		s := strconv.FormatInt(id, 10)
		u := user{ID: id, Name: "User " + s, Email: "user" + s + "@example.com"}
		if read != nil {
			err := read.QueryRowContext(r.Context(), id).Scan(&u.ID, &u.Name, &u.Email)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"error":"no user with this id"}`))
				return
			case err != nil:
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.MarshalWrite(w, u)
	})
	return mux, nil
}

// spins counts busy's clock reads, so that a test sees the work done.
var spins atomic.Uint64

// busy spins on the CPU for d, reading the clock as it goes, and returns
// how many times it read it.
func busy(d time.Duration) (reads int) {
	if d <= 0 {
		return 0
	}
	for end := time.Now().Add(d); time.Now().Before(end); {
		reads++
	}
	return reads
}
