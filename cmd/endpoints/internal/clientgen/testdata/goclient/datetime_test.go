// Tests of the Go client generated for the route of
// TestGoClientDateTimeEndToEnd (internal/clientgen/golang_e2e_test.go),
// which answers the request as it read it: a date-time is a time.Time
// wherever the contract puts one, and comes back equal. The server's URL is
// in ENDPOINTS_TIMES_URL.
package times_test

import (
	"context"
	"os"
	"testing"
	"time"

	"example.com/times"
)

func TestDateTimesRoundTrip(t *testing.T) {
	c := times.New(os.Getenv("ENDPOINTS_TIMES_URL"))
	zone := time.FixedZone("", 2*60*60+30*60)
	when := time.Date(2026, 1, 15, 9, 30, 0, 123456789, zone)
	since := time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)
	at := time.Date(2026, 2, 1, 8, 0, 0, 0, time.FixedZone("", -5*60*60))
	until := at.Add(90 * time.Minute)
	for _, tt := range []struct {
		name  string
		req   times.PostAPIEchoByWhenRequest
		until *time.Time
	}{
		{"every date-time set", times.PostAPIEchoByWhenRequest{When: when, Since: &since, Body: times.Times{At: at, Until: &until}}, &until},
		{"the optional ones left out", times.PostAPIEchoByWhenRequest{When: when, Body: times.Times{At: at}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.PostAPIEchoByWhen(context.Background(), &tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if res.OK == nil {
				t.Fatalf("got %d %+v, want 200", res.Status, res.BadRequest)
			}
			got := res.OK
			if !got.Params.When.Equal(when) || got.Params.When.Nanosecond() != when.Nanosecond() {
				t.Errorf("path when = %v, want %v", got.Params.When, when)
			}
			switch {
			case tt.req.Since == nil && got.Query != nil && got.Query.Since != nil:
				t.Errorf("query since = %v, want none sent", *got.Query.Since)
			case tt.req.Since != nil && (got.Query == nil || got.Query.Since == nil || !got.Query.Since.Equal(since)):
				t.Errorf("query = %+v, want since %v", got.Query, since)
			}
			if !got.Body.At.Equal(at) {
				t.Errorf("body at = %v, want %v", got.Body.At, at)
			}
			switch {
			case tt.until == nil && got.Body.Until != nil:
				t.Errorf("body until = %v, want none sent", *got.Body.Until)
			case tt.until != nil && (got.Body.Until == nil || !got.Body.Until.Equal(*tt.until)):
				t.Errorf("body until = %v, want %v", got.Body.Until, *tt.until)
			}
		})
	}
}
