package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
	"github.com/wasmendpoints/endpoints/openapi"
	"github.com/wasmendpoints/endpoints/storage"
)

// Problem is the Problem Details body (RFC 9457) of an Idempotency-Key
// failure, sent as application/problem+json (docs/spec.md §6).
//
//	{"type":"urn:endpoints:problem:idempotency-key-reused","title":"Idempotency-Key reused",
//	 "status":422,"detail":"...","code":"IDEMPOTENCY_KEY_REUSED"}
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Code   string `json:"code"`
}

// problemTitles are the titles of the failures by code.
var problemTitles = map[string]string{
	openapi.CodeKeyInvalid:       "Invalid Idempotency-Key",
	openapi.CodeKeyRequired:      "Idempotency-Key required",
	openapi.CodeKeyReused:        "Idempotency-Key reused",
	openapi.CodeInFlight:         "Request in flight",
	openapi.CodeLeaseLost:        "Idempotency lease lost",
	openapi.CodeStoreUnavailable: "Idempotency store unavailable",
}

// writeProblem answers an Idempotency-Key failure.
func writeProblem(w http.ResponseWriter, r *http.Request, status int, code, detail string) {
	p := Problem{
		Type:   "urn:endpoints:problem:" + strings.ReplaceAll(strings.ToLower(code), "_", "-"),
		Title:  problemTitles[code],
		Status: status,
		Detail: detail,
		Code:   code,
	}
	body, err := json.Marshal(p, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, "", nil)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// parseIdempotencyKey reads the Idempotency-Key header: one value of 1-255
// visible ASCII characters without commas, or the same as a quoted
// structured-field string (RFC 8941 §3.3.3), which is unquoted. The reason
// says what is wrong.
func parseIdempotencyKey(values []string) (key, reason string) {
	if len(values) != 1 {
		return "", fmt.Sprintf("send one Idempotency-Key header, not %d", len(values))
	}
	key = strings.TrimSpace(values[0])
	if strings.HasPrefix(key, `"`) {
		var b strings.Builder
		closed := false
		for i := 1; i < len(key); i++ {
			c := key[i]
			switch {
			case c == '\\' && i+1 < len(key) && (key[i+1] == '"' || key[i+1] == '\\'):
				b.WriteByte(key[i+1])
				i++
			case c == '"' && i == len(key)-1:
				closed = true
			case c < 0x20 || c > 0x7e || c == '"' || c == '\\':
				return "", "the quoted key is not a structured-field string (RFC 8941 §3.3.3)"
			default:
				b.WriteByte(c)
			}
		}
		if !closed {
			return "", "the quoted key has no closing quote"
		}
		key = b.String()
	}
	switch {
	case len(key) == 0:
		return "", "the key is empty"
	case len(key) > 255:
		return "", fmt.Sprintf("the key has %d characters; at most 255 are allowed", len(key))
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x21 || c > 0x7e || c == ',' {
			return "", fmt.Sprintf("the key holds %q at byte %d; only visible ASCII characters other than ',' are allowed", c, i)
		}
	}
	return key, ""
}

// storageKey is where a key's record lives: a hash of the app, the
// operation, the scope and the client's key, so the raw key is never
// stored and keys of different routes or clients never meet.
func storageKey(namespace, method, route, scope, key string) string {
	h := sha256.New()
	for _, s := range []string{namespace, method, route, scope, key} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fingerprint hashes the validated parts the contract names (params,
// query and body by default) as canonical JSON with sorted keys. A body
// with no decoded value counts by its raw bytes; an upload's files by
// their contents.
func (c *call) fingerprint(parts []string) (string, error) {
	if len(parts) == 0 {
		parts = []string{"params", "query", "body"}
	}
	h := sha256.New()
	buf := c.scratch[:0]
	for _, part := range parts {
		buf = append(buf[:0], part...)
		buf = append(buf, 0)
		switch part {
		case "params":
			buf = jsonvalue.AppendValue(buf, c.params)
		case "query":
			buf = jsonvalue.AppendValue(buf, c.query)
		case "body":
			switch {
			case c.body != nil:
				buf = jsonvalue.AppendValue(buf, c.body)
			case c.bodyRaw != nil:
				sum := sha256.Sum256(c.bodyRaw)
				buf = append(buf, sum[:]...)
			}
		}
		buf = append(buf, 0)
		h.Write(buf)
		if part == "body" && c.multipart != nil {
			for _, f := range c.multipart.Files {
				if _, err := io.Copy(h, f); err != nil {
					return "", fmt.Errorf("reading an uploaded file: %w", err)
				}
				f.Rewind()
			}
		}
	}
	c.scratch = buf
	return hex.EncodeToString(h.Sum(nil)), nil
}

// claimIdempotency runs step 6 of the pipeline for an operation that
// declares idempotency. It reports whether the guest may run; when not,
// the request was answered: a problem, or the replay of the first answer.
func (h *Host) claimIdempotency(w http.ResponseWriter, r *http.Request, c *call) bool {
	decl := c.op.contract.Idempotency
	values := r.Header.Values(openapi.IdempotencyHeader)
	if len(values) == 0 {
		if decl.Required {
			h.observeIdempotency(r, c, IdempotencyKeyMissing)
			writeProblem(w, r, http.StatusBadRequest, openapi.CodeKeyRequired, "this operation needs an Idempotency-Key header: a unique key per operation the client means once, such as a UUID")
			return false
		}
		return true
	}
	key, reason := parseIdempotencyKey(values)
	if reason != "" {
		h.observeIdempotency(r, c, IdempotencyKeyInvalid)
		writeProblem(w, r, http.StatusBadRequest, openapi.CodeKeyInvalid, reason)
		return false
	}
	fp, err := c.fingerprint(decl.Fingerprint)
	if err != nil {
		h.logger.Error("fingerprinting an idempotent request failed", "route", c.route.file, "error", err)
		writeError(w, r, http.StatusInternalServerError, "", nil)
		return false
	}
	scope := ""
	if hdr := c.set.opts.Idempotency.ScopeHeader; hdr != "" {
		scope = strings.Join(r.Header.Values(hdr), ",")
	}
	skey := storageKey(h.namespace, c.op.method, c.route.rf.Pattern(), scope, key)
	stored := c.startSpan(StepStore, "claim")
	claim, err := h.store.Claim(c, skey, fp, c.set.opts.Idempotency.lease())
	endSpan(stored, err)
	if err != nil {
		h.observeStoreError("claim", err)
		h.observeIdempotency(r, c, IdempotencyUnavailable)
		h.logger.Error("the idempotency store failed; refusing the request so it cannot run twice", "route", c.route.file, "error", err)
		w.Header().Set("Retry-After", "1")
		writeProblem(w, r, http.StatusServiceUnavailable, openapi.CodeStoreUnavailable, "the store that makes this operation idempotent cannot be reached; nothing ran, retry later with the same key")
		return false
	}
	if claim.Acquired {
		c.idemKey, c.idemLease = skey, claim.Lease
		h.observeIdempotency(r, c, IdempotencyClaimed)
		return true
	}
	rec := claim.Record
	switch {
	case rec.Fingerprint != fp:
		h.observeIdempotency(r, c, IdempotencyMismatch)
		writeProblem(w, r, http.StatusUnprocessableEntity, openapi.CodeKeyReused, "this Idempotency-Key was used for a different request; use a new key for a new request")
	case !rec.Completed:
		wait := max(1, int(math.Ceil(time.Until(rec.LeaseExpires).Seconds())))
		w.Header().Set("Retry-After", strconv.Itoa(wait))
		h.observeIdempotency(r, c, IdempotencyConflict)
		writeProblem(w, r, http.StatusConflict, openapi.CodeInFlight, "a request with this Idempotency-Key is still running; retry after it finishes")
	default:
		h.observeIdempotency(r, c, IdempotencyReplayed)
		replay(w, r, rec.Answer)
	}
	return false
}

// replay sends a stored answer again.
func replay(w http.ResponseWriter, r *http.Request, a storage.Answer) {
	h := w.Header()
	for k, vs := range a.Header {
		h[k] = slices.Clone(vs)
	}
	h.Set("Idempotent-Replayed", "true")
	bodyless := a.Status == http.StatusNoContent || a.Status == http.StatusNotModified || a.Status < 200
	if !bodyless {
		h.Set("Content-Length", strconv.Itoa(len(a.Body)))
	}
	w.WriteHeader(a.Status)
	if !bodyless && r.Method != http.MethodHead {
		_, _ = w.Write(a.Body)
	}
}

// maxReplayBody is the longest streamed answer kept for replay; a longer
// one is sent but not stored, and a retry runs the handler again.
const maxReplayBody = 1 << 20

// replayedHeaders are the response headers a replay repeats, besides those
// the contract declares for the status: what describes the stored body
// or the resource it made.
var replayedHeaders = []string{
	"Cache-Control", "Content-Language", "Content-Location", "Content-Type", "Etag",
	"Expires", "Last-Modified", "Link", "Location", "Vary",
}

// replayable reports whether an answer of status is stored for replay:
// 2xx and the contract's replayStatuses.
func (op *operation) replayable(status int) bool {
	return status >= 200 && status < 300 || slices.Contains(op.contract.Idempotency.ReplayStatuses, status)
}

// settleContext bounds the store calls made after the guest ran: they
// must happen even when the client has gone.
func settleContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
}

// completeIdempotency stores a finished answer for replay, or releases the
// key when the answer is not replayable. It reports whether the answer may
// be sent: false when the lease was lost, which it answered with a 409.
func (h *Host) completeIdempotency(w http.ResponseWriter, r *http.Request, c *call, status int, header http.Header, body []byte, sent bool) bool {
	if c.idemLease == "" {
		return true
	}
	ctx, cancel := settleContext(r)
	defer cancel()
	key, lease := c.idemKey, c.idemLease
	c.idemKey, c.idemLease = "", ""
	if !c.op.replayable(status) || sent && c.idemOverflow {
		h.release(ctx, r, c, key, lease)
		return true
	}
	kept := http.Header{}
	declared := c.op.contract.Responses[strconv.Itoa(status)]
	for name, vs := range header {
		if slices.Contains(replayedHeaders, name) || declared != nil && hasHeader(declared.Headers, name) {
			kept[name] = vs
		}
	}
	stored := c.startSpan(StepStore, "complete")
	err := h.store.Complete(ctx, key, lease, storage.Answer{Status: status, Header: kept, Body: body}, c.set.opts.Idempotency.replay())
	endSpan(stored, err)
	switch {
	case err == nil:
		h.observeIdempotency(r, c, IdempotencyStored)
	case errors.Is(err, storage.ErrLeaseLost):
		h.observeIdempotency(r, c, IdempotencyLeaseLost)
		h.logger.Error("the request ran past its idempotency lease; its answer is not stored", "route", c.route.file, "lease", c.set.opts.Idempotency.lease())
		if sent {
			return true
		}
		// The guest's headers are already on w: they described an answer
		// that will not be sent.
		clear(w.Header())
		if c.op.negotiates() {
			w.Header().Set("Vary", "Accept")
		}
		writeProblem(w, r, http.StatusConflict, openapi.CodeLeaseLost, fmt.Sprintf("the request ran past its %s lease, so another request may have taken its key; its answer was not kept", c.set.opts.Idempotency.lease()))
		return false
	default:
		h.observeStoreError("complete", err)
		h.logger.Error("storing an idempotent answer failed; a retry may run the handler again", "route", c.route.file, "error", err)
	}
	return true
}

// releaseIdempotency frees a key still held when the call ends without a
// stored answer: a guest failure, a broken contract, a refused answer.
func (h *Host) releaseIdempotency(r *http.Request, c *call) {
	if c.idemLease == "" {
		return
	}
	ctx, cancel := settleContext(r)
	defer cancel()
	key, lease := c.idemKey, c.idemLease
	c.idemKey, c.idemLease = "", ""
	h.release(ctx, r, c, key, lease)
}

func (h *Host) release(ctx context.Context, r *http.Request, c *call, key, lease string) {
	stored := c.startSpan(StepStore, "release")
	err := h.store.Release(ctx, key, lease)
	endSpan(stored, err)
	switch {
	case err == nil:
		h.observeIdempotency(r, c, IdempotencyReleased)
	case errors.Is(err, storage.ErrLeaseLost):
		h.observeIdempotency(r, c, IdempotencyLeaseLost)
		h.logger.Warn("the request ran past its idempotency lease", "route", c.route.file, "lease", c.set.opts.Idempotency.lease())
	default:
		h.observeStoreError("release", err)
		h.logger.Error("releasing an idempotency key failed; retries get 409 until its lease ends", "route", c.route.file, "error", err)
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

// kvError maps a store error to the ABI's errno.
func kvError(c *call, op string, err error) abi.Errno {
	switch {
	case errors.Is(err, storage.ErrNotInteger):
		return abi.ErrInvalid
	case errors.Is(err, storage.ErrFull):
		c.host.observeStoreError(op, err)
		c.logger.Warn("the key-value store is full", "route", c.route.file, "op", op)
		return abi.ErrUnavailable
	default:
		c.host.observeStoreError(op, err)
		c.logger.Error("the key-value store failed", "route", c.route.file, "op", op, "error", err)
		return abi.ErrUnavailable
	}
}
