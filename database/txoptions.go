package database

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
)

// Isolation is a transaction's isolation level, by the ABI's name
// ([abi.DBIsolationReadCommitted]...); [IsolationDefault] is the
// database's own.
type Isolation string

// Isolation levels of [TxOptions].
const (
	// IsolationDefault is the database's default level: READ COMMITTED
	// on PostgreSQL (unless the server's default_transaction_isolation
	// says otherwise); serializable on SQLite, whose transactions always
	// are.
	IsolationDefault Isolation = ""
	// IsolationReadCommitted: each statement sees what was committed
	// before it began. SQLite gives serializable.
	IsolationReadCommitted Isolation = abi.DBIsolationReadCommitted
	// IsolationRepeatableRead: one snapshot for the whole transaction.
	// SQLite gives serializable.
	IsolationRepeatableRead Isolation = abi.DBIsolationRepeatableRead
	// IsolationSerializable: as if the transaction ran alone; one that
	// cannot be serialized fails with [CodeBusy].
	IsolationSerializable Isolation = abi.DBIsolationSerializable
)

// isolations are the levels [DecodeTxOptions] accepts, in the order its
// error lists them.
var isolations = []Isolation{IsolationReadCommitted, IsolationRepeatableRead, IsolationSerializable}

// TxOptions are the options of a transaction ([DB.Begin]); the zero value
// is a read-write transaction at the database's default isolation, what
// db_begin opens.
type TxOptions struct {
	// Isolation is the isolation level; [IsolationDefault] is the
	// database's.
	Isolation Isolation
	// ReadOnly makes the transaction refuse writes, with [CodeDenied]
	// and a message saying the transaction is read-only. On SQLite it
	// also begins DEFERRED rather than IMMEDIATE: it takes no write lock,
	// and runs beside a writer and other read-only transactions.
	ReadOnly bool
}

// ReadOnlyMessage is the message of the error ([CodeDenied]) of a write in
// a read-only transaction, after the database's own words.
const ReadOnlyMessage = "the transaction is read-only (it began with readOnly): run writes in a transaction that is not"

// DecodeTxOptions decodes the options of db_begin_with (abi.DBTxOptions as
// JSON, abi/README.md §4.5): an object whose members are all optional;
// empty data is no options. An unknown member, a level it does not know,
// anything but such an object, or more than abi.DBTxOptionsMaxBytes of
// data is an error saying what was expected.
//
//	DecodeTxOptions([]byte(`{"isolation":"serializable","readOnly":true}`))
//	// TxOptions{Isolation: IsolationSerializable, ReadOnly: true}
func DecodeTxOptions(data []byte) (TxOptions, error) {
	var opts TxOptions
	if len(data) > abi.DBTxOptionsMaxBytes {
		// Decoded whole, megabytes of members would cost the host ten
		// times as much heap.
		return TxOptions{}, fmt.Errorf("transaction options: %d bytes, more than the %d an options object takes (abi.DBTxOptionsMaxBytes); want an object such as {\"isolation\":\"serializable\",\"readOnly\":true}", len(data), abi.DBTxOptionsMaxBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return opts, nil
	}
	// A map, not a struct: encoding/json matches a struct's field names
	// without regard to case, and "readonly" must be refused, not read
	// as readOnly.
	var members map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&members); err != nil || members == nil {
		var te *json.UnmarshalTypeError
		if err == nil || errors.As(err, &te) {
			return TxOptions{}, errors.New(`transaction options: want a JSON object such as {"isolation":"serializable","readOnly":true}`)
		}
		return TxOptions{}, fmt.Errorf(`transaction options: not valid JSON (%v); want an object such as {"isolation":"serializable","readOnly":true}`, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return TxOptions{}, errors.New(`transaction options: more than one JSON value; want one object such as {"isolation":"serializable","readOnly":true}`)
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		raw := members[name]
		switch name {
		case "isolation":
			var level string
			if json.Unmarshal(raw, &level) != nil {
				return TxOptions{}, fmt.Errorf("transaction options: isolation must be a string, one of %s", isolationList())
			}
			opts.Isolation = Isolation(level)
			if opts.Isolation != IsolationDefault && !slices.Contains(isolations, opts.Isolation) {
				return TxOptions{}, fmt.Errorf("transaction options: isolation %q is not a level; want one of %s", level, isolationList())
			}
		case "readOnly":
			if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, &opts.ReadOnly) != nil {
				return TxOptions{}, errors.New("transaction options: readOnly must be true or false")
			}
		default:
			return TxOptions{}, fmt.Errorf("transaction options: unknown member %q; the members are isolation and readOnly", name)
		}
	}
	return opts, nil
}

// isolationList is the levels, quoted: "read_committed", "repeatable_read"
// or "serializable".
func isolationList() string {
	q := make([]string, len(isolations))
	for i, l := range isolations {
		q[i] = fmt.Sprintf("%q", l)
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
