// Package model holds the users and orders of the example app: the types
// its endpoints exchange and the functions that keep them in the app's
// database ([endpoints.DB] "main"): an SQLite file the host keeps under the
// app, or PostgreSQL when ENDPOINTS_DATABASES_MAIN_DRIVER and _URL say so,
// shared then by every host. It is shared by the route sources under
// handlers/ and built into each module that imports it.
//
// The tables are the migrations' in server/migrations: users, orders, and
// counters, which give out ids. The first migration writes the seed users
// 1, 2 and 3.
//
// # Errors
//
// Every function returns the database's error. One wrapping
// [endpoints.ErrDatabaseUnavailable] means the database cannot be reached:
// a HandleFunc handler returns it and answers 503; a Handle handler
// answers [StoreFailure].
package model

import (
	"errors"
	"fmt"
	"iter"
	"strings"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// User is a user as the API answers it.
type User struct {
	_     struct{} `doc:"A user of the service."`
	ID    int      `json:"id" minimum:"1" doc:"The user's id." example:"1"`
	Name  string   `json:"name" minLength:"1" maxLength:"100" doc:"Full name." example:"Ada Lovelace"`
	Email string   `json:"email" format:"email" doc:"Contact address." example:"ada@example.com"`
}

// NewUser is the body of POST /api/users.
type NewUser struct {
	_     struct{} `doc:"A user to create: the service gives the id."`
	Name  string   `json:"name" minLength:"1" maxLength:"100" doc:"Full name." example:"Ada Lovelace"`
	Email string   `json:"email" format:"email" doc:"Contact address." example:"ada@example.com"`
}

// UserPatch is the body of PATCH /api/users/:id: the fields to change.
type UserPatch struct {
	_     struct{} `doc:"The fields of a user to change; those left out keep their value."`
	Name  *string  `json:"name,omitempty" minLength:"1" maxLength:"100" doc:"New full name." example:"Augusta Ada King"`
	Email *string  `json:"email,omitempty" format:"email" doc:"New contact address." example:"ada.king@example.com"`
}

// SearchResult is the answer of GET /api/users/search.
type SearchResult struct {
	_     struct{} `doc:"One page of the users a search matches."`
	Items []User   `json:"items" doc:"The matching users, at most limit of them." example:"[{\"id\":1,\"name\":\"Ada Lovelace\",\"email\":\"ada@example.com\"}]"`
	Total int      `json:"total" doc:"How many users match in all." example:"1"`
}

// NotFound is the body of a 404.
type NotFound struct {
	_       struct{} `doc:"No user has the id asked for."`
	Message string   `json:"message" doc:"Which id was asked for." example:"user 9 not found"`
}

// userColumns are the columns of a User, in a query's select list.
const userColumns = "id, name, email"

// Find returns the user with id, and whether there is one.
//
//	u, ok, err := model.Find(7)
func Find(id int) (User, bool, error) {
	u, err := endpoints.QueryRowAs[User](db, "SELECT "+userColumns+" FROM users WHERE id = $1", id)
	switch {
	case errors.Is(err, endpoints.ErrNoRows):
		return User{}, false, nil
	case err != nil:
		return User{}, false, fmt.Errorf("model: reading user %d: %w", id, err)
	}
	return u, true, nil
}

// allPage is how many users All reads per query.
const allPage = 500

// All returns every user, in id order, reading them a page at a time as
// the loop goes on. An error ends the sequence, as its last pair:
//
//	for u, err := range model.All() {
//		if err != nil {
//			return err
//		}
//		fmt.Println(u.Name)
//	}
//
// A user created during the loop may or may not be seen.
func All() iter.Seq2[User, error] {
	return func(yield func(User, error) bool) {
		after := 0
		for {
			page, err := endpoints.QueryAs[User](db, "SELECT "+userColumns+" FROM users WHERE id > $1 ORDER BY id LIMIT $2", after, allPage)
			if err != nil {
				yield(User{}, fmt.Errorf("model: listing the users: %w", err))
				return
			}
			for _, u := range page {
				if !yield(u, nil) {
					return
				}
				after = u.ID
			}
			if len(page) < allPage {
				return
			}
		}
	}
}

// likeEscaper escapes the characters LIKE treats specially, with the
// escape character the queries name (ESCAPE '\').
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// Search returns up to limit users whose name or email contains q,
// ignoring case, in id order, and how many match in all.
//
//	res, err := model.Search("ada", 10)
//
// # Notes
//
//   - SQLite's lower() folds ASCII letters only: on SQLite, a search for
//     "élodie" does not find "Élodie"; PostgreSQL's folds every letter.
func Search(q string, limit int) (SearchResult, error) {
	pattern := "%" + likeEscaper.Replace(strings.ToLower(q)) + "%"
	rows, err := db.Query(`SELECT `+userColumns+`, count(*) OVER () AS total FROM users
		WHERE lower(name) LIKE $1 ESCAPE '\' OR lower(email) LIKE $1 ESCAPE '\'
		ORDER BY id LIMIT $2`, pattern, limit)
	if err != nil {
		return SearchResult{}, fmt.Errorf("model: searching the users: %w", err)
	}
	res := SearchResult{Items: []User{}}
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Name, &u.Email, &res.Total); err != nil {
			return SearchResult{}, fmt.Errorf("model: searching the users: %w", err)
		}
		res.Items = append(res.Items, u)
	}
	return res, nil
}

// Create stores a new user with the next id and returns it.
//
//	u, err := model.Create(model.NewUser{Name: "Barbara Liskov", Email: "barbara@example.com"})
//
// The id comes from the users counter (nextID), so concurrent creates on
// any number of hosts get distinct ids; an id whose user could not be
// written is not given out again.
func Create(nu NewUser) (User, error) {
	id, err := nextID("users")
	if err != nil {
		return User{}, err
	}
	u := User{ID: id, Name: nu.Name, Email: nu.Email}
	if _, err := db.Exec("INSERT INTO users (id, name, email) VALUES ($1, $2, $3)", u.ID, u.Name, u.Email); err != nil {
		return User{}, fmt.Errorf("model: writing user %d: %w", u.ID, err)
	}
	return u, nil
}

// Update sets the fields of p that are set on the user with id, stores
// it and returns it; false when there is no such user.
//
//	u, ok, err := model.Update(3, model.UserPatch{Name: &name})
//
// One statement changes the fields set and returns the user, so two
// concurrent updates of different fields both take effect.
func Update(id int, p UserPatch) (User, bool, error) {
	u, err := endpoints.QueryRowAs[User](db, `UPDATE users SET name = coalesce($2, name), email = coalesce($3, email)
		WHERE id = $1 RETURNING `+userColumns, id, p.Name, p.Email)
	switch {
	case errors.Is(err, endpoints.ErrNoRows):
		return User{}, false, nil
	case err != nil:
		return User{}, false, fmt.Errorf("model: writing user %d: %w", id, err)
	}
	return u, true, nil
}

// Apply returns u with the fields of p that are set.
func (p UserPatch) Apply(u User) User {
	if p.Name != nil {
		u.Name = *p.Name
	}
	if p.Email != nil {
		u.Email = *p.Email
	}
	return u
}

// Problem is an RFC 9457 Problem Details body, sent as
// application/problem+json.
type Problem struct {
	_      struct{} `doc:"An RFC 9457 Problem Details body." example:"{\"type\":\"https://example.com/problems/no-such-user\",\"title\":\"No such user\",\"status\":404,\"detail\":\"user 9 not found\"}"`
	_      struct{} `example:"{\"type\":\"https://example.com/problems/no-such-user\",\"title\":\"No such user\",\"status\":422,\"detail\":\"user 9 not found\"}"`
	Type   string   `json:"type" doc:"A URI naming the kind of problem."`
	Title  string   `json:"title" doc:"A short summary of the kind of problem."`
	Status int      `json:"status" doc:"The HTTP status."`
	Detail string   `json:"detail" doc:"What went wrong this time."`
}

// ClockEvent is one event of GET /api/clock.
type ClockEvent struct {
	_    struct{} `doc:"One tick of the clock."`
	Tick int      `json:"tick" minimum:"1" doc:"1 for the first event, then 2, 3..." example:"1"`
	Time string   `json:"time" format:"date-time" doc:"When the event was sent." example:"2026-01-15T09:30:00Z"`
}

// ByID is the path parameter of the /api/users/:id routes; embedding it in
// a route's input struct writes the rule once (handlers/get-user spells it
// out, as the README's example).
type ByID struct {
	ID int `path:"id" minimum:"1" doc:"The user's id."`
}

// Photo is what POST /api/users/:id/photo received.
type Photo struct {
	_           struct{} `doc:"What the service received of an uploaded photo."`
	UserID      int      `json:"userId" minimum:"1" doc:"The user the photo belongs to." example:"1"`
	Caption     string   `json:"caption,omitempty" maxLength:"200" doc:"The caption sent with the photo." example:"At the lake"`
	Filename    string   `json:"filename" doc:"The file name the client gave." example:"lake.png"`
	ContentType string   `json:"contentType" enum:"image/png,image/jpeg" doc:"The photo's type, checked against its first bytes." example:"image/png"`
	Bytes       int64    `json:"bytes" minimum:"1" doc:"The photo's size." example:"48213"`
	SHA256      string   `json:"sha256" pattern:"^[0-9a-f]{64}$" doc:"The SHA-256 of the photo, hex-encoded." example:"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"`
}

// ValidationProblem is an RFC 9457 Problem Details body for a request that
// failed validation, listing every failing field.
type ValidationProblem struct {
	_      struct{}     `doc:"A request that failed validation (RFC 9457 Problem Details), every failing field listed." example:"{\"type\":\"https://example.com/problems/invalid-query\",\"title\":\"Invalid query\",\"status\":400,\"detail\":\"The search query is not valid; see errors.\",\"errors\":[{\"part\":\"query\",\"pointer\":\"/limit\",\"message\":\"must be less than or equal to 100\"}]}"`
	Type   string       `json:"type" doc:"A URI naming the kind of problem."`
	Title  string       `json:"title" doc:"A short summary of the kind of problem."`
	Status int          `json:"status" doc:"The HTTP status."`
	Detail string       `json:"detail" doc:"What went wrong this time."`
	Errors []FieldError `json:"errors" doc:"Every failing field."`
}

// FieldError is one failing field of a ValidationProblem.
type FieldError struct {
	_       struct{} `doc:"One failing field of a request."`
	Part    string   `json:"part" enum:"params,query,headers,body" doc:"The part of the request the field is in."`
	Pointer string   `json:"pointer" doc:"A JSON Pointer to the field within its part, such as /limit." example:"/limit"`
	Message string   `json:"message" doc:"What is wrong with it." example:"must be less than or equal to 100"`
}
