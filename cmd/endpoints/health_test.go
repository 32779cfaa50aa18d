package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealth runs `endpoints health URL`, the image's HEALTHCHECK, against
// a server answering as /readyz does, ready or not, and against nothing.
func TestHealth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/readyz":
			w.Write([]byte(`{"status":"ready","checks":{"routes":"ok"}}` + "\n"))
		case "/moved":
			http.Redirect(w, r, "/readyz", http.StatusFound)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"status":"unavailable","checks":{"store":"redis down"}}` + "\n"))
		}
	}))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/readyz"
	ln.Close()

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string
		wantStderr string
	}{
		{"ready", []string{"health", srv.URL + "/readyz"}, 0, `200 OK {"status":"ready"`, ""},
		{"unavailable names the failed check", []string{"health", srv.URL + "/unready"}, exitError, "", `503 Service Unavailable {"status":"unavailable","checks":{"store":"redis down"}}`},
		{"a redirect is not health", []string{"health", srv.URL + "/moved"}, exitError, "", "302 Found"},
		{"nothing listening", []string{"health", closed}, exitError, "", "connection refused"},
		{"not a URL", []string{"health", "127.0.0.1:9090/readyz"}, exitUsage, "", "want an http or https URL"},
		{"no URL", []string{"health"}, exitUsage, "", "want exactly one URL"},
		{"bad timeout", []string{"health", "--timeout", "0s", srv.URL}, exitUsage, "", "want a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(tt.args...)
			if code != tt.wantCode || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("endpoints %s = %d\nstdout %q (want %q)\nstderr %q (want %q)", strings.Join(tt.args, " "), code, out, tt.wantOut, errOut, tt.wantStderr)
			}
		})
	}
}
