//go:build !wasip1

package endpoints

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

const schemaFailure = `{"kind":"schema","status":400,"part":"query",` +
	`"issues":{"query":[{"path":["limit"],"message":"must be <= 100"}],"body":[{"path":["tags",1],"message":"too long"}]},` +
	`"default":{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be <= 100"}]}}}`

// hookEnvelope is what the host hands the hook for failure.
func hookEnvelope(failure string) string {
	return `{"kind":"endpoint","method":"GET","route":"/r","path":"/r","rawQuery":"limit=500","error":` + failure + `}`
}

func TestValidationFailureDecoding(t *testing.T) {
	fresh(t)
	var got *ValidationFailure
	OnValidationError(func(f *ValidationFailure) (Reply, bool) {
		got = f
		return Reply{}, false
	})
	if resp := callFake(fakeRequest{envelope: hookEnvelope(schemaFailure)}, 400, onValidationError); resp.code != abi.HookDeclined {
		t.Fatalf("onValidationError() = %d, want %d; logs %v", resp.code, abi.HookDeclined, resp.logs)
	}
	want := &ValidationFailure{
		Kind: abi.FailureSchema, Status: 400, Part: "query",
		Issues: map[string][]abi.Issue{
			"query": {{Path: []any{"limit"}, Message: "must be <= 100"}},
			"body":  {{Path: []any{"tags", 1.0}, Message: "too long"}},
		},
		Default: json.RawMessage(`{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be <= 100"}]}}`),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("failure:\n got %+v\nwant %+v", got, want)
	}
}

func TestValidationErrorHook(t *testing.T) {
	mediaFailure := `{"kind":"media-type","status":415,"part":"body","received":"text/plain","supportedMediaTypes":["application/json"],` +
		`"default":{"statusCode":415,"statusMessage":"Unsupported Media Type"}}`
	for _, tc := range []struct {
		name       string
		hook       func(f *ValidationFailure) (Reply, bool)
		envelope   string
		status     int32 // the failure's, where the host starts
		wantCode   int32
		wantStatus int32
		wantHeader Headers
		wantBody   string
		wantLog    string // prefix of the one log line
	}{
		{
			name: "answered with another status, headers and a body",
			hook: func(f *ValidationFailure) (Reply, bool) {
				return Respond(422, map[string]any{"title": "Invalid " + f.Part, "issues": f.Issues["query"]}).
					WithHeader("Content-Type", "application/problem+json"), true
			},
			envelope: hookEnvelope(schemaFailure), status: 400,
			wantCode: abi.HookAnswered, wantStatus: 422,
			wantHeader: Headers{"content-type": {"application/problem+json"}},
			wantBody:   `{"issues":[{"path":["limit"],"message":"must be \u003c= 100"}],"title":"Invalid query"}`,
		},
		{
			name: "answered with the failure's status, wrapping the default body",
			hook: func(f *ValidationFailure) (Reply, bool) {
				return Respond(f.Status, map[string]any{"error": f.Default, "kind": f.Kind}), true
			},
			envelope: hookEnvelope(mediaFailure), status: 415,
			wantCode: abi.HookAnswered, wantStatus: 415, wantHeader: Headers{},
			wantBody: `{"error":{"statusCode":415,"statusMessage":"Unsupported Media Type"},"kind":"media-type"}`,
		},
		{
			name: "answered 200: the status is set although it is the handlers' default",
			hook: func(f *ValidationFailure) (Reply, bool) {
				return Bytes(200, "text/plain", []byte("fine")), true
			},
			envelope: hookEnvelope(schemaFailure), status: 400,
			wantCode: abi.HookAnswered, wantStatus: 200,
			wantHeader: Headers{"content-type": {"text/plain"}}, wantBody: "fine",
		},
		{
			name:     "declined: nothing written",
			hook:     func(f *ValidationFailure) (Reply, bool) { return Respond(500, "ignored"), false },
			envelope: hookEnvelope(schemaFailure), status: 400,
			wantCode: abi.HookDeclined, wantStatus: 400, wantHeader: Headers{},
		},
		{
			name:     "a panic is logged and fails the call",
			hook:     func(f *ValidationFailure) (Reply, bool) { panic("boom") },
			envelope: hookEnvelope(schemaFailure), status: 400,
			wantCode: hookFailed, wantStatus: 400, wantHeader: Headers{},
			wantLog: "endpoints: validation-error hook panicked: boom\ngoroutine",
		},
		{
			name:     "the zero Reply is an error",
			hook:     func(f *ValidationFailure) (Reply, bool) { return Reply{}, true },
			envelope: hookEnvelope(schemaFailure), status: 400,
			wantCode: hookFailed, wantStatus: 400, wantHeader: Headers{},
			wantLog: "endpoints: validation-error hook: the hook answered the zero Reply",
		},
		{
			name:     "a reply the host refuses is an error",
			hook:     func(f *ValidationFailure) (Reply, bool) { return Respond(999, nil), true },
			envelope: hookEnvelope(schemaFailure), status: 400,
			wantCode: hookFailed, wantStatus: 400, wantHeader: Headers{},
			wantLog: "endpoints: validation-error hook: status 999: host function response_set_status: invalid argument (-2)",
		},
		{
			name:     "an envelope without the failure is an error",
			hook:     func(f *ValidationFailure) (Reply, bool) { return Respond(400, nil), true },
			envelope: `{"kind":"endpoint","method":"GET"}`, status: 400,
			wantCode: hookFailed, wantStatus: 400, wantHeader: Headers{},
			wantLog: `endpoints: validation-error hook: the request envelope has no "error" member`,
		},
		{
			name:     "a failure that does not decode is an error",
			hook:     func(f *ValidationFailure) (Reply, bool) { return Respond(400, nil), true },
			envelope: hookEnvelope(`{"kind":"schema","status":"400"}`), status: 400,
			wantCode: hookFailed, wantStatus: 400, wantHeader: Headers{},
			wantLog: "endpoints: validation-error hook: decoding the request envelope: error: json: cannot unmarshal string",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			OnValidationError(tc.hook)
			resp := callFake(fakeRequest{envelope: tc.envelope}, tc.status, onValidationError)
			if resp.code != tc.wantCode {
				t.Errorf("onValidationError() = %d, want %d; logs %v", resp.code, tc.wantCode, resp.logs)
			}
			if resp.status != tc.wantStatus || !reflect.DeepEqual(resp.header, tc.wantHeader) || resp.body != tc.wantBody {
				t.Errorf("answer = %d %v %s, want %d %v %s", resp.status, resp.header, resp.body, tc.wantStatus, tc.wantHeader, tc.wantBody)
			}
			switch {
			case tc.wantLog == "" && len(resp.logs) > 0:
				t.Errorf("logs = %q, want none", resp.logs)
			case tc.wantLog != "" && (len(resp.logs) != 1 || resp.logs[0].level != abi.LogError || !strings.HasPrefix(resp.logs[0].msg, tc.wantLog)):
				t.Errorf("logs = %q, want one error starting with %q", resp.logs, tc.wantLog)
			}
		})
	}
}

func TestValidationErrorHookWithoutHook(t *testing.T) {
	fresh(t)
	resp := callFake(fakeRequest{envelope: hookEnvelope(schemaFailure)}, 400, onValidationError)
	want := []logLine{{abi.LogWarn, "endpoints: endpoints_on_validation_error was called, but the module registered no hook: declined"}}
	if resp.code != abi.HookDeclined || !slices.Equal(resp.logs, want) || resp.body != "" {
		t.Errorf("got code %d, logs %q, body %q; want %d, %q, no body", resp.code, resp.logs, resp.body, abi.HookDeclined, want)
	}
}

func TestRuntimeValidationErrorHook(t *testing.T) {
	fresh(t)
	defer resetRuntime()
	DeclareRuntime(Runtime{OnValidationError: func(f *ValidationFailure) (Reply, bool) {
		return Respond(f.Status, map[string]string{"app": f.Kind}), true
	}})
	if got, want := string(runtimeJSON()), `{"onValidationError":true}`; got != want {
		t.Errorf("declaration = %s, want %s", got, want)
	}
	resp := callFake(fakeRequest{envelope: hookEnvelope(schemaFailure)}, 400, onValidationError)
	if resp.code != abi.HookAnswered || resp.status != 400 || resp.body != `{"app":"schema"}` {
		t.Errorf("answer = code %d, %d %s; want %d, 400 {\"app\":\"schema\"} (logs %v)", resp.code, resp.status, resp.body, abi.HookAnswered, resp.logs)
	}
}

func TestOnValidationErrorContract(t *testing.T) {
	noop := func(*struct{}) Reply { return Respond(204, nil) }
	hook := func(*ValidationFailure) (Reply, bool) { return Reply{}, false }
	for _, tc := range []struct {
		name     string
		register func()
		want     string
	}{
		{"hook after the handler", func() {
			Handle(Operation{Summary: "s"}, noop)
			OnValidationError(hook)
		}, `{"summary":"s","onValidationError":true}`},
		{"hook before the handlers, every method", func() {
			OnValidationError(hook)
			Handle(Operation{Method: "GET"}, noop)
			Handle(Operation{Method: "DELETE"}, noop)
		}, `{"methods":{"delete":{"onValidationError":true},"get":{"onValidationError":true}}}`},
		{"no hook", func() { Handle(Operation{Summary: "s"}, noop) }, `{"summary":"s"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			tc.register()
			if got := string(ContractJSON()); got != tc.want {
				t.Errorf("contract = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestOnValidationErrorRegistration(t *testing.T) {
	hook := func(*ValidationFailure) (Reply, bool) { return Reply{}, false }
	for _, tc := range []struct {
		name     string
		register func()
		want     string
	}{
		{"nil hook", func() { OnValidationError(nil) }, "endpoints: OnValidationError: the hook is nil"},
		{"twice", func() {
			OnValidationError(hook)
			OnValidationError(hook)
		}, "endpoints: OnValidationError called twice: a module has one validation-error hook"},
		{"in a plain route", func() {
			HandleRaw(func(ResponseWriter, *RawRequest) {})
			OnValidationError(hook)
		}, "endpoints: OnValidationError called in a plain route (HandleRaw)"},
		{"HandleRaw after the hook", func() {
			OnValidationError(hook)
			HandleRaw(func(ResponseWriter, *RawRequest) {})
		}, "endpoints: HandleRaw called in a module that registered OnValidationError"},
		{"in the runtime module", func() {
			DeclareRuntime(Runtime{OnValidationError: hook})
			OnValidationError(hook)
		}, "endpoints: OnValidationError called in the runtime declaration module"},
		{"runtime hook after the module's", func() {
			OnValidationError(hook)
			DeclareRuntime(Runtime{OnValidationError: hook})
		}, "endpoints: DeclareRuntime: Runtime.OnValidationError in a module that called OnValidationError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			defer resetRuntime()
			got := func() (msg string) {
				defer func() {
					if v := recover(); v != nil {
						msg, _ = v.(string)
					}
				}()
				tc.register()
				return ""
			}()
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("panic = %q, want it to start with %q", got, tc.want)
			}
		})
	}
}
