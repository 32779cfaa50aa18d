package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/storage"
)

// A valid W3C traceparent and its trace id.
const (
	testTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	testTraceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
)

// TestTraceIDReachesGuestAndEvent: the trace id of a request's valid
// traceparent is the envelope's traceId and the RequestEvent's TraceID;
// an invalid traceparent gives neither.
func TestTraceIDReachesGuestAndEvent(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	events := map[string]string{} // X-Request-Id to TraceID
	srv, _ := newApp(t).
		wat("server/api/echo.get.wasm", watModule{contract: `{}`, handle: echoEnvelope}).
		wat("server/routes/plain.get.wasm", watModule{handle: echoEnvelope}).
		serve(host.Options{Observer: &host.Observer{Request: func(e host.RequestEvent) {
			mu.Lock()
			events[e.RequestID] = e.TraceID
			mu.Unlock()
		}}})
	for _, tt := range []struct {
		name        string
		traceparent []string
		want        string
	}{
		{"valid", []string{testTraceparent}, testTraceID},
		{"none", nil, ""},
		{"two headers", []string{testTraceparent, testTraceparent}, ""},
		{"upper case", []string{strings.ToUpper(testTraceparent)}, ""},
		{"version 01", []string{"01" + testTraceparent[2:]}, ""},
		{"version ff", []string{"ff" + testTraceparent[2:]}, ""},
		{"trace id all zeros", []string{"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}, ""},
		{"parent id all zeros", []string{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"}, ""},
		{"too long", []string{testTraceparent + "-00"}, ""},
		{"too short", []string{testTraceparent[:54]}, ""},
		{"not hex", []string{"00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01"}, ""},
		{"wrong separator", []string{"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}, ""},
	} {
		for _, path := range []string{"/api/echo", "/plain"} {
			t.Run(tt.name+" "+path, func(t *testing.T) {
				id := strings.ReplaceAll(tt.name, " ", "-") + path
				headers := []string{"X-Request-Id", id}
				for _, v := range tt.traceparent {
					headers = append(headers, "Traceparent", v)
				}
				res := do(t, srv, "GET", path, "", headers...)
				var env struct {
					TraceID   *string `json:"traceId"`
					RequestID string  `json:"requestId"`
				}
				if err := json.Unmarshal([]byte(res.body), &env); err != nil {
					t.Fatalf("%d %s: %v", res.status, res.body, err)
				}
				switch {
				case tt.want == "" && env.TraceID != nil:
					t.Errorf("envelope traceId %q, want none", *env.TraceID)
				case tt.want != "" && (env.TraceID == nil || *env.TraceID != tt.want):
					t.Errorf("envelope %s, want traceId %q", res.body, tt.want)
				}
				// The Request hook ran before the answer reached the client.
				mu.Lock()
				got, ok := events[id]
				mu.Unlock()
				if !ok || got != tt.want {
					t.Errorf("RequestEvent.TraceID = %q (reported: %v), want %q", got, ok, tt.want)
				}
			})
		}
	}
}

// spanKey marks the context a test Span hook returns.
type spanKey struct{}

// TestSpanHook: the Span hook sees the validation, the guest call and the
// store operations of a request, a guest's store operations begin in the
// guest's context, and each step ends once, with why it failed.
func TestSpanHook(t *testing.T) {
	t.Parallel()
	type step struct {
		name, parent string
		err          bool
	}
	var (
		mu       sync.Mutex
		steps    []step
		storeCtx []string // the span each store operation's context carried
	)
	observer := &host.Observer{Span: func(ctx context.Context, e host.SpanEvent) (context.Context, func(error)) {
		name := e.Step + " " + e.Method + " " + e.Route
		if e.Op != "" {
			name += " " + e.Op
		}
		if e.Module != "" {
			name += " " + e.Module
		}
		parent, _ := ctx.Value(spanKey{}).(string)
		ended := false
		return context.WithValue(ctx, spanKey{}, name), func(err error) {
			mu.Lock()
			defer mu.Unlock()
			if ended {
				t.Errorf("%s ended twice", name)
			}
			ended = true
			steps = append(steps, step{name, parent, err != nil})
		}
	}}
	kvData, kvCode := `  (data (i32.const 3000) "hits")`+"\n", `(drop (call $kv_incr (i32.const 3000) (i32.const 4) (i64.const 1) (i32.const 3008)))`
	h, _ := newApp(t).
		wat("server/api/users/[id].get.wasm", watModule{
			contract: `{"request":{"params":{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}}}`,
			handle:   kvCode + " " + plainOK, extra: okData + kvData}).
		wat("server/api/orders.post.wasm", watModule{contract: `{"idempotency":{"required":true}}`, handle: plainOK, extra: okData}).
		wat("server/api/trap.get.wasm", watModule{contract: `{}`, handle: `(unreachable)`}).
		wat("server/api/limited.get.wasm", watModule{contract: `{}`, handle: plainOK, extra: okData}).
		wat("server/api/mw.get.wasm", watModule{contract: `{}`, handle: plainOK, extra: okData}).
		wat("server/api/keyed.get.wasm", watModule{contract: `{"security":[{"partners":[]}]}`, handle: plainOK, extra: okData}).
		middleware("10-mw", mwModule{
			decl:   `{"routes":["/api/mw"]}`,
			data:   []string{"mw-hits"},
			before: `(drop (call $kv_incr $0 (i64.const 1) (i32.const 8000))) (i32.const 0)`,
		}).
		file("endpoints.json", []byte(`{"rateLimits": {"few": {"routes": ["/api/limited"], "limit": 3, "window": "1m"}},
			"security": {"partners": {"apiKey": {"store": true}}}}`)).
		host(host.Options{Observer: observer, Store: spanStore{Memory: storage.NewMemory(storage.MemoryOptions{}), mu: &mu, seen: &storeCtx}})
	key := "partner-key-1"
	if err := h.PutAPIKey(context.Background(), host.APIKey{SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(key))), Subject: "acme"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		method, path string
		headers      []string
		status       int
		want         []step
	}{
		// The stored API key is read in a store span of the request.
		{"GET", "/api/keyed", []string{"X-API-Key", key}, 200, []step{
			{"store GET /api/keyed get", "", false},
			{"validate GET /api/keyed", "", false},
			{"guest GET /api/keyed server/api/keyed.get.wasm", "", false},
		}},
		{"GET", "/api/users/2", nil, 200, []step{
			{"validate GET /api/users/:id", "", false},
			{"store GET /api/users/:id incr", "guest GET /api/users/:id server/api/users/[id].get.wasm", false},
			{"guest GET /api/users/:id server/api/users/[id].get.wasm", "", false},
		}},
		{"GET", "/api/users/0", nil, 400, []step{{"validate GET /api/users/:id", "", true}}},
		{"GET", "/api/trap", nil, 500, []step{
			{"validate GET /api/trap", "", false},
			{"guest GET /api/trap server/api/trap.get.wasm", "", true},
		}},
		{"GET", "/api/limited", nil, 200, []step{
			{"store GET /api/limited take", "", false},
			{"validate GET /api/limited", "", false},
			{"guest GET /api/limited server/api/limited.get.wasm", "", false},
		}},
		{"GET", "/api/mw", nil, 200, []step{
			{"store GET /api/mw incr", "guest GET /api/mw endpoints_before server/middleware/10-mw.wasm", false},
			{"guest GET /api/mw endpoints_before server/middleware/10-mw.wasm", "", false},
			{"validate GET /api/mw", "", false},
			{"guest GET /api/mw server/api/mw.get.wasm", "", false},
		}},
		{"POST", "/api/orders", []string{"Idempotency-Key", "k1"}, 200, []step{
			{"validate POST /api/orders", "", false},
			{"store POST /api/orders claim", "", false},
			{"guest POST /api/orders server/api/orders.post.wasm", "", false},
			{"store POST /api/orders complete", "", false},
		}},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			mu.Lock()
			steps, storeCtx = nil, nil
			mu.Unlock()
			r := mustRequest(t, tt.method, tt.path)
			for i := 0; i+1 < len(tt.headers); i += 2 {
				r.Header.Set(tt.headers[i], tt.headers[i+1])
			}
			w := newRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(steps, tt.want) {
				t.Errorf("steps\n got %+v\nwant %+v", steps, tt.want)
			}
			// The store is given its operation's span context, so that
			// a store that traces its own work nests it there.
			var stores []string
			for _, s := range tt.want {
				if strings.HasPrefix(s.name, host.StepStore+" ") {
					stores = append(stores, s.name)
				}
			}
			if !slices.Equal(storeCtx, stores) {
				t.Errorf("the store's contexts carried the spans %q, want %q", storeCtx, stores)
			}
		})
	}
}

// TestJoinObserversSpan: joined Span hooks nest, the second in the first's
// context, and end in reverse order.
func TestJoinObserversSpan(t *testing.T) {
	t.Parallel()
	var log []string
	hook := func(name string) func(context.Context, host.SpanEvent) (context.Context, func(error)) {
		return func(ctx context.Context, e host.SpanEvent) (context.Context, func(error)) {
			parent, _ := ctx.Value(spanKey{}).(string)
			log = append(log, "start "+name+" in "+parent)
			return context.WithValue(ctx, spanKey{}, name), func(error) { log = append(log, "end "+name) }
		}
	}
	o := host.JoinObservers(&host.Observer{Span: hook("a")}, nil, &host.Observer{}, &host.Observer{Span: hook("b")})
	ctx, end := o.Span(context.Background(), host.SpanEvent{Step: host.StepGuest})
	end(nil)
	if got := ctx.Value(spanKey{}); got != "b" {
		t.Errorf("context of the joined hook holds %v, want b's", got)
	}
	want := []string{"start a in ", "start b in a", "end b", "end a"}
	if !slices.Equal(log, want) {
		t.Errorf("got %q, want %q", log, want)
	}
}

// spanStore records the span (spanKey) the context of each of its
// operations carries.
type spanStore struct {
	*storage.Memory
	mu   *sync.Mutex
	seen *[]string
}

func (s spanStore) record(ctx context.Context) {
	name, _ := ctx.Value(spanKey{}).(string)
	s.mu.Lock()
	*s.seen = append(*s.seen, name)
	s.mu.Unlock()
}

func (s spanStore) Get(ctx context.Context, ns, key string) ([]byte, bool, error) {
	s.record(ctx)
	return s.Memory.Get(ctx, ns, key)
}

func (s spanStore) Incr(ctx context.Context, ns, key string, delta int64) (int64, error) {
	s.record(ctx)
	return s.Memory.Incr(ctx, ns, key, delta)
}

func (s spanStore) Claim(ctx context.Context, key, fingerprint string, lease time.Duration, client storage.Client) (storage.Claim, error) {
	s.record(ctx)
	return s.Memory.Claim(ctx, key, fingerprint, lease, client)
}

func (s spanStore) Complete(ctx context.Context, key, lease string, a storage.Answer, replay time.Duration) error {
	s.record(ctx)
	return s.Memory.Complete(ctx, key, lease, a, replay)
}

func (s spanStore) Take(ctx context.Context, key string, rate storage.Rate) (storage.Decision, error) {
	s.record(ctx)
	return s.Memory.Take(ctx, key, rate)
}
