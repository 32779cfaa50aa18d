// Package model holds the users of the example app: the types its endpoints
// exchange and the seed users 1, 2 and 3 that every route module starts
// with. It is shared by the route sources under server/ and built into each
// module that imports it.
//
// The data is a seed compiled into the guests, not storage: a module cannot
// keep state across pooled instances, so a created or changed user is
// answered but not remembered. App storage provided by the host comes with
// the Idempotency-Key and storage work.
package model

import (
	"slices"
	"strings"
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

var seed = []User{
	{ID: 1, Name: "Ada Lovelace", Email: "ada@example.com"},
	{ID: 2, Name: "Grace Hopper", Email: "grace@example.com"},
	{ID: 3, Name: "Alan Turing", Email: "alan@example.com"},
}

// Find returns the user with id.
func Find(id int) (User, bool) {
	for _, u := range seed {
		if u.ID == id {
			return u, true
		}
	}
	return User{}, false
}

// Search returns up to limit users whose name or email contains q, ignoring
// case, and how many match in all.
func Search(q string, limit int) SearchResult {
	q = strings.ToLower(q)
	res := SearchResult{Items: []User{}}
	for _, u := range seed {
		if strings.Contains(strings.ToLower(u.Name), q) || strings.Contains(strings.ToLower(u.Email), q) {
			res.Total++
			if len(res.Items) < limit {
				res.Items = append(res.Items, u)
			}
		}
	}
	return res
}

// NextID is the id a new user gets: one past the seed.
func NextID() int { return slices.MaxFunc(seed, func(a, b User) int { return a.ID - b.ID }).ID + 1 }

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

// All returns every user, in id order.
func All() []User { return slices.Clone(seed) }

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
