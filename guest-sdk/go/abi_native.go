//go:build !wasip1

package endpoints

// Outside WebAssembly there is no host: the SDK's host functions are served
// by fake, an in-memory stand-in that follows the ABI's rules. It lets the
// package, and route packages, build and run their tests natively. A test
// of this package sets fake up for a request, calls handle and reads what
// was answered.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/hooks"
)

// fakeHost is the state of the native stand-in host. It is not safe for
// concurrent use, like a module instance.
type fakeHost struct {
	inRequest bool              // request functions answer ErrState otherwise
	envelope  []byte            // what request_read returns
	headers   map[string]string // raw request headers by lower-case name
	body      []byte            // the rest of the raw request body
	bodyErr   abi.Errno         // body_read's error once body is drained; 0 for none
	files     [][]byte          // the rest of each file file_read serves, by index
	fail      map[string]abi.Errno
	kvCalls   int // calls of the kv_* functions, which reach fakeKV

	status  int32
	header  Headers
	written []byte
	chunks  []string  // each response_write's bytes
	logs    []logLine // logs during a request; others go to stderr

	context   map[string]string // what context_set was given
	principal string            // what principal_set was given
}

// logLine is one call of the log host function.
type logLine struct {
	level abi.LogLevel
	msg   string
}

var fake = &fakeHost{}

// failing returns the error a test asked host function fn to return.
func (f *fakeHost) failing(fn string) (abi.Errno, bool) {
	e, ok := f.fail[fn]
	return e, ok
}

// fill copies a whole value into buf when it fits and returns its size,
// as request_read and request_header do.
func fill(buf []byte, value []byte) int32 {
	if len(value) <= len(buf) {
		copy(buf, value)
	}
	return int32(len(value))
}

func requestRead(buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportRequestRead); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	return fill(buf, fake.envelope)
}

func requestHeader(name string, buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportRequestHeader); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	v, ok := fake.headers[strings.ToLower(name)]
	if !ok {
		return int32(abi.ErrNotFound)
	}
	return fill(buf, []byte(v))
}

func bodyRead(buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportBodyRead); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	if len(fake.body) == 0 && fake.bodyErr != 0 {
		return int32(fake.bodyErr)
	}
	n := copy(buf, fake.body)
	fake.body = fake.body[n:]
	return int32(n)
}

func fileRead(index int32, buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportFileRead); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	if index < 0 || int(index) >= len(fake.files) {
		return int32(abi.ErrNotFound)
	}
	n := copy(buf, fake.files[index])
	fake.files[index] = fake.files[index][n:]
	return int32(n)
}

func responseSetStatus(status int32) int32 {
	if e, ok := fake.failing(abi.ImportResponseSetStatus); ok {
		return int32(e)
	}
	switch {
	case !fake.inRequest:
		return int32(abi.ErrState)
	case status < abi.ResponseStatusMin || status > abi.ResponseStatusMax:
		return int32(abi.ErrInvalid)
	case len(fake.written) > 0:
		return int32(abi.ErrHeadersSent)
	}
	fake.status = status
	return 0
}

func responseSetHeader(name, value string) int32 {
	if e := fake.checkHeader(abi.ImportResponseSetHeader, name, value); e != 0 {
		return int32(e)
	}
	fake.header.Set(name, value)
	return 0
}

func responseAddHeader(name, value string) int32 {
	if e := fake.checkHeader(abi.ImportResponseAddHeader, name, value); e != 0 {
		return int32(e)
	}
	fake.header.Add(name, value)
	return 0
}

// checkHeader applies the rules of response_set_header.
func (f *fakeHost) checkHeader(fn, name, value string) abi.Errno {
	if e, ok := f.failing(fn); ok {
		return e
	}
	switch {
	case !f.inRequest:
		return abi.ErrState
	case len(f.written) > 0:
		return abi.ErrHeadersSent
	case name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}):
		return abi.ErrInvalid
	case strings.ContainsAny(value, "\r\n\x00"):
		return abi.ErrInvalid
	case slices.ContainsFunc(abi.ForbiddenResponseHeaders, func(h string) bool { return strings.EqualFold(h, name) }):
		return abi.ErrInvalid
	}
	return 0
}

func responseWrite(buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportResponseWrite); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	fake.written = append(fake.written, buf...)
	fake.chunks = append(fake.chunks, string(buf))
	return 0
}

func hostLog(level abi.LogLevel, msg string) {
	if fake.inRequest {
		fake.logs = append(fake.logs, logLine{level, msg})
		return
	}
	fmt.Fprintf(os.Stderr, "%s %s\n", [...]string{"DEBUG", "INFO", "WARN", "ERROR"}[min(max(int(level), 0), 3)], msg)
}

// fakeKVEntry is one value of the native key-value store.
type fakeKVEntry struct {
	value   []byte
	ttl     int32     // the ttl_seconds of the kv_set that stored it
	expires time.Time // zero: never
}

// fakeKV is the native stand-in of the app's key-value store. Unlike the
// request functions, the kv functions answer outside a request too: tests
// of route packages call handlers directly, outside any request, and
// those handlers use KV. [Reset] empties it. Expiry follows fakeNow.
var fakeKV = map[string]fakeKVEntry{}

// fakeNow is the clock of fakeKV's expiry; tests may replace it.
var fakeNow = time.Now

// resetKV empties fakeKV and fakeVariables.
func resetKV() {
	fakeKV = map[string]fakeKVEntry{}
	fakeVariables = map[string]string{}
}

// fakeVariables are the app's variables in the native stand-in, which
// endpointstest.SetVariable declares. Like the kv functions, variable_get
// answers outside a request too, for tests that call handlers directly.
var fakeVariables = map[string]string{}

// setVariable declares the variable name with value in the stand-in, or
// with declared false removes it.
func setVariable(name, value string, declared bool) {
	if declared {
		fakeVariables[name] = value
	} else {
		delete(fakeVariables, name)
	}
}

func variableGet(name string, buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportVariableGet); ok {
		return int32(e)
	}
	v, ok := fakeVariables[name]
	if !ok {
		return int32(abi.ErrNotFound)
	}
	return fill(buf, []byte(v))
}

// kvLookup returns the live entry of key, dropping it once expired.
func kvLookup(key string) (fakeKVEntry, bool) {
	e, ok := fakeKV[key]
	if ok && !e.expires.IsZero() && !fakeNow().Before(e.expires) {
		delete(fakeKV, key)
		return fakeKVEntry{}, false
	}
	return e, ok
}

func kvGet(key string, buf []byte) int32 {
	fake.kvCalls++
	if e, ok := fake.failing(abi.ImportKVGet); ok {
		return int32(e)
	}
	e, ok := kvLookup(key)
	if !ok {
		return int32(abi.ErrNotFound)
	}
	return fill(buf, e.value)
}

func kvSet(key string, value []byte, ttlSeconds int32) int32 {
	fake.kvCalls++
	if e, ok := fake.failing(abi.ImportKVSet); ok {
		return int32(e)
	}
	if len(key) > abi.KVMaxKey || len(value) > abi.KVMaxValue {
		return int32(abi.ErrInvalid)
	}
	e := fakeKVEntry{value: bytes.Clone(value), ttl: ttlSeconds}
	if ttlSeconds > 0 {
		e.expires = fakeNow().Add(time.Duration(ttlSeconds) * time.Second)
	}
	fakeKV[key] = e
	return 0
}

func kvDelete(key string) int32 {
	fake.kvCalls++
	if e, ok := fake.failing(abi.ImportKVDelete); ok {
		return int32(e)
	}
	if _, ok := kvLookup(key); !ok {
		return int32(abi.ErrNotFound)
	}
	delete(fakeKV, key)
	return 0
}

func kvIncr(key string, delta int64, out *int64) int32 {
	fake.kvCalls++
	if e, ok := fake.failing(abi.ImportKVIncr); ok {
		return int32(e)
	}
	e, found := kvLookup(key)
	var n int64
	if found {
		var err error
		if n, err = strconv.ParseInt(string(e.value), 10, 64); err != nil {
			return int32(abi.ErrInvalid)
		}
	}
	sum := n + delta
	if delta > 0 && sum < n || delta < 0 && sum > n {
		return int32(abi.ErrInvalid) // overflow
	}
	e.value = strconv.AppendInt(nil, sum, 10)
	fakeKV[key] = e // keeps its expiry
	*out = sum
	return 0
}

func kvList(prefix, after string, buf []byte) int32 {
	fake.kvCalls++
	if e, ok := fake.failing(abi.ImportKVList); ok {
		return int32(e)
	}
	keys := []string{}
	for key := range fakeKV {
		if strings.HasPrefix(key, prefix) && key > after {
			if _, ok := kvLookup(key); ok {
				keys = append(keys, key)
			}
		}
	}
	slices.Sort(keys)
	b, err := json.Marshal(keys[:min(len(keys), abi.KVListLimit)])
	if err != nil {
		panic(err) // strings always encode
	}
	return fill(buf, b)
}

// The middleware functions of the native stand-in: request_set_header
// changes fake.headers, context_set and principal_set record what they
// were given.
func requestSetHeader(name, value string) int32 {
	if e, ok := fake.failing(abi.ImportRequestSetHeader); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	if fake.headers == nil {
		fake.headers = map[string]string{}
	}
	if value == "" {
		delete(fake.headers, strings.ToLower(name))
	} else {
		fake.headers[strings.ToLower(name)] = value
	}
	return 0
}

func contextSet(name, value string) int32 {
	if e, ok := fake.failing(abi.ImportContextSet); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	if fake.context == nil {
		fake.context = map[string]string{}
	}
	fake.context[name] = value
	return 0
}

func principalSet(b []byte) int32 {
	if e, ok := fake.failing(abi.ImportPrincipalSet); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	fake.principal = string(b)
	return 0
}

// The database functions of the native stand-in go to the database
// endpointstest.Database provides (hooks.DB); without one, every database
// is unknown (ErrNotFound), and the SDK's error says how to get one.
func dbRun(db, sql string, params []byte, exec bool) int32 {
	fn := abi.ImportDBQuery
	if exec {
		fn = abi.ImportDBExec
	}
	if e, ok := fake.failing(fn); ok {
		return int32(e)
	}
	if hooks.DB == nil {
		return int32(abi.ErrNotFound)
	}
	n, e := hooks.DB.Run([]byte(db), []byte(sql), params, exec)
	if e != 0 {
		return e
	}
	return int32(n)
}

func dbResult(buf []byte) int32 {
	if hooks.DB == nil {
		return int32(abi.ErrNotFound)
	}
	data, ok := hooks.DB.Result()
	if !ok {
		return int32(abi.ErrNotFound)
	}
	return fill(buf, data)
}

func dbBegin(db string) int32 {
	if e, ok := fake.failing(abi.ImportDBBegin); ok {
		return int32(e)
	}
	if hooks.DB == nil {
		return int32(abi.ErrNotFound)
	}
	return hooks.DB.Begin([]byte(db))
}

func dbBeginWith(db string, opts []byte) int32 {
	if e, ok := fake.failing(abi.ImportDBBeginWith); ok {
		return int32(e)
	}
	if hooks.DB == nil {
		return int32(abi.ErrNotFound)
	}
	return hooks.DB.BeginWith([]byte(db), opts)
}

func dbEnd(db string, commit bool) int32 {
	fn := abi.ImportDBRollback
	if commit {
		fn = abi.ImportDBCommit
	}
	if e, ok := fake.failing(fn); ok {
		return int32(e)
	}
	if hooks.DB == nil {
		return int32(abi.ErrNotFound)
	}
	return hooks.DB.End([]byte(db), commit)
}

// dbTimeout is db_timeout: the bound of the statements that follow, over
// the database endpointstest.Database provides; without one it bounds
// nothing, as every statement then fails.
func dbTimeout(ms int32) int32 {
	if e, ok := fake.failing(abi.ImportDBTimeout); ok {
		return int32(e)
	}
	if ms < 0 || ms > abi.DBTimeoutMax {
		return int32(abi.ErrInvalid)
	}
	if hooks.DB != nil {
		hooks.DB.SetTimeout(time.Duration(ms) * time.Millisecond)
	}
	return 0
}
