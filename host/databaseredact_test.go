package host_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
)

// TestDatabaseObservedRedacted: what leaves a guest's call for traces,
// logs and metrics holds none of its values, on SQLite and PostgreSQL: a
// span's statement has its literals replaced by "?", and a statement's
// error, at the span's end and in the Database event, has the values
// the database quoted in its message (a bound parameter's) replaced too,
// and no driver error (PostgreSQL's DETAIL quotes the row of a unique
// violation), as do the names PostgreSQL quotes that came from a value
// (a parameter cast to regclass: "relation \"...\" does not exist"). The
// guest still gets the database's whole message, and the DETAIL in its
// error's "detail" member.
func TestDatabaseObservedRedacted(t *testing.T) {
	t.Parallel()
	url, _, _ := databasetest.StartPostgres(t)
	for _, tt := range []struct {
		driver    string
		overrides []config.Override
		// badParam is a statement whose error quotes its parameter
		// secretParam; guestSees is what the guest's message holds.
		badParam, guestSees, reported string
		// detail is the unique violation's "detail" member the guest
		// gets, "" for none.
		detail string
		// asName is a statement whose error quotes its parameter
		// secret-name as a name (PostgreSQL's), "" for none.
		asName string
	}{
		{"sqlite", nil, "SELECT json_extract('{}', $1)", `bad JSON path: 'secret-param'`, `syntax: bad JSON path: ?`, "", ""},
		{"postgres", onPostgres(url), "SELECT id FROM users WHERE id = $1", `invalid input syntax for type bigint: \"secret-param\"`, `other: invalid input syntax for type bigint: ? (SQLSTATE 22P02)`, `,"detail":"Key (email)=(ada@example.com) already exists."}`, "SELECT $1::regclass"},
	} {
		t.Run(tt.driver, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var spans, errs []string
			obs := &host.Observer{
				Span: func(ctx context.Context, e host.SpanEvent) (context.Context, func(error)) {
					if e.Step != host.StepDatabase {
						return ctx, nil
					}
					mu.Lock()
					spans = append(spans, e.Op)
					mu.Unlock()
					return ctx, func(err error) {
						if err != nil {
							mu.Lock()
							errs = append(errs, fmt.Sprintf("span end: %v", err))
							mu.Unlock()
						}
					}
				},
				Database: func(e host.DatabaseEvent) {
					if e.Err != nil {
						mu.Lock()
						errs = append(errs, fmt.Sprintf("event: %v (driver's error kept: %v)", e.Err, errors.Unwrap(e.Err) != nil))
						mu.Unlock()
					}
				},
			}
			a := dbApp(t, "").file("server/migrations/001-users.sql", []byte("CREATE TABLE users (id BIGINT PRIMARY KEY, email TEXT NOT NULL UNIQUE);\nINSERT INTO users VALUES (1, 'ada@example.com');\n"))
			h, logs := a.host(host.Options{ConfigOverrides: tt.overrides, Observer: obs})
			srv := httptest.NewServer(h)
			defer srv.Close()

			res := dbDo(t, srv, "main", "q", "SELECT id FROM users WHERE email = 'secret-literal@example.com' /* secret-comment */ AND id > 41", "")
			if res.body != `{"columns":["id"],"rows":[]}`+"\n" {
				t.Errorf("the select: %d %s", res.status, res.body)
			}
			res = dbDo(t, srv, "main", "e", "INSERT INTO users VALUES (2, $1)", `["ada@example.com"]`)
			if !strings.Contains(res.body, `"code":"constraint"`) || !strings.Contains(res.body, `"kind":"unique"`) {
				t.Errorf("the unique violation: the guest got %d %s", res.status, res.body)
			}
			if hasDetail := strings.Contains(res.body, `"detail"`); tt.detail == "" && hasDetail || tt.detail != "" && !strings.Contains(res.body, tt.detail) {
				t.Errorf("the unique violation: the guest got %s, want the detail %q", res.body, tt.detail)
			}
			res = dbDo(t, srv, "main", "q", tt.badParam, `["secret-param"]`)
			if !strings.Contains(res.body, tt.guestSees) {
				t.Errorf("the guest got %s, want its message with %s", res.body, tt.guestSees)
			}
			if tt.asName != "" {
				res = dbDo(t, srv, "main", "q", tt.asName, `["secret-name"]`)
				if !strings.Contains(res.body, `relation \"secret-name\" does not exist`) {
					t.Errorf("the guest got %s, want its message naming secret-name", res.body)
				}
			}

			mu.Lock()
			defer mu.Unlock()
			if want := "SELECT id FROM users WHERE email = ?  AND id > ?"; len(spans) == 0 || spans[0] != want {
				t.Errorf("the select's span: %q, want first %q", spans, want)
			}
			reported := strings.Join(errs, "\n")
			if !strings.Contains(reported, "span end: "+tt.reported) || !strings.Contains(reported, "event: "+tt.reported) {
				t.Errorf("reported errors:\n%s\nwant the span's and the event's: %s", reported, tt.reported)
			}
			if strings.Contains(reported, "driver's error kept: true") {
				t.Errorf("an event kept the driver's error, whose PostgreSQL DETAIL quotes the row:\n%s", reported)
			}
			seen := strings.Join(spans, "\n") + "\n" + reported + "\n" + logs.String()
			if strings.Contains(strings.Join(spans, "\n"), "41") {
				t.Errorf("a number left the guest's call: %q", spans)
			}
			if tt.asName != "" && !strings.Contains(reported, "event: syntax: relation ? does not exist (SQLSTATE 42P01)") {
				t.Errorf("reported errors:\n%s\nwant the name the parameter gave left out", reported)
			}
			for _, secret := range []string{"secret-literal", "secret-comment", "ada@example.com", "secret-param", "secret-name"} {
				if strings.Contains(seen, secret) {
					t.Errorf("%q left the guest's call:\nspans: %q\nerrors:\n%s\nlog:\n%s", secret, spans, reported, logs)
				}
			}
		})
	}
}
