// Package model holds the users and orders of the example app: the types
// its endpoints exchange and the functions that keep them in the app's
// key-value store ([endpoints.KV]), which the host keeps between requests
// and, with a Redis store, shares between hosts. It is shared by the route
// sources under handlers/ and built into each module that imports it.
//
// A user is stored as JSON under users/<id> and an order under
// orders/<id>, the id zero-padded to ten digits (users/0000000007) so that
// the keys list in id order; ids come from the counters users:next-id and
// orders:next-id. Every store starts with the seed users 1, 2 and 3,
// written once by the first request (see [Seed]).
//
// # Errors
//
// Every function that reads or writes the store returns its error. One
// wrapping [endpoints.ErrStorageUnavailable] means the store cannot be
// reached: a HandleFunc handler returns it and answers 503; a Handle
// handler answers [StoreFailure].
package model

import (
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// User is a user as the API answers it.
type User struct {
	ID    int    `json:"id" minimum:"1" doc:"The user's id."`
	Name  string `json:"name" minLength:"1" maxLength:"100" doc:"Full name."`
	Email string `json:"email" format:"email" doc:"Contact address."`
}

// NewUser is the body of POST /api/users.
type NewUser struct {
	Name  string `json:"name" minLength:"1" maxLength:"100" doc:"Full name."`
	Email string `json:"email" format:"email" doc:"Contact address."`
}

// UserPatch is the body of PATCH /api/users/:id: the fields to change.
type UserPatch struct {
	Name  *string `json:"name,omitempty" minLength:"1" maxLength:"100" doc:"New full name."`
	Email *string `json:"email,omitempty" format:"email" doc:"New contact address."`
}

// SearchResult is the answer of GET /api/users/search.
type SearchResult struct {
	Items []User `json:"items" doc:"The matching users, at most limit of them."`
	Total int    `json:"total" doc:"How many users match in all."`
}

// NotFound is the body of a 404.
type NotFound struct {
	Message string `json:"message"`
}

// Find returns the user with id, and whether there is one.
//
//	u, ok, err := model.Find(7)
func Find(id int) (User, bool, error) {
	if err := Seed(); err != nil {
		return User{}, false, err
	}
	var u User
	ok, err := endpoints.KV.GetJSON(idKey(userPrefix, id), &u)
	if err != nil {
		return User{}, false, fmt.Errorf("model: reading user %d: %w", id, err)
	}
	return u, ok, nil
}

// FindJSON returns the user with id as the JSON the store holds, to be
// answered as it is: a handler that only passes a user on need not decode
// and encode it. The seed is only looked at when the user is missing, so
// a found user costs one read of the store.
func FindJSON(id int) (json.RawMessage, bool, error) {
	key := idKey(userPrefix, id)
	v, ok, err := endpoints.KV.Get(key)
	if err == nil && !ok {
		if err := Seed(); err != nil {
			return nil, false, err
		}
		v, ok, err = endpoints.KV.Get(key)
	}
	if err != nil {
		return nil, false, fmt.Errorf("model: reading user %d: %w", id, err)
	}
	return v, ok, nil
}

// All returns every user, in id order, reading them from the store as the
// loop goes on. An error ends the sequence, as its last pair:
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
		if err := Seed(); err != nil {
			yield(User{}, err)
			return
		}
		for key, err := range endpoints.KV.Keys(userPrefix) {
			if err != nil {
				yield(User{}, fmt.Errorf("model: listing the users: %w", err))
				return
			}
			var u User
			ok, err := endpoints.KV.GetJSON(key, &u)
			if err != nil {
				yield(User{}, fmt.Errorf("model: reading %s: %w", key, err))
				return
			}
			if ok && !yield(u, nil) {
				return
			}
		}
	}
}

// Search returns up to limit users whose name or email contains q,
// ignoring case, in id order, and how many match in all.
//
//	res, err := model.Search("ada", 10)
func Search(q string, limit int) (SearchResult, error) {
	q = strings.ToLower(q)
	res := SearchResult{Items: []User{}}
	for u, err := range All() {
		if err != nil {
			return SearchResult{}, err
		}
		if strings.Contains(strings.ToLower(u.Name), q) || strings.Contains(strings.ToLower(u.Email), q) {
			res.Total++
			if len(res.Items) < limit {
				res.Items = append(res.Items, u)
			}
		}
	}
	return res, nil
}

// Create stores a new user with the next id and returns it.
//
//	u, err := model.Create(model.NewUser{Name: "Barbara Liskov", Email: "barbara@example.com"})
//
// The id is taken with KV.Incr, so concurrent creates on any number of
// hosts get distinct ids; an id whose user could not be written is not
// given out again.
func Create(nu NewUser) (User, error) {
	if err := Seed(); err != nil {
		return User{}, err
	}
	id, err := endpoints.KV.Incr(nextUserKey, 1)
	if err != nil {
		return User{}, fmt.Errorf("model: taking a user id: %w", err)
	}
	u := User{ID: int(id), Name: nu.Name, Email: nu.Email}
	if err := endpoints.KV.SetJSON(idKey(userPrefix, u.ID), u, 0); err != nil {
		return User{}, fmt.Errorf("model: writing user %d: %w", u.ID, err)
	}
	return u, nil
}

// Update sets the fields of p that are set on the user with id, stores
// it and returns it; false when there is no such user.
//
//	u, ok, err := model.Update(3, model.UserPatch{Name: &name})
//
// # Notes
//
//   - The user is read, changed and written back: of two concurrent
//     updates of one user, the last write wins whole.
func Update(id int, p UserPatch) (User, bool, error) {
	u, ok, err := Find(id)
	if err != nil || !ok {
		return User{}, false, err
	}
	u = p.Apply(u)
	if err := endpoints.KV.SetJSON(idKey(userPrefix, id), u, 0); err != nil {
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
	Type   string `json:"type" doc:"A URI naming the kind of problem."`
	Title  string `json:"title" doc:"A short summary of the kind of problem."`
	Status int    `json:"status" doc:"The HTTP status."`
	Detail string `json:"detail" doc:"What went wrong this time."`
}

// ClockEvent is one event of GET /api/clock.
type ClockEvent struct {
	Tick int    `json:"tick" minimum:"1" doc:"1 for the first event, then 2, 3..."`
	Time string `json:"time" format:"date-time" doc:"When the event was sent."`
}

// ByID is the path parameter of the /api/users/:id routes; embedding it in
// a route's input struct writes the rule once (handlers/get-user spells it
// out, as the README's example).
type ByID struct {
	ID int `path:"id" minimum:"1" doc:"The user's id."`
}

// Photo is what POST /api/users/:id/photo received.
type Photo struct {
	UserID      int    `json:"userId" minimum:"1" doc:"The user the photo belongs to."`
	Caption     string `json:"caption,omitempty" maxLength:"200" doc:"The caption sent with the photo."`
	Filename    string `json:"filename" doc:"The file name the client gave."`
	ContentType string `json:"contentType" enum:"image/png,image/jpeg" doc:"The photo's type, checked against its first bytes."`
	Bytes       int64  `json:"bytes" minimum:"1" doc:"The photo's size."`
	SHA256      string `json:"sha256" pattern:"^[0-9a-f]{64}$" doc:"The SHA-256 of the photo, hex-encoded."`
}

// ValidationProblem is an RFC 9457 Problem Details body for a request that
// failed validation, listing every failing field.
type ValidationProblem struct {
	Type   string       `json:"type" doc:"A URI naming the kind of problem."`
	Title  string       `json:"title" doc:"A short summary of the kind of problem."`
	Status int          `json:"status" doc:"The HTTP status."`
	Detail string       `json:"detail" doc:"What went wrong this time."`
	Errors []FieldError `json:"errors" doc:"Every failing field."`
}

// FieldError is one failing field of a ValidationProblem.
type FieldError struct {
	Part    string `json:"part" enum:"params,query,headers,body" doc:"The part of the request the field is in."`
	Pointer string `json:"pointer" doc:"A JSON Pointer to the field within its part, such as /limit."`
	Message string `json:"message" doc:"What is wrong with it."`
}
