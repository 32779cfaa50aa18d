package host_test

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	"github.com/wasmendpoints/endpoints/internal/cputime"
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

// benchVariants are the implementations of GET /api/users/:id: native Go,
// then the guests in C, Go, AssemblyScript and Rust, served in production
// mode as `endpoints serve` would.
func benchVariants(b *testing.B) []variant {
	vs := []variant{{"native", nativeUsers(b)}}
	for _, app := range []struct{ name, dir string }{{"c", "users-c"}, {"go", "users"}, {"as", "users-as"}, {"rs", "users-rs"}} {
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

// interleave runs perRound calls of each variant per round, with workers
// goroutines, variants in turn for ten rounds, so that machine noise hits
// them alike. It returns each variant's calls per second.
func interleave(b *testing.B, n, workers int, call func(variant int) error) []float64 {
	rates, _ := interleaveCPU(b, n, workers, call)
	return rates
}

// interleaveCPU is interleave that also returns the process's CPU time
// per call of each variant, counted over its turns: what a call costs,
// which a machine busy with other work does not inflate as it does the
// rates (work done in another process, such as a database server's, is
// not counted).
func interleaveCPU(b *testing.B, n, workers int, call func(variant int) error) (rates []float64, cpu []time.Duration) {
	const rounds = 10
	perRound := max(b.N/rounds, workers)
	took, used := make([]time.Duration, n), make([]time.Duration, n)
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		for v := 0; v < n; v++ {
			var next atomic.Int64
			var wg sync.WaitGroup
			cpu0, start := cputime.Process(), time.Now()
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(perRound) {
						if err := call(v); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			took[v] += time.Since(start)
			used[v] += cputime.Process() - cpu0
		}
	}
	b.StopTimer()
	rates, cpu = make([]float64, n), make([]time.Duration, n)
	for v := range rates {
		rates[v] = float64(rounds*perRound) / took[v].Seconds()
		cpu[v] = used[v] / time.Duration(rounds*perRound)
	}
	return rates, cpu
}

// BenchmarkUsersGetHTTP measures GET /api/users/2 over loopback HTTP with
// keep-alive connections and reports the requests per second of each
// variant and their ratios to native, and the process's CPU time per
// request of each (client and server: the client's share is the same for
// all), which a busy machine skews less than the rates.
//
//	go test ./host -run '^$' -bench UsersGetHTTP -benchtime 20000x
func BenchmarkUsersGetHTTP(b *testing.B) {
	vs := benchVariants(b)
	rates, cpu := usersGetOverHTTP(b, vs)
	reportRates(b, rates, vs)
	for i, v := range vs {
		b.ReportMetric(float64(cpu[i].Nanoseconds()), v.name+"-cpu-ns/req")
	}
}

// BenchmarkUsersGetHandler measures the same request through ServeHTTP alone,
// without the HTTP server and client: the host's own overhead, undiluted.
//
//	go test ./host -run '^$' -bench UsersGetHandler -benchtime 20000x
func BenchmarkUsersGetHandler(b *testing.B) {
	vs := benchVariants(b)
	req := httptest.NewRequest("GET", "/api/users/2", nil)
	rates := interleave(b, len(vs), runtime.GOMAXPROCS(0), func(i int) error {
		rec := httptest.NewRecorder()
		// A Request belongs to one ServeHTTP call: the native baseline's
		// ServeMux records the matched pattern and path values in it, so
		// the workers must not share one. WithContext is a shallow copy,
		// one allocation, the same for every variant.
		vs[i].handler.ServeHTTP(rec, req.WithContext(req.Context()))
		if rec.Code != 200 {
			return fmt.Errorf("%s: status %d", vs[i].name, rec.Code)
		}
		return nil
	})
	reportRates(b, rates, vs)
}

func reportRates(b *testing.B, rates []float64, vs []variant) {
	for i, v := range vs {
		b.ReportMetric(rates[i], v.name+"-req/s")
		if i > 0 {
			b.ReportMetric(rates[i]/rates[0], v.name+"/"+vs[0].name)
		}
	}
	b.ReportMetric(0, "ns/op") // the per-variant rates above are the result
}
