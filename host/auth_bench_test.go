package host_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

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
