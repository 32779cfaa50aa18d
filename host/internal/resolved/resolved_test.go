package resolved

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/outbound"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/storage"
)

// input is an Input of endpoints.json's text, in development or not, and
// the settings given in code over it.
func input(t *testing.T, file string, dev bool, over func(*Input)) Input {
	t.Helper()
	cfg, err := config.Parse(config.File, []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Config: cfg, Limits: cfg.Limits, Server: cfg.Server, Outbound: cfg.Outbound, Idempotency: cfg.Idempotency,
		ResponseValidation: cfg.ResponseValidation, Development: dev, AppDir: t.TempDir(), SkipVariables: true,
		Store: storage.NewMemory(storage.MemoryOptions{}), Clients: &outbound.Clients{},
		WriteDocsError: func(w http.ResponseWriter, r *http.Request, status int, data any) { w.WriteHeader(status) }}
	if over != nil {
		over(&in)
	}
	return in
}

func TestNew(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		name  string
		file  string
		dev   bool
		over  func(*Input)
		check func(*Settings) string
	}{
		{"development: answers checked, the document and docs page served", `{}`, true, nil, func(s *Settings) string {
			if !s.Checked || !s.Served || s.Docs == nil || s.DocPath != config.DefaultOpenAPIPath {
				return "want answers checked, the document served at the default path, a docs page"
			}
			return ""
		}},
		{"production: neither", `{}`, false, nil, func(s *Settings) string {
			if s.Checked || s.Served || s.Docs != nil {
				return "want answers unchecked, no document, no docs page"
			}
			return ""
		}},
		{"the file's policy and openApi.enabled win over the mode", `{"responseValidation": "always", "openApi": {"enabled": true, "path": "/spec.json"}}`, false, nil,
			func(s *Settings) string {
				if !s.Checked || !s.Served || s.DocPath != "/spec.json" {
					return "want answers checked and the document served at /spec.json"
				}
				return ""
			}},
		{"the code's openApi over the file's", `{"openApi": {"enabled": true, "title": "File"}}`, true,
			func(in *Input) {
				in.OpenAPI = config.OpenAPI{Enabled: &off, Title: "Code"}
				in.ResponseValidation = config.ValidateNever
			},
			func(s *Settings) string {
				if s.Served || s.OpenAPI.Title != "Code" || s.Embedder.Title != "Code" || s.Checked {
					return "want the document off and titled Code, answers unchecked"
				}
				return ""
			}},
		{"defaults filled once", `{"limits": {"timeout": "3s"}, "idempotency": {"lease": "10s"}}`, false,
			func(in *Input) { in.OpenAPI = config.OpenAPI{Enabled: &on} },
			func(s *Settings) string {
				if s.Limits.Timeout != config.Duration(3*time.Second) || s.Limits.BodyBytes != config.DefaultBodyBytes {
					return "want the file's timeout and the default bodyBytes"
				}
				if s.Idempotency.Lease != 10*time.Second || s.Idempotency.Replay == 0 || s.Server.WriteTimeout == 0 {
					return "want the file's lease, the default replay window and write timeout"
				}
				return ""
			}},
		{"compression off", `{"server": {"compression": {"off": true}}}`, false, nil, func(s *Settings) string {
			if s.Compress != nil {
				return "want no compression policy"
			}
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(input(t, tc.file, tc.dev, tc.over))
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(s); msg != "" {
				t.Errorf("%+v: %s", s, msg)
			}
		})
	}
}

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		over func(*Input)
		want []string
	}{
		{"a compression level from the code", `{}`, func(in *Input) { in.Server.Compression.Level = "loudest" },
			[]string{"Options.Server.Compression.Level"}},
		{"rate limits on a store that keeps none", `{"rateLimits": {"api": {"limit": 10, "window": "1m"}}}`,
			func(in *Input) { in.Store = storeWithoutRateLimits{} }, []string{"rateLimits", "keeps no rate limits"}},
		{"an outbound allowlist from the code", `{}`, func(in *Input) { in.Outbound.AllowedHosts = []string{"ftp://nope"} },
			[]string{"outbound.allowedHosts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(input(t, tc.file, false, tc.over))
			for _, want := range tc.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("New = %v, want an error naming %q", err, want)
				}
			}
		})
	}
}

// storeWithoutRateLimits is a store that is no storage.RateLimiter.
type storeWithoutRateLimits struct{ storage.Store }

func TestShadowedBy(t *testing.T) {
	s, err := New(input(t, `{"openApi": {"path": "/openapi.json", "docs": {"path": "/docs"}}}`, true, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		want string // substring of the error; "" for none
	}{
		{"server/routes/openapi.json.wasm", "OpenAPI document"},
		{"server/routes/docs.wasm", "docs page"},
		{"server/api/users.get.wasm", ""},
		{"server/routes/[name].wasm", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rf, err := routefile.Parse(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got := s.ShadowedBy(rf)
			if (got == nil) != (tc.want == "") || got != nil && !strings.Contains(got.Error(), tc.want) {
				t.Errorf("ShadowedBy = %v, want %q", got, tc.want)
			}
		})
	}
}
