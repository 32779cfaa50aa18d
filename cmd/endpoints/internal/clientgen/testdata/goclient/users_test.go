// Tests of the Go client generated for examples/users, run by
// TestGoClientEndToEnd (internal/clientgen/golang_e2e_test.go): it copies
// this file beside the generated client.go into a temporary module
// example.com/usersclient and runs go test there, with the address of the
// example app, served by the host, in ENDPOINTS_USERS_URL.
//
// The tests run in order on one app whose store starts with users 1-3.
package usersclient_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"example.com/usersclient"
)

func newClient(t *testing.T) *usersclient.Client {
	t.Helper()
	url := os.Getenv("ENDPOINTS_USERS_URL")
	if url == "" {
		t.Fatal("ENDPOINTS_USERS_URL is not set: run these tests with go test ./internal/clientgen -run TestGoClientEndToEnd")
	}
	c := usersclient.New(url)
	// Writes need a bearer token with the right scopes; the test passes
	// one minted with the example's development key.
	if token := os.Getenv("ENDPOINTS_USERS_TOKEN"); token != "" {
		c.Header = http.Header{"Authorization": {"Bearer " + token}}
	}
	return c
}

func TestUnauthorized(t *testing.T) {
	c := usersclient.New(os.Getenv("ENDPOINTS_USERS_URL"))
	res, err := c.PostAPIUsers(context.Background(), &usersclient.PostAPIUsersRequest{
		Body: usersclient.NewUser{Name: "Eve", Email: "eve@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Unauthorized == nil || res.Unauthorized.StatusCode != 401 || len(res.Unauthorized.Data.Schemes) != 1 || res.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("got %d %+v, want the typed 401 with its schemes and a challenge", res.Status, res.Unauthorized)
	}
}

func ptr[T any](v T) *T { return &v }

func TestGetUser(t *testing.T) {
	c := newClient(t)
	tests := []struct {
		name         string
		id           int64
		wantStatus   int
		wantName     string // of the 200 answer
		wantNotFound string // message of the 404 answer
	}{
		{name: "a seed user", id: 2, wantStatus: 200, wantName: "Grace Hopper"},
		{name: "no such user: a declared 404 is an answer, not an error", id: 99, wantStatus: 404, wantNotFound: "user 99 not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.GetAPIUsersByID(context.Background(), &usersclient.GetAPIUsersByIDRequest{ID: tt.id})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.wantStatus {
				t.Fatalf("Status = %d, want %d", res.Status, tt.wantStatus)
			}
			var gotName, gotNotFound string
			if res.OK != nil {
				gotName = res.OK.Name
			}
			if res.NotFound != nil {
				gotNotFound = res.NotFound.Message
			}
			if gotName != tt.wantName || gotNotFound != tt.wantNotFound {
				t.Errorf("OK.Name = %q, NotFound.Message = %q; want %q, %q", gotName, gotNotFound, tt.wantName, tt.wantNotFound)
			}
			if res.BadRequest != nil || res.InternalServerError != nil || res.ServiceUnavailable != nil {
				t.Errorf("another status field is set as well: %+v", res)
			}
		})
	}
}

func TestSearchUsers(t *testing.T) {
	c := newClient(t)
	t.Run("found", func(t *testing.T) {
		res, err := c.GetAPIUsersSearch(context.Background(), &usersclient.GetAPIUsersSearchRequest{Q: "hopper"})
		if err != nil {
			t.Fatal(err)
		}
		if res.OK == nil || res.OK.Total != 1 || len(res.OK.Items) != 1 || res.OK.Items[0].ID != 2 {
			t.Errorf("got %d %+v, want 200 with user 2 only", res.Status, res.OK)
		}
	})
	t.Run("an invalid query: the hook's Problem Details, told apart by Content-Type", func(t *testing.T) {
		res, err := c.GetAPIUsersSearch(context.Background(), &usersclient.GetAPIUsersSearchRequest{Q: "", Limit: ptr[int64](101)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != 400 || res.BadRequestProblemJSON == nil || res.BadRequestJSON != nil {
			t.Fatalf("got %d, problem %+v, default body %+v; want 400 with the problem only", res.Status, res.BadRequestProblemJSON, res.BadRequestJSON)
		}
		var got []string
		for _, e := range res.BadRequestProblemJSON.Errors {
			got = append(got, string(e.Part)+" "+e.Pointer)
		}
		if want := "query /limit, query /q"; strings.Join(got, ", ") != want {
			t.Errorf("errors %q, want %s", got, want)
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type = %q, want application/problem+json", ct)
		}
	})
}

func TestCreateAndPatchUser(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	created, err := c.PostAPIUsers(ctx, &usersclient.PostAPIUsersRequest{
		Body: usersclient.NewUser{Name: "Barbara Liskov", Email: "barbara@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if created.Created == nil || created.Created.Name != "Barbara Liskov" || created.IdempotencyKey != "" {
		t.Fatalf("got %d %+v key %q, want 201 with the user and no key", created.Status, created.Created, created.IdempotencyKey)
	}
	id := created.Created.ID
	patched, err := c.PatchAPIUsersByID(ctx, &usersclient.PatchAPIUsersByIDRequest{
		ID: id, Body: usersclient.UserPatch{Email: ptr("liskov@example.com")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if patched.OK == nil || patched.OK.Email != "liskov@example.com" || patched.OK.Name != "Barbara Liskov" {
		t.Errorf("got %d %+v, want 200 with the new email and the old name", patched.Status, patched.OK)
	}
	invalid, err := c.PostAPIUsers(ctx, &usersclient.PostAPIUsersRequest{
		Body: usersclient.NewUser{Name: "B", Email: "not-an-email"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if invalid.BadRequestJSON == nil || len(invalid.BadRequestJSON.Data.Body) != 1 || invalid.BadRequestJSON.StatusMessage != "Validation Error" {
		t.Errorf("got %d %+v, want 400 with one body issue", invalid.Status, invalid.BadRequestJSON)
	}
}

func TestPlaceOrder(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	order := usersclient.NewOrder{UserID: 1, Items: []usersclient.OrderItem{{Sku: "BOOK-42", Quantity: 2}}}

	t.Run("with a key: a retry replays the first order", func(t *testing.T) {
		req := &usersclient.PostAPIOrdersRequest{IdempotencyKey: "e2e-order-1", Body: order}
		first, err := c.PostAPIOrders(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := c.PostAPIOrders(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if first.Created == nil || again.Created == nil || again.Created.ID != first.Created.ID {
			t.Fatalf("got %d %+v then %d %+v, want 201 twice with one order", first.Status, first.Created, again.Status, again.Created)
		}
		if first.Replayed || !again.Replayed || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("Replayed = %v then %v (header %q), want false then true", first.Replayed, again.Replayed, again.Header.Get("Idempotent-Replayed"))
		}
	})
	t.Run("without a key: the client makes one and retries with it", func(t *testing.T) {
		req := &usersclient.PostAPIOrdersRequest{Body: order}
		first, err := c.PostAPIOrders(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
		if !uuid.MatchString(req.IdempotencyKey) || first.IdempotencyKey != req.IdempotencyKey {
			t.Fatalf("request key %q, response key %q; want one random UUID in both", req.IdempotencyKey, first.IdempotencyKey)
		}
		again, err := c.PostAPIOrders(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if first.Created == nil || again.Created == nil || again.Created.ID != first.Created.ID || !again.Replayed {
			t.Errorf("got %+v then %+v (replayed %v), want the first order replayed", first.Created, again.Created, again.Replayed)
		}
	})
	t.Run("the key with another body", func(t *testing.T) {
		other := usersclient.NewOrder{UserID: 2, Items: []usersclient.OrderItem{{Sku: "MUG-1", Quantity: 1}}}
		res, err := c.PostAPIOrders(ctx, &usersclient.PostAPIOrdersRequest{IdempotencyKey: "e2e-order-1", Body: other})
		if err != nil {
			t.Fatal(err)
		}
		if res.UnprocessableEntity == nil {
			t.Fatalf("got %d, want 422", res.Status)
		}
		p, err := res.UnprocessableEntity.AsEndpointsIdempotencyProblem()
		if err != nil || p.Code != usersclient.EndpointsIdempotencyProblemCodeIdempotencyKeyReused {
			t.Errorf("got %+v, %v; want code %s", p, err, usersclient.EndpointsIdempotencyProblemCodeIdempotencyKeyReused)
		}
	})
	t.Run("an unknown user: the handler's problem", func(t *testing.T) {
		unknown := usersclient.NewOrder{UserID: 99, Items: []usersclient.OrderItem{{Sku: "BOOK-42", Quantity: 1}}}
		res, err := c.PostAPIOrders(ctx, &usersclient.PostAPIOrdersRequest{Body: unknown})
		if err != nil {
			t.Fatal(err)
		}
		if res.UnprocessableEntity == nil {
			t.Fatalf("got %d, want 422", res.Status)
		}
		p, err := res.UnprocessableEntity.AsProblem()
		if err != nil || p.Type != "https://example.com/problems/no-such-user" || p.Detail != "user 99 not found" {
			t.Errorf("got %+v, %v; want the no-such-user problem", p, err)
		}
	})
}

func TestExportUsers(t *testing.T) {
	res, err := newClient(t).GetAPIUsersExport(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if res.OK == nil {
		t.Fatalf("got %d, want 200", res.Status)
	}
	data, err := io.ReadAll(res.OK)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 4 || lines[0] != "id,name,email" || lines[2] != "2,Grace Hopper,grace@example.com" {
		t.Errorf("got CSV %q, want the header and the users in id order", data)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("Content-Type = %q, want text/csv", ct)
	}
}

func TestClockEvents(t *testing.T) {
	res, err := newClient(t).GetAPIClock(context.Background(), &usersclient.GetAPIClockRequest{Count: ptr[int64](2)})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if res.OK == nil {
		t.Fatalf("got %d, want 200", res.Status)
	}
	var ticks []int64
	for ev, err := range res.OK.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != "tick" || ev.Data.Time.IsZero() {
			t.Errorf("got event %+v, want a tick with a time", ev)
		}
		ticks = append(ticks, ev.Data.Tick)
	}
	if len(ticks) != 2 || ticks[0] != 1 || ticks[1] != 2 {
		t.Errorf("ticks %v, want [1 2]", ticks)
	}
}

func TestAvatar(t *testing.T) {
	c := newClient(t)
	tests := []struct {
		name, accept, wantType, wantStart string
	}{
		{name: "the first type when Accept is empty", wantType: "image/png", wantStart: "\x89PNG"},
		{name: "negotiated", accept: "image/svg+xml", wantType: "image/svg+xml", wantStart: "<svg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.GetAPIUsersByIDAvatar(context.Background(), &usersclient.GetAPIUsersByIDAvatarRequest{ID: 1, Accept: tt.accept})
			if err != nil {
				t.Fatal(err)
			}
			defer res.Close()
			if res.OK == nil {
				t.Fatalf("got %d, want 200", res.Status)
			}
			data, err := io.ReadAll(res.OK)
			if err != nil {
				t.Fatal(err)
			}
			if ct := res.Header.Get("Content-Type"); ct != tt.wantType || !bytes.HasPrefix(data, []byte(tt.wantStart)) {
				t.Errorf("got %s starting %q, want %s starting %q", ct, data[:min(len(data), 8)], tt.wantType, tt.wantStart)
			}
		})
	}
}

func TestUploadPhoto(t *testing.T) {
	c := newClient(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	sum := sha256.Sum256(png)
	tests := []struct {
		name        string
		file        usersclient.File
		caption     *string
		wantStatus  int
		wantType    string // of the 201 answer
		wantProblem string // type of the 422 answer
	}{
		{name: "a PNG: its type detected", file: usersclient.File{Name: "me.png", Content: bytes.NewReader(png)},
			caption: ptr("me"), wantStatus: 201, wantType: "image/png"},
		{name: "text that says it is a PNG", file: usersclient.File{ContentType: "image/png", Content: strings.NewReader("not a png")},
			wantStatus: 422, wantProblem: "https://example.com/problems/not-an-image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.PostAPIUsersByIDPhoto(context.Background(), &usersclient.PostAPIUsersByIDPhotoRequest{
				ID: 1, Body: usersclient.PostAPIUsersByIDPhotoBody{Photo: tt.file, Caption: tt.caption},
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.wantStatus {
				t.Fatalf("Status = %d, want %d", res.Status, tt.wantStatus)
			}
			switch {
			case res.Created != nil:
				p := res.Created
				if string(p.ContentType) != tt.wantType || p.Sha256 != hex.EncodeToString(sum[:]) || p.Filename != "me.png" ||
					p.Caption == nil || *p.Caption != "me" {
					t.Errorf("got %+v, want the PNG's type, name, caption and hash", p)
				}
			case res.UnprocessableEntity != nil:
				if res.UnprocessableEntity.Type != tt.wantProblem {
					t.Errorf("problem type %q, want %q", res.UnprocessableEntity.Type, tt.wantProblem)
				}
			default:
				t.Errorf("no status field is set for %d", res.Status)
			}
		})
	}
}

// TestUndeclaredAnswers serves answers the contract does not declare: the
// client returns a ResponseError naming the status and holding the body.
func TestUndeclaredAnswers(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		wantErr     error
	}{
		{name: "an undeclared status", status: http.StatusTeapot, contentType: "text/plain", wantErr: usersclient.ErrUndeclaredStatus},
		{name: "a declared status in an undeclared media type", status: 400, contentType: "text/plain", wantErr: usersclient.ErrUndeclaredMediaType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				io.WriteString(w, "short and stout")
			}))
			defer srv.Close()
			res, err := usersclient.New(srv.URL).GetAPIUsersSearch(context.Background(), &usersclient.GetAPIUsersSearchRequest{Q: "x"})
			var re *usersclient.ResponseError
			if !errors.Is(err, tt.wantErr) || !errors.As(err, &re) || res != nil {
				t.Fatalf("got %+v, %v; want a ResponseError wrapping %v", res, err, tt.wantErr)
			}
			if re.Status != tt.status || string(re.Body) != "short and stout" || re.Operation != "GET /api/users/search" {
				t.Errorf("got %+v, want status %d, the body and the operation", re, tt.status)
			}
			if msg := err.Error(); !strings.Contains(msg, "short and stout") || !strings.Contains(msg, fmt.Sprintf("status %d", tt.status)) {
				t.Errorf("the message %q does not show the status and body", msg)
			}
		})
	}
}

// TestTransportFailure calls a server that is gone: an error, and no
// ResponseError.
func TestTransportFailure(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, err := usersclient.New(srv.URL).GetAPIUsersExport(context.Background())
	var re *usersclient.ResponseError
	if err == nil || errors.As(err, &re) || !strings.HasPrefix(err.Error(), "GET /api/users/export: ") {
		t.Errorf("got %v, want the transport's error after the operation", err)
	}
}
