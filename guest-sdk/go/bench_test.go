//go:build !wasip1

package endpoints

import (
	"encoding/json"
	"testing"
)

// The benchmarks measure the SDK's own work per request (decode the
// envelope, fill the input, run the handler, encode and write the reply)
// against the same work done the way a native net/http handler does it.
// The fake host's calls are memory copies, so the numbers are the SDK's.

type benchUser struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

type benchPatch struct {
	ID   int `path:"id" minimum:"1"`
	Body struct {
		Name  *string `json:"name,omitempty" minLength:"1"`
		Email *string `json:"email,omitempty" format:"email"`
	} `minProperties:"1"`
}

const benchEnvelope = `{"kind":"endpoint","method":"PATCH","route":"/api/users/:id","path":"/api/users/7",` +
	`"params":{"id":7},"query":{},"headers":{},"body":{"name":"Ada Lovelace"}}`

func patchUser(id int, name, email *string) benchUser {
	u := benchUser{ID: id, Name: "Ada", Email: "ada@example.com"}
	if name != nil {
		u.Name = *name
	}
	if email != nil {
		u.Email = *email
	}
	return u
}

func BenchmarkHandle(b *testing.B) {
	Reset()
	b.Cleanup(Reset)
	Handle(Operation{}, func(in *benchPatch) Reply {
		return Respond(200, patchUser(in.ID, in.Body.Name, in.Body.Email))
	})
	fake = &fakeHost{inRequest: true, envelope: []byte(benchEnvelope), header: Headers{}}
	b.Cleanup(func() { fake = &fakeHost{} })
	b.ReportAllocs()
	for b.Loop() {
		fake.written = fake.written[:0]
		if rc := handle(); rc != 0 {
			b.Fatalf("handle() = %d; logs %v", rc, fake.logs)
		}
	}
}

// BenchmarkNativeBaseline is the native equivalent: decode the body,
// run the same handler, encode the answer.
func BenchmarkNativeBaseline(b *testing.B) {
	body := []byte(`{"name":"Ada Lovelace"}`)
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		var in benchPatch
		in.ID = 7 // a router hands over the path parameter as a string; parsing it is not counted
		if err := json.Unmarshal(body, &in.Body); err != nil {
			b.Fatal(err)
		}
		res, err := json.Marshal(patchUser(in.ID, in.Body.Name, in.Body.Email))
		if err != nil {
			b.Fatal(err)
		}
		out = append(out[:0], res...)
	}
}
