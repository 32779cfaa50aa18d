package endpoints_test

import (
	"errors"
	"fmt"
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// visit is the input of a page counter.
type visit struct {
	Page string `path:"page" minLength:"1"`
}

// A counter: KV.Incr is atomic across every host sharing the store. The
// handler returns KV's errors as they are; HandleFunc answers 503 for
// ErrStorageUnavailable and 500 for anything else.
func ExampleKVStore() {
	defer endpoints.Reset() // examples share one process; Reset also empties the native store

	count := func(in *visit) (int64, error) {
		return endpoints.KV.Incr("visits:"+in.Page, 1)
	}
	endpoints.HandleFunc(endpoints.Operation{Summary: "Count a visit"}, count)

	// Natively, KV is an in-memory map: a test calls the handler directly.
	for _, page := range []string{"home", "about", "home"} {
		n, err := count(&visit{Page: page})
		fmt.Println(page, n, err)
	}
	for key, err := range endpoints.KV.Keys("visits:") {
		if err != nil {
			fmt.Println(err)
			break
		}
		v, _, _ := endpoints.KV.Get(key)
		fmt.Printf("%s=%s\n", key, v)
	}
	// Output:
	// home 1 <nil>
	// about 1 <nil>
	// home 2 <nil>
	// visits:about=1
	// visits:home=2
}

// getProfile is the input of a cached lookup.
type getProfile struct {
	ID int `path:"id" minimum:"1"`
}

// A Handle handler chooses its own answer when the store is down: here a
// declared 503 with a Problem body. GetJSON and SetJSON store values as
// JSON; the TTL is rounded up to whole seconds.
func ExampleKVStore_GetJSON() {
	defer endpoints.Reset()

	lookup := func(in *getProfile) endpoints.Reply {
		key := fmt.Sprintf("profile:%d", in.ID)
		var a Account
		found, err := endpoints.KV.GetJSON(key, &a)
		if errors.Is(err, endpoints.ErrStorageUnavailable) {
			return endpoints.Respond(503, Problem{Message: "try again later"}).WithHeader("Retry-After", "5")
		}
		if err != nil {
			return endpoints.Respond(500, Problem{Message: "cache error"})
		}
		if !found {
			a = Account{ID: in.ID, Name: "Acme"} // the slow path
			if err := endpoints.KV.SetJSON(key, a, 90*time.Second); err != nil {
				endpoints.Logger().Warn("caching the profile", "error", err)
			}
		}
		return endpoints.Respond(200, a)
	}
	endpoints.Handle(endpoints.Operation{
		Summary: "Get a profile",
		Responses: endpoints.Responses{
			200: endpoints.JSON[Account]("The profile"),
			500: endpoints.JSON[Problem]("The cache failed"),
			503: endpoints.JSON[Problem]("The cache is down"),
		},
	}, lookup)

	r := lookup(&getProfile{ID: 1})
	cached, _, _ := endpoints.KV.Get("profile:1")
	fmt.Println(r.Status(), r.Body(), string(cached))
	// Output:
	// 200 {1 Acme} {"id":1,"name":"Acme"}
}
