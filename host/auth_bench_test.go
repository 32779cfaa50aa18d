package host_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/crypto/bcrypt"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// BenchmarkAuthAndMiddleware measures what a bearer JWT check and a no-op
// middleware module cost per request, side by side with the same
// validated endpoint without them, through ServeHTTP (no HTTP server, so
// the host's own work is undiluted). It reports each variant's requests
// per second and its ratio to the plain one.
//
//	go test ./host -run '^$' -bench AuthAndMiddleware -benchtime 20000x
func BenchmarkAuthAndMiddleware(b *testing.B) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	priv := jose.JSONWebKey{Key: key, KeyID: "k1", Use: "sig"}
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{priv.Public()}})
	privJSON, _ := json.Marshal(priv)
	token, err := auth.MintDevToken(privJSON, map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix(), "scope": "users:read"})
	if err != nil {
		b.Fatal(err)
	}
	const contract = `{"request":{"params":{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}},
		"responses":{"200":{"schema":{"type":"object"}}}}`
	answer, write := watWrite(2048, `{"id":2,"name":"Grace Hopper"}`)
	handler := func(security string) watModule {
		c := contract
		if security != "" {
			c = c[:len(c)-1] + `,"security":` + security + `}`
		}
		return watModule{contract: c, handle: write + " (i32.const 0)", extra: answer}
	}
	type variant struct {
		name   string
		h      *host.Host
		header []string
	}
	serveOpts := host.Options{Mode: host.Production, Logger: discardLogger()}
	plain, _ := newApp(b).wat("server/api/users/[id].get.wasm", handler("")).host(serveOpts)
	mw, _ := newApp(b).wat("server/api/users/[id].get.wasm", handler("")).
		middleware("10-noop", mwModule{before: `(i32.const 0)`, after: `(i32.const 0)`}).host(serveOpts)
	opts := serveOpts
	opts.OpenAPI.Document = []byte(`{"components":{"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}}}}`)
	jwt, _ := newApp(b).wat("server/api/users/[id].get.wasm", handler(`[{"bearer":["users:read"]}]`)).
		file("auth/jwks.json", jwks).
		file("endpoints.json", []byte(`{"security":{"bearer":{"jwt":{"jwks":"auth/jwks.json"}}}}`)).host(opts)
	vs := []variant{
		{"plain", plain, nil},
		{"jwt-es256", jwt, []string{"Authorization", "Bearer " + token}},
		{"middleware", mw, nil},
	}
	for _, v := range vs {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/api/users/2", nil)
		for i := 0; i+1 < len(v.header); i += 2 {
			req.Header.Set(v.header[i], v.header[i+1])
		}
		v.h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("%s: %d %s", v.name, rec.Code, rec.Body)
		}
	}
	rates := interleave(b, len(vs), runtime.GOMAXPROCS(0), func(i int) error {
		req := httptest.NewRequest("GET", "/api/users/2", nil)
		for j := 0; j+1 < len(vs[i].header); j += 2 {
			req.Header.Set(vs[i].header[j], vs[i].header[j+1])
		}
		rec := httptest.NewRecorder()
		vs[i].h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			return fmt.Errorf("%s: status %d", vs[i].name, rec.Code)
		}
		return nil
	})
	for i, v := range vs {
		b.ReportMetric(rates[i], v.name+"-req/s")
		if i > 0 {
			b.ReportMetric(rates[i]/rates[0], v.name+"/plain")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkPasswordGuessing measures a real user's first login (a basic
// credential checked with bcrypt, cost 8) alone, then while 64 clients,
// each from its own address, guess passwords as fast as the server
// answers them: it reports both median and slowest latencies, their
// ratios, how many guesses were checked (401) or refused unchecked (429),
// and how many real logins failed (anything but 200: the request's
// deadline is 10 s). The failure budget and the bound on concurrent
// password checks are what keep the ratio small.
//
//	go test ./host -run '^$' -bench PasswordGuessing -benchtime 1x
func BenchmarkPasswordGuessing(b *testing.B) {
	const (
		users    = 40 // real logins: 20 quiet, 20 under attack, each a first login
		guessers = 64
		cost     = 8
	)
	hashes := map[string]map[string]string{}
	for i := range users {
		h, err := bcrypt.GenerateFromPassword(fmt.Appendf(nil, "password %d", i), cost)
		if err != nil {
			b.Fatal(err)
		}
		hashes[fmt.Sprintf("user%d", i)] = map[string]string{"bcrypt": string(h)}
	}
	usersJSON, _ := json.Marshal(hashes)
	secured := echoWithMarker
	secured.contract = `{"summary":"echo","security":[{"admin":[]}]}`
	opts := host.Options{Mode: host.Production, Logger: discardLogger()}
	opts.OpenAPI.Document = []byte(`{"components":{"securitySchemes":{"admin":{"type":"http","scheme":"basic"}}}}`)
	srv, _ := newApp(b).wat("server/api/me.get.wasm", secured).
		file("endpoints.json", fmt.Appendf(nil, `{"security": {"admin": {"basic": {"users": %s}}}, "trustedProxies": ["127.0.0.1"]}`, usersJSON)).
		serve(opts)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: guessers + 4}}
	get := func(user, pass, addr string) (int, time.Duration) {
		req, _ := http.NewRequest("GET", srv.URL+"/api/me", nil)
		req.SetBasicAuth(user, pass)
		req.Header.Set("X-Forwarded-For", addr)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return 0, time.Since(start)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, time.Since(start)
	}
	logins := func(from, to int) (median, slowest time.Duration, failed int) {
		var took []time.Duration
		for i := from; i < to; i++ {
			status, d := get(fmt.Sprintf("user%d", i), fmt.Sprintf("password %d", i), "198.51.100.1")
			if status != http.StatusOK {
				failed++
			}
			took = append(took, d)
		}
		slices.Sort(took)
		return took[len(took)/2], took[len(took)-1], failed
	}
	quietMedian, quietMax, _ := logins(0, users/2)

	stop := make(chan struct{})
	var checked, refused atomic.Int64
	var wg sync.WaitGroup
	for g := range guessers {
		wg.Go(func() {
			addr := fmt.Sprintf("10.%d.%d.1", g/250, g%250)
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				switch status, _ := get(fmt.Sprintf("user%d", n%users), fmt.Sprintf("guess %d", n), addr); status {
				case http.StatusUnauthorized:
					checked.Add(1)
				case http.StatusTooManyRequests:
					refused.Add(1)
				}
			}
		})
	}
	attackMedian, attackMax, failed := logins(users/2, users)
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(quietMedian.Microseconds())/1000, "quiet-median-ms")
	b.ReportMetric(float64(attackMedian.Microseconds())/1000, "attack-median-ms")
	b.ReportMetric(float64(attackMedian)/float64(quietMedian), "median-ratio")
	b.ReportMetric(float64(attackMax)/float64(quietMax), "slowest-ratio")
	b.ReportMetric(float64(checked.Load()), "guesses-checked")
	b.ReportMetric(float64(refused.Load()), "guesses-refused")
	b.ReportMetric(float64(failed), "logins-failed")
	b.ReportMetric(0, "ns/op")
}
