package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"strings"
	"text/tabwriter"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/config"
)

// overrideFlags is the --set flag: settings of endpoints.json replaced on
// the command line, in order.
type overrideFlags []config.Override

func (o *overrideFlags) String() string { return "" }

func (o *overrideFlags) Set(v string) error {
	ov, err := config.ParseOverride(v)
	if err != nil {
		return err
	}
	*o = append(*o, ov)
	return nil
}

// addConfigFlags adds --set to fs; the function it returns gives the
// overrides in effect, twelve-factor style: the ENDPOINTS_* environment
// variables, then the --set flags, which win. Every command that reads
// endpoints.json takes them, so what it prints or builds is what serve
// serves. An ENDPOINTS_* variable that names no setting is a warning on
// stderr, not an error: the environment is shared with other programs
// (Kubernetes' service links for a Service named "endpoints" are not even
// warned about).
func addConfigFlags(fs *flag.FlagSet, stderr io.Writer) func() []config.Override {
	var sets overrideFlags
	fs.Var(&sets, "set", "replace a setting of endpoints.json: `SETTING=VALUE` (repeatable), e.g. --set storage.url=redis://cache:6379/0;\nENDPOINTS_STORAGE_URL and the like do the same from the environment ('endpoints help settings' lists them)")
	return func() []config.Override {
		env, warnings := config.OverridesFromEnv(os.Environ())
		for _, w := range warnings {
			fmt.Fprintf(stderr, "endpoints %s: warning: %s\n", fs.Name(), w)
		}
		return append(env, sets...)
	}
}

// parseLogLevel reads --log-level.
func parseLogLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("--log-level %s: want debug, info, warn or error", s)
	}
	return l, nil
}

// printConfig writes the configuration in effect, with secrets (URL
// passwords, members named like a secret, password, token or key value)
// replaced by "REDACTED".
func printConfig(w io.Writer, cfg config.App, overrides []config.Override) {
	v, err := effectiveConfig(cfg)
	var b []byte
	if err == nil {
		b, err = json.MarshalIndent(v, "", "  ")
	}
	if err != nil {
		fmt.Fprintf(w, "effective configuration: %v\n", err)
		return
	}
	fmt.Fprintf(w, "effective configuration (%s", config.File)
	for _, o := range overrides {
		fmt.Fprintf(w, ", %s from %s", o.Pointer, o.Source)
	}
	fmt.Fprintf(w, "):\n%s\n", b)
}

// effectiveConfig is cfg as endpoints.json would write it, secrets
// redacted (see printConfig).
func effectiveConfig(cfg config.App) (any, error) {
	// encoding/json/v2's rules, which endpoints.json follows (durations
	// as "2s").
	b, err := jsonv2.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return redact("", v), nil
}

func redact(key string, v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = redact(k, e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = redact(key, e)
		}
		return v
	case string:
		k := strings.ToLower(key)
		if strings.Contains(k, "secret") || strings.Contains(k, "password") || strings.Contains(k, "token") || k == "key" || k == "sha256" {
			return "REDACTED"
		}
		if scheme, rest, ok := strings.Cut(v, "://"); ok && urlScheme.MatchString(scheme) {
			u, err := url.Parse(v)
			if at := strings.LastIndex(rest, "@"); at >= 0 && (err != nil || u.User == nil || strings.Contains(u.Fragment, "@")) {
				// User info Go's parser does not read as such: a
				// password holding '#', '?', '/' or a bad escape fails
				// the parse, or reads as a port, a query or a fragment
				// (after an '@' of the password, read as the end of
				// the user info). All of it goes.
				return scheme + "://REDACTED" + rest[at:]
			}
			if err != nil {
				return v
			}
			changed := false
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), "REDACTED")
				changed = true
			}
			// postgres://app@db/app?password=..., as libpq takes it,
			// pair by pair: url.Values would drop a pair whose escape is
			// bad, and print it as it was.
			if u.RawQuery != "" {
				pairs := strings.Split(u.RawQuery, "&")
				for i, pair := range pairs {
					k, _, _ := strings.Cut(pair, "=")
					if uk, err := url.QueryUnescape(k); err == nil {
						k = uk
					}
					if secretParam(k) {
						pairs[i] = url.QueryEscape(k) + "=REDACTED"
						changed = true
					}
				}
				u.RawQuery = strings.Join(pairs, "&")
			}
			if changed {
				return u.String()
			}
			return v
		}
		// PostgreSQL's keyword/value form: host=db user=app password=...
		return dsnPassword.ReplaceAllString(v, "${1}REDACTED")
	}
	return v
}

// secretParam reports whether a URL's query parameter named k holds a
// secret (password, sslpassword, token...).
func secretParam(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "password") || strings.Contains(k, "secret") || strings.Contains(k, "token")
}

// urlScheme is a URL's scheme (RFC 3986 §3.1).
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// dsnPassword is a password in a PostgreSQL connection string of the
// keyword/value form, quoted or not.
var dsnPassword = regexp.MustCompile(`((?:^|\s)(?i:ssl)?(?i:password)\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)`)

// printSettings lists every setting of endpoints.json an override can
// replace: its --set name, its environment variable, and how its value is
// read.
func printSettings(w io.Writer) {
	fmt.Fprintf(w, "Settings of %s, each replaceable by --set SETTING=VALUE or its environment\nvariable (--set wins over the environment, which wins over the file):\n\n", config.File)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tENVIRONMENT\tVALUE\tDEFAULT")
	for _, s := range config.Settings() {
		value := "JSON"
		switch {
		case s.Text:
			value = "text"
		case s.List:
			value = "list"
		case s.Size:
			value = "size"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Env, value, s.Default)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nA text value is taken as it is (\"5s\", \"redis://cache:6379/0\"); a JSON one is JSON\ntext (65536, true, [\"a\", \"b\"], {\"allowOrigins\": [\"https://app.example\"]}); a list\ntakes a JSON array or comma-separated text (https://a.example,https://b.example); a\nsize a number of bytes or one with a binary unit (65536, 64KiB, 1MiB, 2GiB).\nDEFAULT is what applies when the setting is absent (none: off, or it depends\non the app); limits.instances is 2 x GOMAXPROCS, as counted on this machine.\n{name} stands for an entry's name: ENDPOINTS_DATABASES_MAIN_URL (or --set\ndatabases.main.url=...) sets the url of the database \"main\".\n\nA secret can come from a file, as Docker and Kubernetes mount secrets, rather than\nfrom the environment: a variable's \"file\" (variables.{name}.file), and a jwt\nscheme's HS256 key, \"secret\": {\"file\": \"/run/secrets/NAME\"}, in security. A\ndeployment's key pair comes from 'endpoints keygen --key FILE --jwks FILE'.\n")
}
