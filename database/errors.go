package database

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/sqlredact"
)

// Code classifies a failed statement for the guest: the code of
// abi.DBError.
type Code string

// Codes of an [*Error]; their meaning is abi's (abi.DBCodeConstraint...).
const (
	CodeConstraint  Code = abi.DBCodeConstraint
	CodeSyntax      Code = abi.DBCodeSyntax
	CodeBusy        Code = abi.DBCodeBusy
	CodeUnavailable Code = abi.DBCodeUnavailable
	CodeTooLarge    Code = abi.DBCodeTooLarge
	CodeDenied      Code = abi.DBCodeDenied
	CodeTransaction Code = abi.DBCodeTransaction
	CodeOther       Code = abi.DBCodeOther
	CodeTimeout     Code = abi.DBCodeTimeout
)

// Kind says which constraint refused a change: the kind of abi.DBError.
type Kind string

// Kinds of a [CodeConstraint] [*Error]; their meaning is abi's
// (abi.DBKindUnique...). The zero Kind is a constraint the driver cannot
// tell.
const (
	KindUnique     Kind = abi.DBKindUnique
	KindForeignKey Kind = abi.DBKindForeignKey
	KindCheck      Kind = abi.DBKindCheck
	KindNotNull    Kind = abi.DBKindNotNull
	KindExclusion  Kind = abi.DBKindExclusion
)

// Error is a failed statement, as drivers report it and guests see it.
type Error struct {
	// Code classifies the failure.
	Code Code
	// Message is the database's (or the host's) message.
	Message string
	// Constraint names the constraint that refused a change, when the
	// database says ([CodeConstraint] only).
	Constraint string
	// Kind says which constraint it is, when the database says
	// ([CodeConstraint] only; zero otherwise).
	Kind Kind
	// Detail is the database's detail of the failure, as the server sent
	// it (PostgreSQL's DETAIL: "Key (email)=(ada@example.com) already
	// exists."), "" when there is none (SQLite has none). It quotes the
	// values of the row, so [Error.Redact] drops it: it is the guest's
	// alone.
	Detail string
	// Statement is the statement of a migration script that failed,
	// when the driver can tell.
	Statement string
	// SQLState is the SQLSTATE the server gave ("23505": PostgreSQL's),
	// "" when there is none (SQLite, the host's own errors).
	SQLState string
	// Redacted is Message as it may leave the guest's call, for traces,
	// logs and observers ([Error.Redact]): the values the database
	// quoted in its message (a bound parameter's, a literal's: "invalid
	// input syntax for type integer: ?") replaced by "?". A driver sets
	// it on each error whose Message holds the database's words; ""
	// says Message is the host's own, and holds no value.
	Redacted string
	// Err is the driver's error, if any.
	Err error
	// redacted marks an error Redact made, whose Error names its
	// SQLSTATE: the message no longer says all.
	redacted bool
}

func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Message
	if e.Statement != "" {
		s += " in the statement " + strconv.Quote(e.Statement)
	}
	if e.Constraint != "" {
		s += " (constraint " + e.Constraint + ")"
	}
	if e.redacted && e.SQLState != "" {
		s += " (SQLSTATE " + e.SQLState + ")"
	}
	return s
}

// RaisedMessage is what [Error.Redact] leaves of a message the app's own
// SQL raised (a trigger's RAISE on SQLite; PL/pgSQL's RAISE and ASSERT on
// PostgreSQL): its text is the app's expression, which may hold a value
// unquoted ("no test address ada@example.com"), so none of it leaves the
// guest's call.
const RaisedMessage = "a message raised by the app's SQL code (left out: it may hold values)"

// Redact returns e as it may leave the guest's call: its code, kind,
// constraint and SQLSTATE (which its Error names), and Message replaced
// by Redacted when the driver set it, without the driver's error then,
// and never with its Detail (PostgreSQL's DETAIL quotes the row: "Key
// (email)=(ada@example.com) already exists"). The guest itself gets e
// whole (ABI §4.5): the values are its own, and its answer may need
// them; what the host traces, logs and reports to observers is
// e.Redact().
//
//	e.Message  // invalid input syntax for type integer: "abc"
//	e.Redact() // other: invalid input syntax for type integer: ? (SQLSTATE 22P02)
func (e *Error) Redact() *Error {
	if e.Redacted == "" && e.Detail == "" {
		return e
	}
	r := *e
	r.Detail = ""
	if e.Redacted != "" {
		r.Message, r.Err, r.redacted = e.Redacted, nil, true
	}
	return &r
}

// Unwrap returns the driver's error.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of code with message.
func Errorf(code Code, message string) *Error { return &Error{Code: code, Message: message} }

// CodeOf is the code of err: its *Error's, [CodeUnavailable] for an error
// that is neither an *Error nor the end of ctx, [CodeOther] otherwise.
func CodeOf(err error) Code {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return CodeOther
	}
	return CodeUnavailable
}

// AsError is err as an *Error: itself, or one of [CodeOf]'s code with
// err's message (redacted by sqlredact.Message, for [Error.Redact]).
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeOf(err), Message: err.Error(), Redacted: sqlredact.Message(err.Error()), Err: err}
}

// redact sets e.Redacted from e.Message, which is the database's message
// msg (SQLite's: "near \"secret\": syntax error"), with the values it
// quotes replaced by "?" (sqlredact.Message), followed by what the host
// added to it, or a message of the host's instead of it.
func (e *Error) redact(msg string) {
	if rest, ok := strings.CutPrefix(e.Message, msg); ok {
		e.Redacted = sqlredact.Message(msg) + rest
	} else {
		e.Redacted = e.Message
	}
}
