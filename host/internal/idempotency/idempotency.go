// Package idempotency is the Idempotency-Key step of the request pipeline
// (docs/spec.md §6): an operation that declares idempotency claims the
// client's key in the store before its guest runs, replays the stored
// answer to a retry, refuses a key reused for another request or still
// running, and stores (or releases) the key when the answer is known.
//
// [Step] holds what the step shares across requests (the store); [Call] is
// what it needs of the request it serves, which the host's pipeline
// implements; [Key] is the per-call state the call keeps for it. Failures
// are answered as Problem Details (RFC 9457, [Problem]).
package idempotency

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/pace"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/openapi"
	"github.com/wasmendpoints/endpoints/storage"
)

// Outcome is what the step did with a request, as the host's observer
// reports it (host.IdempotencyOutcome is its public name).
type Outcome string

// The outcomes of the step.
const (
	KeyMissing  Outcome = "key_missing"  // a required key was not sent: 400
	KeyInvalid  Outcome = "key_invalid"  // the key is malformed: 400
	Unavailable Outcome = "unavailable"  // the store failed: 503, nothing ran
	ClientQuota Outcome = "client_quota" // the client's share is full: 429, nothing ran
	Claimed     Outcome = "claimed"      // the key is the request's: the guest runs
	Replayed    Outcome = "replayed"     // the stored answer was sent again
	Conflict    Outcome = "conflict"     // a request with the key still runs: 409
	Mismatch    Outcome = "mismatch"     // the key was used for another request: 422
	Stored      Outcome = "stored"       // the answer was stored for replay
	Released    Outcome = "released"     // the key was freed, nothing stored
	LeaseLost   Outcome = "lease_lost"   // the request ran past its lease
)

// Config is the app's idempotency settings, defaults applied.
type Config struct {
	// ScopeHeader, when set, names a request header whose values are part
	// of the key's scope (each tenant has its keys).
	ScopeHeader string
	// Lease is how long a claimed key is the request's.
	Lease time.Duration
	// Replay is how long a stored answer is replayed.
	Replay time.Duration
}

// Call is what the step needs of the request it serves: the host's
// per-request call, which is also the context the store calls run under.
type Call interface {
	context.Context

	// Key is the call's idempotency state.
	Key() *Key
	// Contract is the operation's contract; its Idempotency is not nil.
	Contract() *abi.Contract
	// Operation is the operation's method and its route's pattern, which
	// scope a key.
	Operation() (method, pattern string)
	// File is the route's module, for log lines.
	File() string
	// Config is the app's idempotency settings.
	Config() Config
	// Parts are the validated request parts a fingerprint hashes.
	Parts() Parts
	// Principal is the client the host verified for the operation's
	// security (a built-in scheme or a verifier middleware), which scopes
	// the key: nil for an anonymous request.
	Principal() *abi.Principal
	// ClientAddress is the client's address as the rate limits and the
	// failed-credential budget count it (behind trusted proxies, an IPv6
	// address by its /64): whose share an anonymous request's record
	// counts against.
	ClientAddress() string
	// Scratch is the call's reusable buffer.
	Scratch() *[]byte
	// Negotiates reports whether the operation's answer depends on
	// Accept, so a Problem that replaces it says Vary: Accept.
	Negotiates() bool
	// ObserveIdempotency reports an outcome for r.
	ObserveIdempotency(r *http.Request, o Outcome)
	// ObserveStoreError reports a failed store operation op.
	ObserveStoreError(op string, err error)
	// StoreSpan begins the trace span of store operation op ("claim",
	// "complete", "release"); the function it returns ends it with the
	// operation's error. It returns nil when nothing traces the request.
	StoreSpan(op string) func(error)
}

// Key is the idempotency state of one call: the key it claimed and its
// lease, until the answer is stored or the key released; a streamed
// answer is copied for the store, unless longer than [MaxReplayBody]. The
// zero Key holds nothing; a call owns its Key and reuses it ([Key.Reset]).
type Key struct {
	key, lease string
	tee        bytes.Buffer
	overflow   bool
}

// Held reports whether the call holds a claimed key.
func (k *Key) Held() bool { return k.lease != "" }

// Reset empties the Key for the next request, keeping its buffer.
func (k *Key) Reset() {
	k.key, k.lease, k.overflow = "", "", false
	k.tee.Reset()
}

// Tee keeps a copy of streamed answer bytes for the store while a key is
// held; past MaxReplayBody it drops them, and the answer is not stored.
func (k *Key) Tee(data []byte) {
	if k.lease != "" && !k.overflow {
		if k.tee.Len()+len(data) > MaxReplayBody {
			k.overflow = true
			k.tee.Reset()
		} else {
			k.tee.Write(data)
		}
	}
}

// Streamed is the streamed answer kept by Tee.
func (k *Key) Streamed() []byte { return k.tee.Bytes() }

// MaxReplayBody is the longest streamed answer kept for replay; a longer
// one is sent but not stored, and a retry runs the handler again.
const MaxReplayBody = 1 << 20

// Step is the Idempotency-Key step of one host. Its fields are set once,
// before the host serves; it is then safe for concurrent use.
type Step struct {
	// Store keeps the keys' records.
	Store storage.Store
	// Namespace is the app's, part of every key's scope.
	Namespace string
	// Logger receives the step's failures.
	Logger *slog.Logger
	// WriteError answers with the host's error body of status, when the
	// step fails itself (500).
	WriteError func(w http.ResponseWriter, r *http.Request, status int)
	// ClientBytes is each client's share of the records
	// (storage.Client.MaxBytes): the bytes its records may take, in flight
	// and completed. Zero or less: no share.
	ClientBytes int64
}

// Claim runs step 8 of the pipeline for an operation that declares
// idempotency. It reports whether the guest may run; when not, the
// request was answered: a problem, or the replay of the first answer.
func (s *Step) Claim(w http.ResponseWriter, r *http.Request, c Call) bool {
	decl := c.Contract().Idempotency
	values := r.Header.Values(openapi.IdempotencyHeader)
	if len(values) == 0 {
		if decl.Required {
			c.ObserveIdempotency(r, KeyMissing)
			s.writeProblem(w, r, http.StatusBadRequest, openapi.CodeKeyRequired, "this operation needs an Idempotency-Key header: a unique key per operation the client means once, such as a UUID")
			return false
		}
		return true
	}
	key, reason := parseKey(values)
	if reason != "" {
		c.ObserveIdempotency(r, KeyInvalid)
		s.writeProblem(w, r, http.StatusBadRequest, openapi.CodeKeyInvalid, reason)
		return false
	}
	fp, err := fingerprint(c.Parts(), decl.Fingerprint, c.Scratch())
	if err != nil {
		s.Logger.Error("fingerprinting an idempotent request failed", "route", c.File(), "error", err)
		s.WriteError(w, r, http.StatusInternalServerError)
		return false
	}
	cfg := c.Config()
	scope := ""
	if hdr := cfg.ScopeHeader; hdr != "" {
		scope = strings.Join(r.Header.Values(hdr), ",")
	}
	method, pattern := c.Operation()
	skey := storageKey(s.Namespace, method, pattern, scope, c.Principal(), key)
	done := c.StoreSpan("claim")
	client := storage.Client{ID: clientID(c.Principal(), c.ClientAddress()), MaxBytes: s.ClientBytes}
	claim, err := s.Store.Claim(c, skey, fp, cfg.Lease, client)
	endSpan(done, err)
	if q := (*storage.QuotaError)(nil); errors.As(err, &q) {
		c.ObserveIdempotency(r, ClientQuota)
		pace.Refused(r.Context()) // server.refusalPause
		w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(q.RetryAfter)))
		s.writeProblem(w, r, http.StatusTooManyRequests, openapi.CodeClientQuota, fmt.Sprintf(
			"this client's Idempotency-Key records, kept for replay, take its whole share of the store (%d bytes); nothing ran. "+
				"Retry after Retry-After seconds, when its oldest record expires, and send a new key only for a new operation", q.MaxBytes))
		return false
	}
	if err != nil {
		c.ObserveStoreError("claim", err)
		c.ObserveIdempotency(r, Unavailable)
		s.Logger.Error("the idempotency store failed; refusing the request so it cannot run twice", "route", c.File(), "error", err)
		w.Header().Set("Retry-After", "1")
		detail := "the store that makes this operation idempotent cannot be reached; nothing ran, retry later with the same key"
		if errors.Is(err, storage.ErrFull) {
			// The store refuses new keys rather than evict an answer
			// still within its replay window (a retry of it would run
			// the handler twice): 503, not 507, since waiting helps.
			detail = "the store that makes this operation idempotent is full of answers kept for replay; nothing ran, retry later with the same key"
		}
		s.writeProblem(w, r, http.StatusServiceUnavailable, openapi.CodeStoreUnavailable, detail)
		return false
	}
	if claim.Acquired {
		k := c.Key()
		k.key, k.lease = skey, claim.Lease
		c.ObserveIdempotency(r, Claimed)
		return true
	}
	rec := claim.Record
	switch {
	case rec.Fingerprint != fp:
		c.ObserveIdempotency(r, Mismatch)
		s.writeProblem(w, r, http.StatusUnprocessableEntity, openapi.CodeKeyReused, "this Idempotency-Key was used for a different request; use a new key for a new request")
	case !rec.Completed:
		w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(time.Until(rec.LeaseExpires))))
		c.ObserveIdempotency(r, Conflict)
		s.writeProblem(w, r, http.StatusConflict, openapi.CodeInFlight, "a request with this Idempotency-Key is still running; retry after it finishes")
	default:
		c.ObserveIdempotency(r, Replayed)
		replay(w, r, rec.Answer)
	}
	return false
}

// retrySeconds is d as a Retry-After value: whole seconds, rounded up, at
// least 1.
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// replay sends a stored answer again.
func replay(w http.ResponseWriter, r *http.Request, a storage.Answer) {
	h := w.Header()
	for k, vs := range a.Header {
		h[k] = slices.Clone(vs)
	}
	h.Set("Idempotent-Replayed", "true")
	answer.Buffered(w, r, a.Status, "", a.Body)
}

// replayedHeaders are the response headers a replay repeats, besides those
// the contract declares for the status: what describes the stored body
// or the resource it made.
var replayedHeaders = []string{
	"Cache-Control", "Content-Language", "Content-Location", "Content-Type", "Etag",
	"Expires", "Last-Modified", "Link", "Location", "Vary",
}

// replayable reports whether an answer of status is stored for replay:
// 2xx and the contract's replayStatuses.
func replayable(decl *abi.Idempotency, status int) bool {
	return status >= 200 && status < 300 || slices.Contains(decl.ReplayStatuses, status)
}

// settleContext bounds the store calls made after the guest ran: they
// must happen even when the client has gone. Its values are the call's,
// so a store operation sees its own trace span (Call.StoreSpan).
func settleContext(c Call) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(c), 5*time.Second)
}

// Complete stores a finished answer for replay, or releases the key when
// the answer is not replayable; it does nothing when the call holds no
// key. It reports whether the answer may be sent: false when the lease
// was lost, which it answered with a 409. sent says the answer already
// went out (streamed), whose body the Key kept.
func (s *Step) Complete(w http.ResponseWriter, r *http.Request, c Call, status int, header http.Header, body []byte, sent bool) bool {
	k := c.Key()
	if k.lease == "" {
		return true
	}
	ctx, cancel := settleContext(c)
	defer cancel()
	key, lease := k.key, k.lease
	k.key, k.lease = "", ""
	contract := c.Contract()
	if !replayable(contract.Idempotency, status) || sent && k.overflow {
		s.release(ctx, r, c, key, lease)
		return true
	}
	kept := http.Header{}
	declared := contract.Responses[strconv.Itoa(status)]
	for name, vs := range header {
		if slices.Contains(replayedHeaders, name) || declared != nil && hasHeader(declared.Headers, name) {
			kept[name] = vs
		}
	}
	cfg := c.Config()
	done := c.StoreSpan("complete")
	err := s.Store.Complete(ctx, key, lease, storage.Answer{Status: status, Header: kept, Body: body}, cfg.Replay)
	endSpan(done, err)
	switch {
	case err == nil:
		c.ObserveIdempotency(r, Stored)
	case errors.Is(err, storage.ErrLeaseLost):
		c.ObserveIdempotency(r, LeaseLost)
		s.Logger.Error("the request ran past its idempotency lease; its answer is not stored", "route", c.File(), "lease", cfg.Lease)
		if sent {
			return true
		}
		// The guest's headers are already on w: they described an answer
		// that will not be sent.
		clear(w.Header())
		if c.Negotiates() {
			w.Header().Set("Vary", "Accept")
		}
		s.writeProblem(w, r, http.StatusConflict, openapi.CodeLeaseLost, fmt.Sprintf("the request ran past its %s lease, so another request may have taken its key; its answer was not kept", cfg.Lease))
		return false
	default:
		c.ObserveStoreError("complete", err)
		s.Logger.Error("storing an idempotent answer failed; a retry may run the handler again", "route", c.File(), "error", err)
	}
	return true
}

// Release frees a key still held when the call ends without a stored
// answer: a guest failure, a broken contract, a refused answer.
func (s *Step) Release(r *http.Request, c Call) {
	k := c.Key()
	if k.lease == "" {
		return
	}
	ctx, cancel := settleContext(c)
	defer cancel()
	key, lease := k.key, k.lease
	k.key, k.lease = "", ""
	s.release(ctx, r, c, key, lease)
}

func (s *Step) release(ctx context.Context, r *http.Request, c Call, key, lease string) {
	done := c.StoreSpan("release")
	err := s.Store.Release(ctx, key, lease)
	endSpan(done, err)
	switch {
	case err == nil:
		c.ObserveIdempotency(r, Released)
	case errors.Is(err, storage.ErrLeaseLost):
		c.ObserveIdempotency(r, LeaseLost)
		s.Logger.Warn("the request ran past its idempotency lease", "route", c.File(), "lease", c.Config().Lease)
	default:
		c.ObserveStoreError("release", err)
		s.Logger.Error("releasing an idempotency key failed; retries get 409 until its lease ends", "route", c.File(), "error", err)
	}
}

// hasHeader reports whether a declared header map names name, ignoring
// case.
func hasHeader[V any](declared map[string]V, name string) bool {
	for k := range declared {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// endSpan ends a span StoreSpan began, if it did.
func endSpan(end func(error), err error) {
	if end != nil {
		end(err)
	}
}
