package openapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// violation is one entry of the sl-violations header Prism adds to an
// answer it proxied: what in the request or the answer breaks the
// document.
type violation struct {
	Location []string        `json:"location"`
	Severity string          `json:"severity"`
	Code     json.RawMessage `json:"code"` // a string or a number
	Message  string          `json:"message"`
}

// prismAlters names the exchanges of the session Prism cannot forward as
// they are, and why: those are left out of the proxy's session (the
// validator's session has them all).
var prismAlters = map[string]string{
	// Prism parses a JSON body to validate it and does not forward one
	// it cannot parse: the request never reaches the host.
	"create with malformed JSON": "Prism does not forward a JSON body it cannot parse",
	// Prism forwards the JSON it parsed, re-encoded: the padding that
	// makes the body too large is gone, and the user is created.
	"create with a body over limits.bodyBytes": "Prism re-encodes JSON bodies, dropping the padding",
	// Prism forwards multipart bodies re-encoded as text: the PNG's
	// first byte (0x89) does not survive, and the host rightly answers
	// 422.
	"upload a photo": "Prism re-encodes multipart bodies as text, changing binary parts",
	// Prism parses the query string and forwards the parameters it kept,
	// re-encoded: the bad escape and the ';' never reach the host, which
	// answers the cleaned query 200.
	"search with a query that does not parse": "Prism forwards a query it parsed, re-encoded, not the bytes the client sent",
	"search with a ';' separator":             "Prism forwards a query it parsed, re-encoded, not the bytes the client sent",
}

// prismPicksFirstJSON reports whether Prism judged an answer of media type
// mediaType by the wrong schema: Prism matches media types ignoring their
// structured suffix and takes the first the response lists, so an
// application/problem+json answer is judged by the application/json
// schema listed before it (stoplightio/prism#2509).
func prismPicksFirstJSON(mediaType string) bool {
	return strings.HasSuffix(mediaType, "+json")
}

// TestValidatingProxyAgreesWithTheRuntime puts a validating proxy, Stoplight
// Prism (`prism proxy`, pinned in lint/package.json), between a client and
// the example app, loaded with the document the host serves, and runs the
// session of TestServedDocumentAgreesWithTheRuntime through it. Prism
// forwards every request and lists in the sl-violations header what breaks
// the document: the request must break it exactly when the host refused it,
// and no answer may break it, framework errors, 413s and the event stream
// included.
func TestValidatingProxyAgreesWithTheRuntime(t *testing.T) {
	prism, err := filepath.Abs(filepath.Join("lint", "node_modules", ".bin", "prism"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(prism); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs Prism (test.sh installs it with npm ci in tests/openapi/lint): %v", err)
		}
		t.Skipf("needs `npm ci` in tests/openapi/lint: %v", err)
	}
	srv, doc := serveUsers(t, "")
	docFile := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(docFile, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	proxy := startPrism(t, prism, docFile, srv.URL)

	client := &http.Client{Timeout: time.Minute}
	exchanges := session(t)
	// Prism forwards a body too large for the host when its size is in
	// a value, not in padding (see prismAlters): its request is valid,
	// its answer a 413.
	for i, x := range exchanges {
		if x.name == "create with a body over limits.bodyBytes" {
			long := x
			long.name = "create with a body over limits.bodyBytes, a long value"
			long.body = `{"name":"Ada","email":"` + strings.Repeat("a", 2<<20) + `@example.com"}`
			exchanges = slices.Insert(exchanges, i+1, long)
			break
		}
	}
	for _, x := range exchanges {
		t.Run(x.name, func(t *testing.T) {
			if why, ok := prismAlters[x.name]; ok {
				t.Skip(why)
			}
			res, err := client.Do(x.request(t, proxy))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != x.wantStatus {
				t.Fatalf("through the proxy the host answered %d %s, want %d", res.StatusCode, body, x.wantStatus)
			}
			var violations []violation
			if v := res.Header.Get("sl-violations"); v != "" {
				if err := json.Unmarshal([]byte(v), &violations); err != nil {
					t.Fatalf("sl-violations %q: %v", v, err)
				}
			}
			var request, answer []string
			for _, v := range violations {
				if v.Severity != "Error" {
					continue
				}
				line := strings.Join(v.Location, ".") + ": " + v.Message
				switch {
				case len(v.Location) > 0 && v.Location[0] == "request":
					request = append(request, line)
				case len(v.Location) > 1 && v.Location[1] == "body" && prismPicksFirstJSON(mediaType(res)):
					// Judged by another media type's schema; the
					// validator's session checks these bodies.
				default:
					answer = append(answer, line)
				}
			}
			if refused := x.refused(res.StatusCode); refused != (len(request) > 0) && !(x.multipart() && res.StatusCode == 400) {
				t.Errorf("the host answered %d %s; the proxy found these request violations: %q", res.StatusCode, body, request)
			}
			if len(answer) > 0 {
				t.Errorf("the answer %d %s breaks the document: %q", res.StatusCode, body, answer)
			}
		})
	}
}

// startPrism starts `prism proxy` on a free port, forwarding to upstream and
// judging by the document in docFile, and returns its URL once it listens.
func startPrism(t *testing.T, prism, docFile, upstream string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, prism, "proxy", docFile, upstream, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Dir = filepath.Dir(filepath.Dir(prism)) // node_modules
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })

	// Prism says when it listens; everything it prints is kept for a
	// failure's message.
	listening := make(chan struct{})
	var log strings.Builder
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(out)
		once := false
		for sc.Scan() {
			if !once {
				log.WriteString(sc.Text() + "\n")
			}
			if !once && strings.Contains(sc.Text(), "Prism is listening on") {
				once = true
				close(listening)
			}
		}
	}()
	select {
	case <-listening:
	case <-logDone:
		t.Fatalf("prism proxy exited before listening:\n%s", log.String())
	case <-time.After(2 * time.Minute):
		cancel()
		<-logDone
		t.Fatalf("prism proxy did not listen within two minutes:\n%s", log.String())
	}
	return "http://127.0.0.1:" + strconv.Itoa(port)
}

// mediaType is the media type of res's Content-Type, without parameters.
func mediaType(res *http.Response) string {
	mt, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(mt))
}
