package host_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/host"
)

// nativeUsers is GET /api/users/{id} written as a plain net/http handler
// doing what the host does for the guest: coerce the id, validate the
// params with the same JSON Schema through jsonschema/v6, and encode the
// user as JSON. It is the baseline of the benchmarks below.
func nativeUsers(tb testing.TB) http.Handler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}`)))
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.AddResource("params.json", doc); err != nil {
		tb.Fatal(err)
	}
	params := c.MustCompile("params.json")
	type user struct {
		ID    int    `json:"id"`
		Name  string `json:"name"`
		Email string `json:"email"`
	}
	users := map[int64]user{1: {1, "Ada Lovelace", "ada@example.com"}, 2: {2, "Grace Hopper", "grace@example.com"}, 3: {3, "Alan Turing", "alan@example.com"}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		raw := r.PathValue("id")
		var id any = raw
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			id = n
		}
		if err := params.Validate(map[string]any{"id": id}); err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":%q}]}}`, err.Error())
			return
		}
		u, ok := users[id.(int64)]
		status, body := 200, any(u)
		if !ok {
			status, body = 404, map[string]string{"message": fmt.Sprintf("user %d not found", id)}
		}
		b, _ := json.Marshal(body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(status)
		w.Write(b)
	})
	return mux
}

type variant struct {
	name    string
	handler http.Handler
}

// benchVariants are the three implementations of GET /api/users/:id, the
// guests served in production mode as `endpoints serve` would.
func benchVariants(b *testing.B) []variant {
	vs := []variant{{"native", nativeUsers(b)}}
	for _, app := range []struct{ name, dir string }{{"c", "users-c"}, {"go", "users"}} {
		h, err := host.New(b.Context(), builtExample(b, app.dir), host.Options{Mode: host.Production, CacheDir: testCacheDir(b), Logger: discardLogger()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close(b.Context()) })
		vs = append(vs, variant{app.name, h})
	}
	for _, v := range vs {
		rec := httptest.NewRecorder()
		v.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/api/users/2", nil))
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte("Grace Hopper")) {
			b.Fatalf("%s: GET /api/users/2 = %d %s", v.name, rec.Code, rec.Body)
		}
	}
	return vs
}

// BenchmarkUsersGetHTTP measures GET /api/users/2 over loopback HTTP with
// keep-alive connections, the three variants interleaved in rounds so that
// machine noise hits them alike, and reports requests per second of each and
// the ratios to native.
//
//	go test ./host -run '^$' -bench UsersGetHTTP -benchtime 20000x
func BenchmarkUsersGetHTTP(b *testing.B) {
	vs := benchVariants(b)
	type server struct {
		v      variant
		url    string
		client *http.Client
		took   time.Duration
		n      int
	}
	workers := 4 * runtime.GOMAXPROCS(0)
	var servers []*server
	for _, v := range vs {
		srv := httptest.NewServer(v.handler)
		b.Cleanup(srv.Close)
		tr := &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}
		b.Cleanup(tr.CloseIdleConnections)
		servers = append(servers, &server{v: v, url: srv.URL + "/api/users/2", client: &http.Client{Transport: tr}})
	}
	const rounds = 10
	perRound := max(b.N/rounds, workers)
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		for _, s := range servers {
			var next atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(perRound) {
						res, err := s.client.Get(s.url)
						if err != nil {
							b.Error(err)
							return
						}
						io.Copy(io.Discard, res.Body)
						res.Body.Close()
						if res.StatusCode != 200 {
							b.Errorf("%s: status %d", s.v.name, res.StatusCode)
							return
						}
					}
				}()
			}
			wg.Wait()
			s.took += time.Since(start)
			s.n += perRound
		}
	}
	b.StopTimer()
	reportRates(b, func(i int) float64 { return float64(servers[i].n) / servers[i].took.Seconds() }, vs)
}

// BenchmarkUsersGetHandler measures the same request through ServeHTTP alone,
// without the HTTP server and client: the host's own overhead, undiluted.
//
//	go test ./host -run '^$' -bench UsersGetHandler
func BenchmarkUsersGetHandler(b *testing.B) {
	vs := benchVariants(b)
	took := make([]time.Duration, len(vs))
	counts := make([]int, len(vs))
	const rounds = 10
	perRound := max(b.N/rounds, 100)
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		for i, v := range vs {
			var next atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for w := 0; w < runtime.GOMAXPROCS(0); w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req := httptest.NewRequest("GET", "/api/users/2", nil)
					for next.Add(1) <= int64(perRound) {
						rec := httptest.NewRecorder()
						v.handler.ServeHTTP(rec, req)
						if rec.Code != 200 {
							b.Errorf("%s: status %d", v.name, rec.Code)
							return
						}
					}
				}()
			}
			wg.Wait()
			took[i] += time.Since(start)
			counts[i] += perRound
		}
	}
	b.StopTimer()
	reportRates(b, func(i int) float64 { return float64(counts[i]) / took[i].Seconds() }, vs)
}

func reportRates(b *testing.B, rate func(i int) float64, vs []variant) {
	native := rate(0)
	for i, v := range vs {
		b.ReportMetric(rate(i), v.name+"-req/s")
		if i > 0 {
			b.ReportMetric(rate(i)/native, v.name+"/native")
		}
	}
	b.ReportMetric(0, "ns/op") // the per-variant rates above are the result
}
