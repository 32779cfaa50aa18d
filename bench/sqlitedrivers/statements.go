package main

import (
	"context"
	"fmt"
)

// The example's statements (examples/users/model), as its handlers run them.
const (
	// sqlGet is model.Find.
	sqlGet = "SELECT id, name, email FROM users WHERE id = $1"
	// sqlSearch is model.Search: a scan of the table, 50 rows returned.
	sqlSearch = `SELECT id, name, email, count(*) OVER () AS total FROM users
		WHERE lower(name) LIKE $1 ESCAPE '\' OR lower(email) LIKE $1 ESCAPE '\'
		ORDER BY id LIMIT $2`
	// sqlInsert is model.Create's write.
	sqlInsert = "INSERT INTO users (id, name, email) VALUES ($1, $2, $3)"
	// sqlUpdate is model.Update; its parameters appear out of order, so
	// SQLite numbers $2 first: each variant binds them by name.
	sqlUpdate = `UPDATE users SET name = coalesce($2, name), email = coalesce($3, email)
		WHERE id = $1 RETURNING id, name, email`
	// sqlCounter is model.nextID.
	sqlCounter = "UPDATE counters SET value = value + 1 WHERE name = $1 RETURNING value"
	// sqlOrder is model.CreateOrder's write (orders.user_id references
	// users: foreign_keys=ON checks it).
	sqlOrder = "INSERT INTO orders (id, user_id, items, created_at) VALUES ($1, $2, $3, $4)"
)

// Arguments of the measured statements.
const (
	// searchPattern is model.Search("1", 50)'s pattern: a few hundred of
	// the seeded users match, the first 50 are returned.
	searchPattern = "%1%"
	searchLimit   = 50
	// txPairs is how many (counter, order) pairs the transaction runs:
	// 10 statements between BEGIN IMMEDIATE and COMMIT.
	txPairs   = 5
	orderItem = `[{"sku":"A-1","quantity":2}]`
	orderDate = "2026-01-02T03:04:05Z"
)

// user is a row of users.
type user struct {
	ID          int64
	Name, Email string
}

// found is what a search read: how many rows, the total they gave (the
// matches without the LIMIT) and the last row.
type found struct {
	rows  int
	total int64
	last  user
}

// seededUser is the user with id i as the seed writes it (ids 1-3 come
// from the example's migration and differ).
func seededUser(i int64) user {
	return user{ID: i, Name: fmt.Sprintf("User %d", i), Email: fmt.Sprintf("user%d@example.com", i)}
}

// runner runs the example's statements through one driver and API. Each
// keeps its statements prepared, as the host keeps a guest's, and runs
// them on one connection with the PRAGMAs of [pragmas].
type runner interface {
	// get reads one user by id.
	get(ctx context.Context, id int64) (user, error)
	// search runs sqlSearch and reads every column of every row.
	search(ctx context.Context, pattern string, limit int64) (found, error)
	// insert writes one user in its own transaction (autocommit).
	insert(ctx context.Context, u user) error
	// update renames a user and returns the row as written.
	update(ctx context.Context, id int64, name string) (user, error)
	// order runs BEGIN IMMEDIATE, txPairs × (sqlCounter, sqlOrder) for
	// userID, COMMIT; it returns the last order's id.
	order(ctx context.Context, userID int64) (int64, error)
	// text runs a statement without parameters and returns its first
	// column of its first row as text (PRAGMAs, cleanup).
	text(ctx context.Context, sql string) (string, error)
	close() error
}
