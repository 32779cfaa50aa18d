//go:build !wasip1

package endpoints_test

import (
	"errors"
	"fmt"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// A read-modify-write that must not lose a concurrent change: the
// transaction is serializable, and runs again (up to three times) when
// the database could not serialize it with another (ErrBusy). A report
// reads in a read-only transaction, which on SQLite runs beside a writer;
// a write in it is refused with ErrDenied.
func ExampleDatabase_TxWith() {
	defer endpoints.UseExampleDatabase()() // natively, an SQLite file; in a module, the app's database

	db := endpoints.DB("main")
	db.Exec("CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
	db.Exec("INSERT INTO counters VALUES (1, 0)")

	increment := func() (n int64, err error) {
		err = db.TxWith(endpoints.TxOptions{Isolation: endpoints.Serializable, Retries: 3}, func(tx *endpoints.Tx) error {
			if err := tx.QueryRow("SELECT n FROM counters WHERE id = 1").Scan(&n); err != nil {
				return err
			}
			n++
			_, err := tx.Exec("UPDATE counters SET n = $1 WHERE id = 1", n)
			return err
		})
		return n, err
	}
	fmt.Println(increment())
	fmt.Println(increment())

	var n int64
	err := db.TxWith(endpoints.TxOptions{ReadOnly: true}, func(tx *endpoints.Tx) error {
		if err := tx.QueryRow("SELECT n FROM counters WHERE id = 1").Scan(&n); err != nil {
			return err
		}
		_, err := tx.Exec("UPDATE counters SET n = 0")
		return err
	})
	fmt.Println(n, errors.Is(err, endpoints.ErrDenied))
	// Output:
	// 1 <nil>
	// 2 <nil>
	// 2 true
}
