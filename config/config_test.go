package config_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	_ "github.com/wasmendpoints/endpoints/storage/redis" // the driver the errors list
)

func TestParse(t *testing.T) {
	cfg, err := config.Parse("endpoints.json", []byte(`{
		"openApi": {"title": "Users API", "version": "1.2.0", "path": "/openapi.json",
			"description": "Users and their orders.", "servers": [{"url": "/", "description": "This server"}]},
		"limits": {"bodyBytes": 65536, "memoryBytes": 33554432, "timeout": "2s", "instances": 4, "instanceIdleTimeout": "1m"},
		"responseValidation": "always"}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OpenAPI.Title != "Users API" || cfg.OpenAPI.Path != "/openapi.json" || cfg.OpenAPI.Enabled != nil {
		t.Errorf("openApi = %+v", cfg.OpenAPI)
	}
	if o := cfg.OpenAPI; o.Description != "Users and their orders." || len(o.Servers) != 1 || o.Servers[0] != (config.OpenAPIServer{URL: "/", Description: "This server"}) {
		t.Errorf("openApi description and servers = %q %+v", o.Description, o.Servers)
	}
	if l := cfg.Limits; l.BodyBytes != 65536 || l.MemoryBytes != 32<<20 || time.Duration(l.Timeout) != 2*time.Second || l.Instances != 4 || time.Duration(l.InstanceIdleTimeout) != time.Minute {
		t.Errorf("limits = %+v", l)
	}
	if cfg.ResponseValidation != config.ValidateAlways {
		t.Errorf("responseValidation = %q", cfg.ResponseValidation)
	}
	for _, b := range []string{"true", "false"} {
		cfg, err := config.Parse("endpoints.json", []byte(`{"openApi": `+b+`}`))
		if err != nil || cfg.OpenAPI.Enabled == nil || *cfg.OpenAPI.Enabled != (b == "true") {
			t.Errorf("openApi %s: %+v, %v", b, cfg, err)
		}
	}
}

func TestParseBuild(t *testing.T) {
	tests := []struct {
		name, json string
		want       config.Build
	}{
		{"absent", `{}`, config.Build{}},
		{"null", `{"build": null}`, config.Build{}},
		{"command alone", `{"build": {"command": "make wasm"}}`, config.Build{Command: "make wasm"}},
		{"command and globs", `{"build": {"command": "npm run asbuild", "watch": ["assembly/**/*.ts", "package.json", "**", "src/[a-z]?.ts"]}}`,
			config.Build{Command: "npm run asbuild", Watch: []string{"assembly/**/*.ts", "package.json", "**", "src/[a-z]?.ts"}}},
		{"goBundle alone: no command needed", `{"build": {"goBundle": false}}`, config.Build{GoBundle: new(false)}},
		{"goBundle with a command", `{"build": {"command": "make", "goBundle": true}}`, config.Build{Command: "make", GoBundle: new(true)}},
		{"goBundles alone: no command needed", `{"build": {"goBundles": {"admin": ["handlers/admin/**"], "hooks-2": ["webhooks/*"]}}}`,
			config.Build{GoBundles: map[string][]string{"admin": {"handlers/admin/**"}, "hooks-2": {"webhooks/*"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse("endpoints.json", []byte(tt.json))
			if err != nil {
				t.Fatalf("Parse(%s): %v", tt.json, err)
			}
			if got := cfg.Build; got.Command != tt.want.Command || !slices.Equal(got.Watch, tt.want.Watch) || got.BundlesGo() != tt.want.BundlesGo() {
				t.Errorf("build = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"unknown top-level key", `{"limts": {}}`, `unknown key "limts"; allowed here: openApi, limits, responseValidation, storage, idempotency, build, server, security, cors, rateLimits, trustedProxies, variables`},
		{"unknown key of a rate limit", `{"rateLimits": {"few": {"limit": 1, "window": "1m", "per": "ip"}}}`, `/rateLimits/few/per: unknown key "per"; allowed here: routes, methods, limit, window, burst, key`},
		{"unknown docs key", `{"openApi": {"docs": {"theme": "dark"}}}`, `unknown key "theme"; allowed here: path, assets`},
		{"unknown nested key", `{"limits": {"body": 1}}`, `/limits`},
		{"bad duration", `{"limits": {"timeout": "soon"}}`, `"soon" is not a positive duration`},
		{"bad maxTimeout", `{"limits": {"maxTimeout": "0s"}}`, `/limits/maxTimeout: "0s" is not a positive duration`},
		{"duration as a number", `{"limits": {"timeout": 5}}`, `/limits/timeout: want a duration string such as "2s" or "500ms", got 5`},
		{"a size with a decimal unit", `{"limits": {"bodyBytes": "1MB"}}`, `/limits/bodyBytes: "1MB": write "1MiB" for a binary size (1 MiB is 1048576 bytes) or a plain number of bytes`},
		{"a size of the wrong type", `{"limits": {"bodyBytes": true}}`, `/limits/bodyBytes: want a number of bytes or a size such as "1MiB", got a boolean`},
		{"a size that is no size", `{"storage": {"maxBytes": "lots"}}`, `/storage/maxBytes: "lots" is not a size`},
		{"a fraction of a byte", `{"limits": {"responseBytes": "0.5B"}}`, `/limits/responseBytes: "0.5B" is not a whole number of bytes`},
		{"a fractional count", `{"limits": {"instances": 1.5}}`, `/limits/instances: want a whole number, got a number (1.5)`},
		{"a string for a count", `{"limits": {"instances": "8"}}`, `/limits/instances: want a whole number, got a string`},
		{"a string for a list", `{"trustedProxies": "10.0.0.1"}`, `/trustedProxies: want an array of strings, got a string`},
		{"a number for a boolean", `{"variables": {"x": {"env": "X", "secret": 1}}}`, `/variables/x/secret: want true or false, got a number`},
		{"a rate limit without a limit", `{"rateLimits": {"orders": {"window": "1m"}}}`, `/rateLimits/orders/limit: required: a positive number of requests per window, got 0`},
		{"a rate limit without a window", `{"rateLimits": {"orders": {"limit": 10}}}`, `/rateLimits/orders/window: required`},
		{"a rate limit with a bad name", `{"rateLimits": {"or ders": {"limit": 1, "window": "1m"}}}`, `/rateLimits/or ders: a policy name is a token`},
		{"a rate limit with a negative burst", `{"rateLimits": {"o": {"limit": 1, "window": "1m", "burst": -1}}}`, `/rateLimits/o/burst: must be positive, got -1`},
		{"a rate limit with a bad route", `{"rateLimits": {"o": {"limit": 1, "window": "1m", "routes": ["/ok", "api"]}}}`, `/rateLimits/o/routes/1: pattern "api"`},
		{"a rate limit with a lower-case method", `{"rateLimits": {"o": {"limit": 1, "window": "1m", "methods": ["post"]}}}`, `/rateLimits/o/methods/0: "post": want an upper-case method`},
		{"a rate limit with a bad key", `{"rateLimits": {"o": {"limit": 1, "window": "1m", "key": "header:"}}}`, `/rateLimits/o/key: "header:": want "ip", "subject" or "header:NAME"`},
		{"a trusted proxy that is no address", `{"trustedProxies": ["10.0.0.1", "proxy.internal"]}`, `/trustedProxies/1: "proxy.internal" is not an address or a CIDR prefix`},
		{"cors without origins", `{"cors": {"allowCredentials": true}}`, `/cors/allowOrigins: list the origins`},
		{"cors with any origin and credentials", `{"cors": {"allowOrigins": ["https://a.example", "*"], "allowCredentials": true}}`, `/cors/allowOrigins/1: "*" with allowCredentials`},
		{"cors with an unknown key", `{"cors": {"allowOrigin": ["*"]}}`, `/cors/allowOrigin: unknown key "allowOrigin"`},
		{"cors of the wrong type", `{"cors": {"allowOrigins": "*"}}`, `/cors/allowOrigins: want an array of strings, got a string`},
		{"a security scheme with an unknown verifier", `{"security": {"bearer": {"jwtt": {}}}}`, `/security/bearer/jwtt: unknown key "jwtt"`},
		{"a security scheme with two verifiers", `{"security": {"bearer": {"jwt": {"jwks": "k.json"}, "basic": {}}}}`, `/security/bearer: give exactly one verifier`},
		{"a jwt verifier without keys", `{"security": {"bearer": {"jwt": {"issuer": "https://x.example"}}}}`, `/security/bearer/jwt: give exactly one of "jwks"`},
		{"a security entry of the wrong type", `{"security": {"bearer": {"jwt": {"jwks": 1}}}}`, `/security/bearer/jwt/jwks: want a string, got a number`},
		{"negative body limit", `{"limits": {"bodyBytes": -1}}`, `/limits/bodyBytes: must be positive`},
		{"negative key-value budget", `{"storage": {"kvBytes": -1}}`, `/storage/kvBytes: must be positive`},
		{"negative idempotency budget", `{"storage": {"idempotencyBytes": -1}}`, `/storage/idempotencyBytes: must be positive`},
		{"negative rate-limit budget", `{"storage": {"rateLimitBytes": -1}}`, `/storage/rateLimitBytes: must be positive`},
		{"negative client share", `{"storage": {"idempotencyClientBytes": -1}}`, `/storage/idempotencyClientBytes: must be positive`},
		{"memory below two pages", `{"limits": {"memoryBytes": 1000}}`, `/limits/memoryBytes: must be at least 131072`},
		{"recycling past the memory limit", `{"limits": {"memoryBytes": "16MiB", "recycleMemoryBytes": "32MiB"}}`, `/limits/recycleMemoryBytes: must be at most limits.memoryBytes (16777216), got 33554432; equal to it turns recycling off`},
		{"recycling past the default memory limit", `{"limits": {"recycleMemoryBytes": "65MiB"}}`, `/limits/recycleMemoryBytes: must be at most limits.memoryBytes (67108864)`},
		{"negative recycling mark", `{"limits": {"recycleMemoryBytes": -1}}`, `/limits/recycleMemoryBytes: must be positive`},
		{"more query parameters than net/url parses", `{"limits": {"queryParams": 20000}}`, `/limits/queryParams: must be between 1 and 10000, got 20000`},
		{"unknown policy", `{"responseValidation": "sometimes"}`, `/responseValidation: "sometimes" is not one of`},
		{"a store driver the program does not link", `{"storage": {"driver": "etcd", "url": "etcd://x"}}`, `/storage/driver: "etcd" is not "memory" nor a driver this program links (registered: redis)`},
		{"a url for the memory store", `{"storage": {"url": "redis://127.0.0.1:6379/0"}}`, `/storage/url: the memory store takes no url`},
		{"redis without a url", `{"storage": {"driver": "redis"}}`, `/storage/url: the redis driver needs a url`},
		{"openApi of the wrong type", `{"openApi": "yes"}`, `openApi must be true, false or an object`},
		{"openApi path without slash", `{"openApi": {"path": "schema"}}`, `/openApi/path: "schema": want a path starting with /`},
		{"unknown openApi key", `{"openApi": {"titel": "x"}}`, `titel`},
		{"not JSON", `{"limits": `, `endpoints.json`},
		{"build without a command", `{"build": {"watch": ["src/*.ts"]}}`, `/build/command: required when "build" is present`},
		{"empty build", `{"build": {}}`, `/build/command: required`},
		{"watch without a command beside goBundle", `{"build": {"goBundle": false, "watch": ["src/*.ts"]}}`, `/build/command: required`},
		{"blank build command", `{"build": {"command": "  "}}`, `/build/command: required`},
		{"a Go bundle named go", `{"build": {"goBundles": {"go": ["x/**"]}}}`, `/build/goBundles/go: "go" is no bundle name`},
		{"a Go bundle name that is no file name", `{"build": {"goBundles": {"a/b": ["x/**"]}}}`, `/build/goBundles/a/b: "a/b" is no bundle name: letters, digits, '-' and '_'`},
		{"a Go bundle without patterns", `{"build": {"goBundles": {"admin": []}}}`, `/build/goBundles/admin: lists no pattern`},
		{"a Go bundle pattern leaving the app", `{"build": {"goBundles": {"admin": ["../x/**"]}}}`, `/build/goBundles/admin/0: "../x/**" must not leave the app`},
		{"Go bundles without the Go bundle", `{"build": {"goBundle": false, "goBundles": {"admin": ["x/**"]}}}`, `/build/goBundles: splits the Go bundle, but "goBundle" is false`},
		{"unknown build key", `{"build": {"command": "make", "watched": []}}`, `unknown key "watched"; allowed here: command, watch`},
		{"watch of the wrong type", `{"build": {"command": "make", "watch": "src/*.ts"}}`, `/build/watch`},
		{"empty watch pattern", `{"build": {"command": "make", "watch": ["src/*.ts", ""]}}`, `/build/watch/1: "" is empty`},
		{"absolute watch pattern", `{"build": {"command": "make", "watch": ["/src/*.ts"]}}`, `/build/watch/0: "/src/*.ts" must be relative to the app`},
		{"watch pattern leaving the app", `{"build": {"command": "make", "watch": ["../lib/*.ts"]}}`, `/build/watch/0: "../lib/*.ts" must not leave the app`},
		{"unclean watch pattern", `{"build": {"command": "make", "watch": ["./src//*.ts"]}}`, `/build/watch/0: "./src//*.ts" is not a clean path; write "src/*.ts"`},
		{"trailing slash", `{"build": {"command": "make", "watch": ["src/"]}}`, `/build/watch/0: "src/" is not a clean path`},
		{"** inside a segment", `{"build": {"command": "make", "watch": ["src/a**/*.ts"]}}`, `/build/watch/0: "src/a**/*.ts" uses "**" inside the segment "a**"`},
		{"bad class", `{"build": {"command": "make", "watch": ["ok/*.ts", "src/[a-/*.ts"]}}`, `/build/watch/1: "src/[a-/*.ts" is not a valid glob (syntax error in pattern)`},
		{"variable without a source", `{"variables": {"region": {}}}`, `/variables/region: says where its value comes from with none of "env", "file" or "default"`},
		{"variable with a bad name", `{"variables": {"1st": {"default": "x"}}}`, `/variables/1st: a variable's name must start with a letter`},
		{"variable with a bad env name", `{"variables": {"url": {"env": "ORDERS-URL"}}}`, `/variables/url/env: "ORDERS-URL" is not an environment variable name`},
		{"secret with a default", `{"variables": {"key": {"env": "KEY", "secret": true, "default": "hunter2"}}}`, `/variables/key/default: a secret cannot have a default`},
		{"optional with a default", `{"variables": {"region": {"default": "eu", "optional": true}}}`, `/variables/region/optional: a variable with a default always has a value`},
		{"unknown variable key", `{"variables": {"region": {"value": "eu"}}}`, `/variables/region/value: unknown key "value"; allowed here: env, file, default, secret, optional`},
		{"default over the size limit", `{"variables": {"big": {"default": "` + strings.Repeat("x", abi.VariableMaxValue+1) + `"}}}`, `/variables/big/default: is 65537 bytes, over the limit of 65536`},
		{"trailing backslash", `{"build": {"command": "make", "watch": ["src/x\\"]}}`, `/build/watch/0: "src/x\\" is not a valid glob`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse("endpoints.json", []byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "endpoints.json") {
				t.Errorf("error = %v, want one starting with the file and containing %q", err, tt.want)
			}
		})
	}
}

func TestParseOpenAPIErrors(t *testing.T) {
	for _, tt := range []struct{ name, config, want string }{
		{"an unknown OpenAPI version", `{"openApi": {"specVersion": "3.0.3"}}`, `/openApi/specVersion: "3.0.3": want "3.1.0" (the default) or "3.2.0"`},
		{"an unknown policy", `{"openApi": {"plainRoutes": "fail"}}`, `/openApi/plainRoutes: "fail": want "include" (the default), "warn", "require" or "exclude"`},
		{"a server without url", `{"openApi": {"servers": [{"url": "/"}, {"description": "Production"}]}}`, `/openApi/servers/1/url: missing`},
		{"an unknown server member", `{"openApi": {"servers": [{"url": "/", "variables": {}}]}}`, `variables`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse("endpoints.json", []byte(tt.config))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error:\ngot  %v\nwant one containing %s", err, tt.want)
			}
		})
	}
}

func TestParseVariables(t *testing.T) {
	cfg, err := config.Parse("endpoints.json", []byte(`{"variables": {
		"webhookUrl": {"env": "ORDERS_WEBHOOK_URL", "optional": true},
		"webhookSecret": {"env": "ORDERS_WEBHOOK_SECRET", "file": "secrets/webhook", "secret": true},
		"region": {"default": ""}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := cfg.Variables
	if got := v["webhookUrl"]; got.Env != "ORDERS_WEBHOOK_URL" || !got.Optional || got.Secret || got.Default != nil {
		t.Errorf("webhookUrl = %+v", got)
	}
	if got := v["webhookSecret"]; got.Env != "ORDERS_WEBHOOK_SECRET" || got.File != "secrets/webhook" || !got.Secret || got.Optional {
		t.Errorf("webhookSecret = %+v", got)
	}
	if got := v["region"]; got.Default == nil || *got.Default != "" {
		t.Errorf("region = %+v, want an empty default", got)
	}
}

// TestParseSizes: sizes take binary units, in the file and in overrides.
func TestParseSizes(t *testing.T) {
	for _, tt := range []struct {
		name, json string
		overrides  []config.Override
		get        func(*config.App) int64
		want       int64
	}{
		{"a number", `{"limits": {"bodyBytes": 65536}}`, nil, func(a *config.App) int64 { return a.Limits.BodyBytes }, 65536},
		{"MiB", `{"limits": {"bodyBytes": "1MiB"}}`, nil, func(a *config.App) int64 { return a.Limits.BodyBytes }, 1 << 20},
		{"KiB with a space", `{"limits": {"responseBytes": "64 KiB"}}`, nil, func(a *config.App) int64 { return a.Limits.ResponseBytes }, 64 << 10},
		{"a fraction of a GiB", `{"storage": {"maxBytes": "1.5GiB"}}`, nil, func(a *config.App) int64 { return a.Storage.MaxBytes }, 3 << 29},
		{"bytes", `{"server": {"maxHeaderBytes": "512B"}}`, nil, func(a *config.App) int64 { return int64(a.Server.MaxHeaderBytes) }, 512},
		{"a digit string", `{"limits": {"memoryBytes": "268435456"}}`, nil, func(a *config.App) int64 { return a.Limits.MemoryBytes }, 256 << 20},
		{"an override from the environment", `{}`, []config.Override{{Pointer: "/limits/bodyBytes", Value: "2MiB", Source: "ENDPOINTS_LIMITS_BODY_BYTES"}}, func(a *config.App) int64 { return a.Limits.BodyBytes }, 2 << 20},
		{"an override as JSON", `{}`, []config.Override{{Pointer: "/limits/bodyBytes", Value: "1024", Source: "ENDPOINTS_LIMITS_BODY_BYTES"}}, func(a *config.App) int64 { return a.Limits.BodyBytes }, 1024},
	} {
		t.Run(tt.name, func(t *testing.T) {
			app, err := config.Parse("endpoints.json", []byte(tt.json), tt.overrides...)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.get(app); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
	_, err := config.Parse("endpoints.json", nil, config.Override{Pointer: "/limits/bodyBytes", Value: "1MB", Source: "ENDPOINTS_LIMITS_BODY_BYTES"})
	if err == nil || !strings.Contains(err.Error(), `write "1MiB"`) || !strings.Contains(err.Error(), "set by ENDPOINTS_LIMITS_BODY_BYTES") {
		t.Errorf("a decimal size from the environment: %v, want the hint and the variable", err)
	}
}
