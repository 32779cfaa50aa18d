//go:build wasip1

// Command txretry is the guest of the host's TestDatabaseTxRetries: it
// increments a counter with a read-modify-write in a serializable
// transaction (Database.TxWith), retried as many times as the query's
// retries say. Its first attempt waits, between the read and the write,
// for the advisory lock 1 of the database "sync" (which the test holds
// until both requests wait for it), so that two requests read the same
// value and one of them cannot be serialized. The test builds it with
// internal/guestbuild, as
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o txretry.wasm ./testdata/txretry/main.go
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type input struct {
	Retries int `query:"retries" minimum:"0"`
}

// Result is the counter's value the transaction wrote, and how many
// times it ran.
type Result struct {
	N        int64 `json:"n"`
	Attempts int   `json:"attempts"`
}

func init() {
	endpoints.HandleFunc(endpoints.Operation{Summary: "Increment the counter"}, func(in *input) (Result, error) {
		var r Result
		err := endpoints.DB("main").TxWith(endpoints.TxOptions{Isolation: endpoints.Serializable, Retries: in.Retries}, func(tx *endpoints.Tx) error {
			r.Attempts++
			if err := tx.QueryRow("SELECT n FROM counters WHERE id = 1").Scan(&r.N); err != nil {
				return err
			}
			if r.Attempts == 1 {
				// Outside the transaction: "sync" is another database.
				if _, err := endpoints.DB("sync").Exec("SELECT pg_advisory_xact_lock_shared(1)"); err != nil {
					return err
				}
			}
			r.N++
			_, err := tx.Exec("UPDATE counters SET n = $1 WHERE id = 1", r.N)
			return err
		})
		return r, err
	})
}

func main() {}
