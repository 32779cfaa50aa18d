package main

import (
	"strings"
	"testing"
)

// TestServeRefusesAMissingVariableBeforeLoading: serve of an app whose
// required variable has no value fails naming the variable and where it
// was looked for, and says nothing of modules loaded or ready before: a
// user who reads "ready" expects the server to start.
func TestServeRefusesAMissingVariableBeforeLoading(t *testing.T) {
	t.Parallel()
	app := writeApp(t, map[string]string{
		"endpoints.json":             `{"variables":{"webhookSecret":{"env":"ENDPOINTS_TEST_UNSET_WEBHOOK_SECRET","file":"secrets/webhook"}}}`,
		"server/api/orders.post.wat": endpointWAT(`{}`),
		"server/api/orders.get.wat":  endpointWAT(`{}`),
	})
	if code, out, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runCLI("serve", app, "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir())
	if code != exitError {
		t.Fatalf("serve = %d, want %d\n%s\n%s", code, exitError, out, errOut)
	}
	for _, want := range []string{"/variables/webhookSecret", "environment variable ENDPOINTS_TEST_UNSET_WEBHOOK_SECRET is unset or empty", "secrets/webhook does not exist"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("serve's error does not say %q:\n%s", want, errOut)
		}
	}
	for _, said := range []string{"loaded 1/", "loaded 2/", "compiled", "ready", "every route runs compiled code"} {
		if strings.Contains(out+errOut, said) {
			t.Errorf("serve said %q before failing on the variable:\n%s\n%s", said, out, errOut)
		}
	}
}
