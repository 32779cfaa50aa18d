package main

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestServeConfigOverrides: ENDPOINTS_* variables and --set flags replace
// settings of endpoints.json, --set winning; --log-level debug prints the
// configuration in effect (defaults filled in) with its secrets redacted;
// a misspelt variable is a warning that names the setting meant, a
// misspelt --set a usage error naming the settings.
func TestServeConfigOverrides(t *testing.T) {
	app := cApp(t)
	if code, out, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
	}
	t.Setenv("ENDPOINTS_OPEN_API_TITLE", "From the environment")
	t.Setenv("ENDPOINTS_LIMITS_BODY_BYTES", "16")
	t.Setenv("ENDPOINTS_STORAGE_URL", "redis://user:hunter2@127.0.0.1:1/0")
	t.Setenv("ENDPOINTS_LIMITS_BODYBYTES", "1")
	// A secret variable: its value never reaches the command's output.
	const secret = "cli-s3cret-51ab"
	t.Setenv("SVC_TOKEN", secret)
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr, done := &syncBuffer{}, &syncBuffer{}, make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", app, "--addr", "127.0.0.1:0", "--log-level", "debug",
			"--set", "openApi.enabled=true", "--set", "limits.bodyBytes=32", "--set", "storage.url=", "--set", "storage.driver=memory",
			"--set", `variables={"token": {"env": "SVC_TOKEN", "secret": true}}`}, stdout, stderr)
	}()
	addr := waitFor(t, stdout, regexp.MustCompile(`listening on (http://\S+)`), done)
	defer func() { cancel(); <-done }()
	out := stdout.String()
	for _, want := range []string{
		"effective configuration (endpoints.json, ", "/openApi/title from ENDPOINTS_OPEN_API_TITLE",
		"/limits/bodyBytes from --set limits.bodyBytes",
		`"bodyBytes": 32`,
		`"title": "From the environment"`,
		`"env": "SVC_TOKEN"`,
		`"timeout": "10s"`, // the default of limits.timeout, in effect
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if want := "warning: environment variable ENDPOINTS_LIMITS_BODYBYTES names no setting of endpoints.json and is ignored; did you mean ENDPOINTS_LIMITS_BODY_BYTES?"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	_, routesOut, routesErr := runCLI("routes", app)
	if all := out + stderr.String() + routesOut + routesErr; strings.Contains(all, secret) {
		t.Errorf("the secret variable's value appears in the output of serve or routes:\n%s", all)
	}
	if status, body := httpGet(t, addr+"/_endpoints/schema"); status != 200 || !strings.Contains(body, `"title": "From the environment"`) {
		t.Errorf("GET /_endpoints/schema = %d %.200s", status, body)
	}

	for _, v := range []string{"ENDPOINTS_STORAGE_URL", "ENDPOINTS_LIMITS_BODY_BYTES", "ENDPOINTS_OPEN_API_TITLE", "ENDPOINTS_LIMITS_BODYBYTES"} {
		os.Unsetenv(v)
	}
	for _, tt := range []struct {
		env, arg, want string
	}{
		{"", "limits.body=1", "--set limits.body: limits.body names no setting of endpoints.json"},
		{"", "limits.timeout=soon", "/limits/timeout"},
	} {
		args := []string{"serve", app, "--addr", "127.0.0.1:0"}
		if tt.env != "" {
			t.Setenv(tt.env, "1")
		}
		if tt.arg != "" {
			args = append(args, "--set", tt.arg)
		}
		code, _, errOut := runCLI(args...)
		if code == exitOK || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s %s: exit %d, %s; want an error saying %q", tt.env, tt.arg, code, errOut, tt.want)
		}
		if tt.env != "" {
			os.Unsetenv(tt.env) // t.Setenv restores it at the end
		}
	}
}

func TestRedact(t *testing.T) {
	got := redact("", map[string]any{
		"storage":  map[string]any{"url": "redis://u:pw@cache:6379/0"},
		"security": map[string]any{"s": map[string]any{"jwt": map[string]any{"secret": "abc", "issuer": "https://i.example"}}},
	})
	m := got.(map[string]any)
	if u := m["storage"].(map[string]any)["url"]; u != "redis://u:REDACTED@cache:6379/0" {
		t.Errorf("url = %v", u)
	}
	jwt := m["security"].(map[string]any)["s"].(map[string]any)["jwt"].(map[string]any)
	if jwt["secret"] != "REDACTED" || jwt["issuer"] != "https://i.example" {
		t.Errorf("jwt = %v", jwt)
	}
}

// TestRedactDatabaseURLs: a PostgreSQL password is redacted wherever the
// connection string holds it: the URL's user info, its password query
// parameter, or the keyword/value form, quoted or not; the rest stays.
func TestRedactDatabaseURLs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres://app:pw@db:5432/app?sslmode=disable", "postgres://app:REDACTED@db:5432/app?sslmode=disable"},
		{"postgres://app@db/app?sslmode=disable&password=pw", "postgres://app@db/app?sslmode=disable&password=REDACTED"},
		{"postgres://app@db/app?sslpassword=pw", "postgres://app@db/app?sslpassword=REDACTED"},
		{"host=db user=app password=pw dbname=app", "host=db user=app password=REDACTED dbname=app"},
		{"host=db password = 'p w\\'x' dbname=app", "host=db password = REDACTED dbname=app"},
		{"password=pw host=db", "password=REDACTED host=db"},
		{"host=db PASSWORD=pw", "host=db PASSWORD=REDACTED"},
		{"postgres://app@db/app?sslmode=disable", "postgres://app@db/app?sslmode=disable"},
		{"data/app.db", "data/app.db"},
		// Passwords Go's URL parser does not read as one: it fails on
		// them, or reads them as a port, a query or a fragment.
		{"postgres://app:pa%zz@db/app", "postgres://REDACTED@db/app"},
		{"postgres://app:pa#ss@db/app", "postgres://REDACTED@db/app"},
		{"postgres://app:#1234@db/app", "postgres://REDACTED@db/app"},
		{"postgres://app:?ss@db/app", "postgres://REDACTED@db/app"},
		{"postgres://app:p/ss@db/app", "postgres://REDACTED@db/app"},
		{"redis://:pa%zz@cache:6379/0", "redis://REDACTED@cache:6379/0"},
		{"redis://u:4321#zz@cache:6379/0", "redis://REDACTED@cache:6379/0"},
		// An '@' before the '#' too: Go reads user info (u:pq) and a host
		// (rs), the rest of the password as the fragment.
		{"redis://u:pq@rs#zz@cache:6379/0", "redis://REDACTED@cache:6379/0"},
		{"postgres://app:pq@rs#zz@db/app", "postgres://REDACTED@db/app"},
		// A query parameter whose value is not a valid escape.
		{"postgres://app@db/app?password=p%zz&sslmode=disable", "postgres://app@db/app?password=REDACTED&sslmode=disable"},
	} {
		got := redact("", map[string]any{"databases": map[string]any{"main": map[string]any{"url": tt.in}}})
		if u := got.(map[string]any)["databases"].(map[string]any)["main"].(map[string]any)["url"]; u != tt.want {
			t.Errorf("%s: got %v, want %s", tt.in, u, tt.want)
		}
	}
}
