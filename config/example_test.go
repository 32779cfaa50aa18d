package config_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/config"
)

// Parse decodes endpoints.json; a zero field takes its default.
func Example() {
	app, err := config.Parse(config.File, []byte(`{
		"openApi": {"title": "Users API"},
		"limits": {"bodyBytes": 65536, "timeout": "2s"}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(app.OpenAPI.Title, app.Limits.BodyBytes, time.Duration(app.Limits.Timeout))
	fmt.Println("read timeout:", time.Duration(app.Server.WithDefaults().ReadTimeout))
	// Output:
	// Users API 65536 2s
	// read timeout: 30s
}

// Reading endpoints.json as the host does: strictly, so that a misspelt key
// is an error naming it, and with every absent setting left zero, which
// means its default.
func ExampleParse() {
	cfg, err := config.Parse(config.File, []byte(`{
		"limits": {"bodyBytes": 65536, "timeout": "2s"},
		"storage": {"driver": "memory"}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Limits.BodyBytes, time.Duration(cfg.Limits.Timeout), cfg.Limits.MemoryBytes == 0)

	_, err = config.Parse(config.File, []byte(`{"limit": {"bodyBytes": 65536}}`))
	fmt.Println(strings.Split(err.Error(), ";")[0]) // then the keys allowed there
	// Output:
	// 65536 2s true
	// endpoints.json: /limit: unknown key "limit"
}

// An override set from the environment wins over the file.
func ExampleOverridesFromEnv() {
	overrides, warnings := config.OverridesFromEnv([]string{"ENDPOINTS_LIMITS_TIMEOUT=5s"})
	for _, w := range warnings {
		fmt.Println(w)
	}
	app, err := config.Parse(config.File, []byte(`{"limits": {"timeout": "2s"}}`), overrides...)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(time.Duration(app.Limits.Timeout))
	// Output:
	// 5s
}

// An embedder's openApi settings are checked by the rules of
// endpoints.json's, and read the same but for their source.
func ExampleCheckOpenAPI() {
	err := config.CheckOpenAPI("host.Options.OpenAPI", config.OpenAPI{SpecVersion: "3.0.3"})
	fmt.Println(err)
	// Output: host.Options.OpenAPI: /openApi/specVersion: "3.0.3": want "3.1.0" (the default) or "3.2.0"
}
