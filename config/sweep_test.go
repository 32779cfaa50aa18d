package config_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/cors"
)

// invalid gives, for every setting of endpoints.json by its JSON pointer
// (as [config.Settings] lists them, "{name}" standing for an entry's
// name), a file holding one invalid value for it and otherwise valid:
// a value the member's rule refuses where it has one, else a value of the
// wrong type. The error must name the member (at, the pointer with the
// entry's name filled in, defaults to the setting's own pointer).
var invalid = map[string]struct{ json, at string }{
	"/openApi/enabled":     {json: `{"openApi": {"enabled": "yes"}}`},
	"/openApi/title":       {json: `{"openApi": {"title": 1}}`},
	"/openApi/version":     {json: `{"openApi": {"version": 1.2}}`},
	"/openApi/path":        {json: `{"openApi": {"path": "schema"}}`},
	"/openApi/specVersion": {json: `{"openApi": {"specVersion": "3.0.3"}}`},
	"/openApi/plainRoutes": {json: `{"openApi": {"plainRoutes": "sometimes"}}`},
	"/openApi/docs/path":   {json: `{"openApi": {"docs": {"path": "docs"}}}`},
	"/openApi/docs/assets": {json: `{"openApi": {"docs": {"assets": "ftp://cdn.example/scalar"}}}`},

	"/limits/bodyBytes":           {json: `{"limits": {"bodyBytes": -1}}`},
	"/limits/memoryBytes":         {json: `{"limits": {"memoryBytes": 1000}}`},
	"/limits/recycleMemoryBytes":  {json: `{"limits": {"recycleMemoryBytes": "65MiB"}}`},
	"/limits/timeout":             {json: `{"limits": {"timeout": "-1s"}}`},
	"/limits/instances":           {json: `{"limits": {"instances": -1}}`},
	"/limits/responseBytes":       {json: `{"limits": {"responseBytes": "1MB"}}`},
	"/limits/loadTimeout":         {json: `{"limits": {"loadTimeout": "soon"}}`},
	"/limits/jsonDepth":           {json: `{"limits": {"jsonDepth": 20000}}`},
	"/limits/jsonValues":          {json: `{"limits": {"jsonValues": -1}}`},
	"/limits/queryParams":         {json: `{"limits": {"queryParams": 20000}}`},
	"/limits/instanceIdleTimeout": {json: `{"limits": {"instanceIdleTimeout": 30}}`},
	"/limits/maxTimeout":          {json: `{"limits": {"maxTimeout": "-5s"}}`},
	"/limits/outboundBytes":       {json: `{"limits": {"outboundBytes": -1}}`},
	"/limits/outboundRequests":    {json: `{"limits": {"outboundRequests": -1}}`},
	"/limits/outboundHeaderBytes": {json: `{"limits": {"outboundHeaderBytes": "1MB"}}`},
	"/limits/sqlResultBytes":      {json: `{"limits": {"sqlResultBytes": -1}}`},
	"/limits/breakerTrappedCalls": {json: `{"limits": {"breakerTrappedCalls": -1}}`},
	"/limits/breakerPause":        {json: `{"limits": {"breakerPause": "25h"}}`},
	"/limits/breakerMaxPause":     {json: `{"limits": {"breakerPause": "10s", "breakerMaxPause": "5s"}}`},
	"/limits/breakerClients":      {json: `{"limits": {"breakerClients": 2000000}}`},

	"/responseValidation": {json: `{"responseValidation": "sometimes"}`},

	"/storage/driver":                 {json: `{"storage": {"driver": "etcd", "url": "etcd://x"}}`},
	"/storage/url":                    {json: `{"storage": {"url": "redis://127.0.0.1:6379/0"}}`},
	"/storage/namespace":              {json: `{"storage": {"namespace": "a\u0000b"}}`},
	"/storage/maxBytes":               {json: `{"storage": {"maxBytes": -1}}`},
	"/storage/kvBytes":                {json: `{"storage": {"kvBytes": -1}}`},
	"/storage/idempotencyBytes":       {json: `{"storage": {"idempotencyBytes": -1}}`},
	"/storage/rateLimitBytes":         {json: `{"storage": {"rateLimitBytes": -1}}`},
	"/storage/idempotencyClientBytes": {json: `{"storage": {"idempotencyClientBytes": -1}}`},

	"/idempotency/lease":       {json: `{"idempotency": {"lease": "0s"}}`},
	"/idempotency/replay":      {json: `{"idempotency": {"replay": "a day"}}`},
	"/idempotency/scopeHeader": {json: `{"idempotency": {"scopeHeader": "X Client"}}`},

	"/build/command":   {json: `{"build": {"command": "  "}}`},
	"/build/watch":     {json: `{"build": {"command": "make", "watch": ["../lib/*.ts"]}}`, at: "/build/watch/0"},
	"/build/goBundle":  {json: `{"build": {"command": "make", "goBundle": "yes"}}`},
	"/build/goBundles": {json: `{"build": {"goBundles": {"go": ["handlers/**"]}}}`, at: "/build/goBundles/go"},

	"/server/readHeaderTimeout":    {json: `{"server": {"readHeaderTimeout": "-1s"}}`},
	"/server/readTimeout":          {json: `{"server": {"readTimeout": "1 minute"}}`},
	"/server/writeTimeout":         {json: `{"server": {"writeTimeout": 30}}`},
	"/server/idleTimeout":          {json: `{"server": {"idleTimeout": "0s"}}`},
	"/server/maxHeaderBytes":       {json: `{"server": {"maxHeaderBytes": -1}}`},
	"/server/shutdownTimeout":      {json: `{"server": {"shutdownTimeout": "never"}}`},
	"/openApi/description":         {json: `{"openApi": {"description": 5}}`},
	"/openApi/servers":             {json: `{"openApi": {"servers": "https://api.example.com"}}`},
	"/server/compression/off":      {json: `{"server": {"compression": {"off": "yes"}}}`},
	"/server/compression/minBytes": {json: `{"server": {"compression": {"minBytes": -1}}}`},
	"/server/compression/level":    {json: `{"server": {"compression": {"level": "max"}}}`},
	"/server/pipelining":           {json: `{"server": {"pipelining": "queue"}}`},
	"/server/refusalPause":         {json: `{"server": {"refusalPause": "-1s"}}`},

	"/security": {json: `{"security": {"bearer": {}}}`, at: "/security/bearer"},
	"/cors":     {json: `{"cors": {"allowCredentials": true}}`, at: "/cors/allowOrigins"},

	"/rateLimits":                {json: `{"rateLimits": {"per minute": {"limit": 10, "window": "1m"}}}`, at: "/rateLimits/per minute"},
	"/rateLimits/{name}/routes":  {json: `{"rateLimits": {"api": {"limit": 10, "window": "1m", "routes": ["api/users"]}}}`, at: "/rateLimits/api/routes/0"},
	"/rateLimits/{name}/methods": {json: `{"rateLimits": {"api": {"limit": 10, "window": "1m", "methods": ["get"]}}}`, at: "/rateLimits/api/methods/0"},
	"/rateLimits/{name}/limit":   {json: `{"rateLimits": {"api": {"limit": 0, "window": "1m"}}}`},
	"/rateLimits/{name}/window":  {json: `{"rateLimits": {"api": {"limit": 10}}}`},
	"/rateLimits/{name}/burst":   {json: `{"rateLimits": {"api": {"limit": 10, "window": "1m", "burst": -1}}}`},
	"/rateLimits/{name}/key":     {json: `{"rateLimits": {"api": {"limit": 10, "window": "1m", "key": "cookie:session"}}}`},

	"/trustedProxies": {json: `{"trustedProxies": ["10.0.0.0/8", "proxy.internal"]}`, at: "/trustedProxies/1"},

	"/variables":                 {json: `{"variables": {"1st": {"default": "x"}}}`, at: "/variables/1st"},
	"/variables/{name}/env":      {json: `{"variables": {"region": {"env": "ORDERS-REGION"}}}`},
	"/variables/{name}/file":     {json: `{"variables": {"region": {"file": ["/run/secrets/region"]}}}`},
	"/variables/{name}/default":  {json: `{"variables": {"region": {"default": 1}}}`},
	"/variables/{name}/secret":   {json: `{"variables": {"region": {"env": "REGION", "secret": "yes"}}}`},
	"/variables/{name}/optional": {json: `{"variables": {"region": {"default": "eu", "optional": true}}}`},

	"/authFailures/perAddress": {json: `{"authFailures": {"perAddress": -1}}`},
	"/authFailures/perUser":    {json: `{"authFailures": {"perUser": -1}}`},
	"/authFailures/window":     {json: `{"authFailures": {"window": "-1m"}}`},

	"/outbound/allowedHosts":         {json: `{"outbound": {"allowedHosts": ["ftp://files.example"]}}`, at: "/outbound/allowedHosts/0"},
	"/outbound/caFile":               {json: `{"outbound": {"caFile": true}}`},
	"/outbound/maxConcurrentPerHost": {json: `{"outbound": {"maxConcurrentPerHost": -1}}`},

	"/databases":                         {json: `{"databases": {"Main": {}}}`, at: "/databases/Main"},
	"/databases/{name}/driver":           {json: `{"databases": {"main": {"driver": "mysql"}}}`},
	"/databases/{name}/path":             {json: `{"databases": {"main": {"driver": "postgres", "url": "postgres://db/app", "path": "x.db"}}}`},
	"/databases/{name}/url":              {json: `{"databases": {"main": {"url": "file:x.db", "driver": "sqlite"}}}`},
	"/databases/{name}/maxConns":         {json: `{"databases": {"main": {"maxConns": -1}}}`},
	"/databases/{name}/statementTimeout": {json: `{"databases": {"main": {"statementTimeout": "forever"}}}`},
}

// entryNames are the entry names the invalid files use, by map member.
var entryNames = map[string]string{"/rateLimits/": "api", "/variables/": "region", "/databases/": "main"}

// TestEveryMemberRefusesAnInvalidValue feeds one invalid value to every
// member of endpoints.json, as config.Settings lists them by reflection
// over App, and wants an error naming the member's JSON pointer: a member
// added without a check (or without an entry here) fails.
func TestEveryMemberRefusesAnInvalidValue(t *testing.T) {
	var listed []string
	for _, s := range config.Settings() {
		listed = append(listed, s.Pointer)
		tt, ok := invalid[s.Pointer]
		if !ok {
			t.Errorf("%s (%s): no invalid value in the table: add one, and the check it needs", s.Pointer, s.Env)
			continue
		}
		t.Run(s.Pointer, func(t *testing.T) {
			at := tt.at
			if at == "" {
				at = s.Pointer
				for prefix, name := range entryNames {
					if strings.HasPrefix(at, prefix) {
						at = strings.Replace(at, config.NamePlaceholder, name, 1)
					}
				}
			}
			_, err := config.Parse(config.File, []byte(tt.json))
			if want := config.File + ": " + at + ": "; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Parse(%s) = %v\nwant an error starting %q", tt.json, err, want)
			}
		})
	}
	for ptr := range invalid {
		if !slices.Contains(listed, ptr) {
			t.Errorf("%s is in the table but is no setting", ptr)
		}
	}
}

// invalidInside gives, for every member inside the free-form members
// "cors" and "security" (the fields of the types they decode into, by
// reflection: {name} stands for a scheme's or user's name, {i} for an
// index), one invalid value, as [invalid] does for the settings.
var invalidInside = map[string]struct{ json, at string }{
	"/cors/allowOrigins":     {json: `{"cors": {"allowOrigins": ["https://app.example/"]}}`, at: "/cors/allowOrigins/0"},
	"/cors/allowMethods":     {json: `{"cors": {"allowOrigins": ["https://app.example"], "allowMethods": ["get"]}}`, at: "/cors/allowMethods/0"},
	"/cors/allowHeaders":     {json: `{"cors": {"allowOrigins": ["https://app.example"], "allowHeaders": ["X Token"]}}`, at: "/cors/allowHeaders/0"},
	"/cors/exposeHeaders":    {json: `{"cors": {"allowOrigins": ["https://app.example"], "exposeHeaders": ["ETag", "X Total"]}}`, at: "/cors/exposeHeaders/1"},
	"/cors/allowCredentials": {json: `{"cors": {"allowOrigins": ["https://app.example"], "allowCredentials": "yes"}}`},
	"/cors/maxAge":           {json: `{"cors": {"allowOrigins": ["https://app.example"], "maxAge": 600}}`},

	"/security/{name}/jwt/jwks":        {json: `{"jwt": {"jwks": "/etc/jwks.json"}}`},
	"/security/{name}/jwt/jwksUrl":     {json: `{"jwt": {"jwksUrl": "http://idp.example/jwks.json"}}`},
	"/security/{name}/jwt/secret/env":  {json: `{"jwt": {"secret": {"env": "JWT-SECRET"}}}`},
	"/security/{name}/jwt/secret/file": {json: `{"jwt": {"secret": {"file": "../jwt"}}}`},
	"/security/{name}/jwt/issuer":      {json: `{"jwt": {"jwks": "auth/jwks.json", "issuer": 1}}`},
	"/security/{name}/jwt/audience":    {json: `{"jwt": {"jwks": "auth/jwks.json", "audience": [""]}}`, at: "/security/bearer/jwt/audience/0"},
	"/security/{name}/jwt/algorithms":  {json: `{"jwt": {"jwks": "auth/jwks.json", "algorithms": ["none"]}}`, at: "/security/bearer/jwt/algorithms/0"},
	"/security/{name}/jwt/leeway":      {json: `{"jwt": {"jwks": "auth/jwks.json", "leeway": "-1s"}}`},
	"/security/{name}/jwt/requireExp":  {json: `{"jwt": {"jwks": "auth/jwks.json", "requireExp": "no"}}`},
	"/security/{name}/jwt/refresh":     {json: `{"jwt": {"jwks": "auth/jwks.json", "refresh": "5m"}}`},
	"/security/{name}/jwt/timeout":     {json: `{"jwt": {"jwks": "auth/jwks.json", "timeout": "5s"}}`},
	"/security/{name}/jwt/scopesClaim": {json: `{"jwt": {"jwks": "auth/jwks.json", "scopesClaim": ["scope"]}}`},
	"/security/{name}/jwt/devKey":      {json: `{"jwt": {"jwks": "auth/jwks.json", "devKey": "../dev.jwk"}}`},

	"/security/{name}/apiKey/keys/{i}/sha256":  {json: `{"apiKey": {"keys": [{"sha256": "9f86d08"}]}}`},
	"/security/{name}/apiKey/keys/{i}/subject": {json: `{"apiKey": {"keys": [{"sha256": "` + sha256Hex + `", "subject": 7}]}}`},
	"/security/{name}/apiKey/keys/{i}/scopes":  {json: `{"apiKey": {"keys": [{"sha256": "` + sha256Hex + `", "scopes": "admin"}]}}`},
	"/security/{name}/apiKey/store":            {json: `{"apiKey": {"store": "yes"}}`},
	"/security/{name}/apiKey/in":               {json: `{"apiKey": {"store": true, "in": "body"}}`},
	"/security/{name}/apiKey/name":             {json: `{"apiKey": {"store": true, "name": "X:Key"}}`},

	"/security/{name}/basic/users/{name}/bcrypt": {json: `{"basic": {"users": {"alice": {"bcrypt": "hunter2"}}}}`},
	"/security/{name}/basic/users/{name}/scopes": {json: `{"basic": {"users": {"alice": {"bcrypt": "` + bcryptHash + `", "scopes": "admin"}}}}`},
	"/security/{name}/basic/realm":               {json: `{"basic": {"users": {"alice": {"bcrypt": "` + bcryptHash + `"}}, "realm": 1}}`},
}

// sha256Hex is a well-formed key hash.
const sha256Hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// insideMembers lists the members of the JSON object type t decodes, as
// pointers below ptr: a struct's fields by their JSON names, a pointer's
// or slice's element ({i}) and a map's values ({name}) walked into when
// they are structs.
func insideMembers(t reflect.Type, ptr string) []string {
	switch {
	case t.Kind() == reflect.Pointer:
		return insideMembers(t.Elem(), ptr)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		return insideMembers(t.Elem(), ptr+"/{i}")
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Struct:
		return insideMembers(t.Elem(), ptr+"/"+config.NamePlaceholder)
	case t.Kind() != reflect.Struct:
		return []string{ptr}
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out = append(out, insideMembers(f.Type, ptr+"/"+name)...)
	}
	return out
}

// TestEveryMemberInsideCORSAndSecurityRefusesAnInvalidValue does for the
// members of "cors" and of each verifier of "security" what
// TestEveryMemberRefusesAnInvalidValue does for the settings: a member
// added to cors.Config or auth.Config without a check, or without an
// entry here, fails.
func TestEveryMemberInsideCORSAndSecurityRefusesAnInvalidValue(t *testing.T) {
	var listed []string
	for _, ptr := range append(insideMembers(reflect.TypeFor[cors.Config](), "/cors"), insideMembers(reflect.TypeFor[auth.Config](), "/security/{name}")...) {
		listed = append(listed, ptr)
		tt, ok := invalidInside[ptr]
		if !ok {
			t.Errorf("%s: no invalid value in the table: add one, and the check it needs", ptr)
			continue
		}
		t.Run(ptr, func(t *testing.T) {
			doc, at := tt.json, tt.at
			if strings.HasPrefix(ptr, "/security/") {
				doc = `{"security": {"bearer": ` + doc + `}}`
			}
			if at == "" {
				at = strings.Replace(ptr, config.NamePlaceholder, "bearer", 1)
				at = strings.Replace(at, config.NamePlaceholder, "alice", 1)
				at = strings.Replace(at, "{i}", "0", 1)
			}
			_, err := config.Parse(config.File, []byte(doc))
			if want := config.File + ": " + at + ": "; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Parse(%s) = %v\nwant an error starting %q", doc, err, want)
			}
		})
	}
	for ptr := range invalidInside {
		if !slices.Contains(listed, ptr) {
			t.Errorf("%s is in the table but is no member", ptr)
		}
	}
}
