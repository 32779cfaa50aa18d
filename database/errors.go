package database

import (
	"context"
	"errors"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
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
	// Statement is the statement of a migration script that failed,
	// when the driver can tell.
	Statement string
	// Err is the driver's error, if any.
	Err error
}

func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Message
	if e.Statement != "" {
		s += " in the statement " + strconv.Quote(e.Statement)
	}
	if e.Constraint != "" {
		s += " (constraint " + e.Constraint + ")"
	}
	return s
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
// err's message.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeOf(err), Message: err.Error(), Err: err}
}
