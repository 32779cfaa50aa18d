package config

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	stdjson "encoding/json"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/cors"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/openapi"
)

// The edge policies of endpoints.json ("security", "cors", "rateLimits",
// "trustedProxies") are checked here, when the file is read, by every
// command; package host builds what enforces them from the checked
// values.

// TrustedProxy reads one entry of "trustedProxies": an address
// ("10.0.0.7", a prefix of its full length) or a CIDR prefix
// ("10.0.0.0/8"), masked.
func TrustedProxy(s string) (netip.Prefix, error) {
	pfx, err := netip.ParsePrefix(s)
	if err != nil {
		addr, err2 := netip.ParseAddr(s)
		if err2 != nil {
			return netip.Prefix{}, fmt.Errorf("%q is not an address or a CIDR prefix such as \"10.0.0.0/8\"", s)
		}
		pfx = netip.PrefixFrom(addr, addr.BitLen())
	}
	return pfx.Masked(), nil
}

// edges are the decoded "security" and "cors" of an App: what package host
// builds the verifiers and the CORS policy from ([App.Verifiers],
// [App.CORSPolicy]).
type edges struct {
	verifiers auth.Configs
	cors      *cors.Policy
}

// Verifiers are the verifier configurations of "security", by scheme
// name, as [Parse] and [Load] checked them. An App not made by them has
// none.
func (a *App) Verifiers() auth.Configs { return a.edges.verifiers }

// CORSPolicy is the policy "cors" sets, as [Parse] and [Load] checked it;
// nil when "cors" is absent, or the App was not made by them.
func (a *App) CORSPolicy() *cors.Policy { return a.edges.cors }

// policyName is what a rate limit's name may be: it is sent in the
// RateLimit headers as a token.
var policyName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// checkEdges checks "security", "cors", "rateLimits" and
// "trustedProxies".
func checkEdges(file string, cfg *App) error {
	for i, p := range cfg.TrustedProxies {
		if _, err := TrustedProxy(p); err != nil {
			return badSetting(file, fmt.Sprintf("/trustedProxies/%d", i), "%v", err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.RateLimits)) {
		if err := checkRateLimit(file, "/rateLimits/"+name, name, cfg.RateLimits[name]); err != nil {
			return err
		}
	}
	if len(cfg.CORS) > 0 {
		var c cors.Config
		if err := strictMember(file, "/cors", cfg.CORS, &c); err != nil {
			return err
		}
		p, err := cors.New(c)
		if err != nil {
			return memberError(file, err)
		}
		cfg.edges.cors = p
	}
	var verifiers map[string]auth.Config
	for _, name := range slices.Sorted(maps.Keys(cfg.Security)) {
		ptr := "/security/" + name
		var c auth.Config
		if err := strictMember(file, ptr, cfg.Security[name], &c); err != nil {
			return err
		}
		// What the verifier's own check finds without I/O; the host reads
		// the key set file, fetches the URL and reads the secret.
		if err := securityError(file, name, c.Check()); err != nil {
			return err
		}
		if verifiers == nil {
			verifiers = map[string]auth.Config{}
		}
		verifiers[name] = c
	}
	cfg.edges.verifiers = auth.NewConfigs(verifiers)
	return nil
}

// securityError is err, of the verifier configuration of the scheme name,
// as a *settingError at the member it names (an *auth.ConfigError), or
// at the scheme's entry; nil when err is.
func securityError(file, name string, err error) error {
	var bad *auth.ConfigError
	if errors.As(err, &bad) {
		at := jsontext.Pointer("/security").AppendToken(name)
		for _, step := range bad.Path {
			at = at.AppendToken(step)
		}
		return badSetting(file, string(at), "%s", bad.Msg)
	} else if err != nil {
		return badSetting(file, string(jsontext.Pointer("/security").AppendToken(name)), "%v", err)
	}
	return nil
}

// CheckSecurityKeys reads, for each scheme of "security" in name order,
// the keys its verifier reads when the host makes it, and returns the
// first failure, so that a start (and a reload) fails on it before it
// migrates a database or loads a module: a jwt scheme's key set file ("jwks", in
// appDir) missing, unreadable or not a key set; its secret (the
// environment variable, read with getenv, else the file) unset, missing,
// unreadable or shorter than an HS256 key, unless getenv is nil (a build,
// where the deployment's secrets are not); and, when deployed (a
// production start or reload), a development key set deployed without
// its "devKey" file. A key set URL is not fetched. The error
// names the member ("endpoints.json: /security/bearer/jwt/jwks: ...");
// [Attribute] adds the override that set it (ENDPOINTS_SECURITY).
func (a *App) CheckSecurityKeys(appDir string, getenv func(string) string, deployed bool) error {
	verifiers := auth.ConfigMap(a.Verifiers())
	env := auth.Env{AppDir: appDir, Getenv: getenv, Offline: getenv == nil, Production: deployed}
	for _, name := range slices.Sorted(maps.Keys(verifiers)) {
		if err := securityError(File, name, verifiers[name].CheckKeys(name, env)); err != nil {
			return err
		}
	}
	return nil
}

// checkRateLimit checks one entry of "rateLimits".
func checkRateLimit(file, ptr, name string, c RateLimit) error {
	switch {
	case !policyName.MatchString(name):
		return badSetting(file, ptr, "a policy name is a token of letters, digits, '-' and '_' (it is sent in the RateLimit headers), got %q", name)
	case c.Limit <= 0:
		return badSetting(file, ptr+"/limit", "required: a positive number of requests per window, got %d", c.Limit)
	case c.Window <= 0:
		return badSetting(file, ptr+"/window", "required: the period the limit counts over, a duration such as \"1m\"")
	case c.Burst < 0:
		return badSetting(file, ptr+"/burst", "must be positive, got %d", c.Burst)
	}
	for i, p := range c.Routes {
		if err := openapi.CheckRoutePattern(p); err != nil {
			return badSetting(file, fmt.Sprintf("%s/routes/%d", ptr, i), "pattern %q: %v", p, err)
		}
	}
	for i, m := range c.Methods {
		if m != strings.ToUpper(m) || !slices.Contains(routefile.Methods, strings.ToLower(m)) {
			return badSetting(file, fmt.Sprintf("%s/methods/%d", ptr, i), "%q: want an upper-case method such as \"POST\"", m)
		}
	}
	if key := c.Key; key != "" && key != "ip" && key != "subject" && (!strings.HasPrefix(key, "header:") || len(key) == len("header:")) {
		return badSetting(file, ptr+"/key", "%q: want \"ip\", \"subject\" or \"header:NAME\"", key)
	}
	return nil
}

// strictMember decodes the free-form member at ptr into v, an unknown key
// or a value of the wrong type being an error that names it.
func strictMember(file, ptr string, raw stdjson.RawMessage, v any) error {
	err := json.Unmarshal(raw, v, json.RejectUnknownMembers(true))
	if err == nil {
		return nil
	}
	var se *json.SemanticError
	if !errors.As(err, &se) {
		return badSetting(file, ptr, "%v", strings.TrimPrefix(err.Error(), "json: "))
	}
	at := ptr + string(se.JSONPointer)
	switch {
	case se.Err != nil && strings.Contains(se.Err.Error(), "unknown object member"):
		return badSetting(file, at, "unknown key %q", at[strings.LastIndex(at, "/")+1:])
	case se.Err == nil || errors.Is(se.Err, strconv.ErrSyntax) || errors.Is(se.Err, strconv.ErrRange):
		return badSetting(file, at, "%s", wrongType(at, se))
	}
	return badSetting(file, at, "%v", se.Err)
}

// memberIndex matches the "[3]" of a member path such as
// cors.allowOrigins[3].
var memberIndex = regexp.MustCompile(`\[(\d+)\]`)

// memberError turns an error of the form "cors.allowOrigins[1]: what is
// wrong", as the packages building the policies write them, into a
// *settingError at the member's JSON pointer.
func memberError(file string, err error) error {
	path, msg, ok := strings.Cut(err.Error(), ": ")
	if !ok || strings.ContainsAny(path, " \"") {
		return fmt.Errorf("%s: %v", file, err)
	}
	ptr := "/" + strings.ReplaceAll(memberIndex.ReplaceAllString(path, ".$1"), ".", "/")
	return badSetting(file, ptr, "%s", msg)
}
