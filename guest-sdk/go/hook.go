package endpoints

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/wasmendpoints/endpoints/abi"
)

// ValidationFailure is a request the host refused before the handler ran,
// as a validation-error hook receives it: its Kind ([abi.FailureSchema],
// [abi.FailureMediaType] or [abi.FailureAccept]), Status (400, 415 or
// 406), the failing Part, the schema Issues by part, what the client sent
// (Received) against the SupportedMediaTypes, and the Default body the
// host answers when every hook declines:
//
//	{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[...]}}
//
// It is the wire type of package abi itself, so the SDK and the host
// cannot disagree on its shape.
type ValidationFailure = abi.ValidationFailure

// OnValidationError registers the module's validation-error hook: the
// host calls it instead of the handler when a request fails validation
// (400), its body's media type (415) or content negotiation (406), and
// the hook may answer in its place. Call it once, from init. Every
// operation of the module's contract then says "onValidationError": true
// (docs/spec.md §4).
//
//	endpoints.OnValidationError(func(f *endpoints.ValidationFailure) (endpoints.Reply, bool) {
//		if f.Kind != abi.FailureSchema {
//			return endpoints.Reply{}, false // the default 406 or 415
//		}
//		return endpoints.Respond(422, Problem{Title: "Invalid input", Errors: f.Issues}), true
//	})
//
// Returning (reply, true) answers with reply, written as a handler's is:
// its status, headers and body. Returning (_, false) declines: the host
// tries the app's hook ([Runtime.OnValidationError]), then answers the
// default body.
//
// # Notes
//
//   - The reply's status is sent as it is, so a hook chooses it:
//     Respond(f.Status, body) keeps the failure's status, Respond(422,
//     body) answers 422. The zero Reply is an error, as for handlers.
//   - Declare the statuses and bodies the hook answers with in
//     [Operation.Responses] (the host checks them like a handler's, and
//     documents them).
//   - The failure has no validated values: the input did not pass.
//     [Header] and [Logger] work as in a handler.
//   - A hook that panics, or whose reply cannot be written, is logged
//     and the call fails: the host discards the instance and goes on
//     with the next hook or the default body.
//   - A plain route has no validation and no hook; the runtime
//     declaration module sets [Runtime.OnValidationError] instead.
func OnValidationError(hook func(f *ValidationFailure) (Reply, bool)) {
	reg.routeOnly(Operation{}, "OnValidationError")
	switch {
	case hook == nil:
		reg.fail(Operation{}, errors.New("OnValidationError: the hook is nil"))
	case reg.hook != nil:
		reg.fail(Operation{}, errors.New("OnValidationError called twice: a module has one validation-error hook"))
	case reg.raw != nil:
		reg.fail(Operation{}, errors.New("OnValidationError called in a plain route (HandleRaw): the host validates only endpoints"))
	case runtimeDecl.decl.OnValidationError != nil:
		reg.fail(Operation{}, errors.New("OnValidationError called in the runtime declaration module, whose hook is Runtime.OnValidationError"))
	}
	reg.hook = hook
	reg.contract = nil
}

// hookFailed is what the endpoints_on_validation_error export returns when
// the hook failed: neither [abi.HookAnswered] nor [abi.HookDeclined], so
// the host treats it as a guest failure.
const hookFailed = 2

// onValidationError is the body of the endpoints_on_validation_error
// export: it runs the runtime declaration's hook in the runtime module,
// the module's own hook anywhere else.
func onValidationError() int32 {
	hook := reg.hook
	if h := runtimeDecl.decl.OnValidationError; h != nil {
		hook = h
	}
	if hook == nil {
		hostLog(abi.LogWarn, "endpoints: "+abi.ExportOnValidationError+" was called, but the module registered no hook: declined")
		return abi.HookDeclined
	}
	return runHook(hook)
}

// runHook reads the failure, runs hook and writes its reply.
func runHook(hook func(*ValidationFailure) (Reply, bool)) (code int32) {
	defer func() {
		if v := recover(); v != nil {
			hostLog(abi.LogError, fmt.Sprintf("endpoints: validation-error hook panicked: %v\n%s", v, debug.Stack()))
			code = hookFailed
		}
	}()
	defer endRequest()
	answered, err := serveHook(hook)
	switch {
	case err != nil:
		hostLog(abi.LogError, "endpoints: validation-error hook: "+err.Error())
		return hookFailed
	case !answered:
		return abi.HookDeclined
	}
	return abi.HookAnswered
}

func serveHook(hook func(*ValidationFailure) (Reply, bool)) (bool, error) {
	envelope, err := readEnvelope()
	if err != nil {
		return false, err
	}
	beginRequest(envelope)
	raw, err := findMember(envelope, keyError)
	if err != nil {
		return false, fmt.Errorf("decoding the request envelope: %w", err)
	}
	if raw == nil || isNull(raw) {
		return false, fmt.Errorf("the request envelope has no %q member", keyError)
	}
	// encoding/json here: failures are rare, and their issues nest.
	f := new(ValidationFailure)
	if err := json.Unmarshal(raw, f); err != nil {
		return false, fmt.Errorf("decoding the request envelope: %s: %w", keyError, err)
	}
	reply, ok := hook(f)
	if !ok {
		return false, nil
	}
	if reply.status == 0 {
		return false, errors.New("the hook answered the zero Reply: build it with endpoints.Respond(f.Status, body), or return false to decline")
	}
	return true, writeReply(reply, envelope, f.Status)
}
