package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/internal/editdistance"
)

// Override replaces one setting of endpoints.json, twelve-factor
// style: `endpoints serve` makes one of each ENDPOINTS_* environment
// variable (ENDPOINTS_STORAGE_URL sets /storage/url) and of each --set
// flag (--set storage.url=redis://cache:6379/0). The override applies
// whenever endpoints.json is read, at start and at each reload, so the
// file may lack the setting or the whole file may be absent.
type Override struct {
	// Pointer is the JSON pointer of the setting: "/limits/timeout". An
	// object setting (a security scheme, "cors") takes its whole value.
	Pointer string
	// Value is the setting's value: as it is for a string setting
	// ("2s", "redis://cache:6379/0"), JSON text for the others ("65536",
	// "true", `{"allowOrigins": ["https://app.example"]}`).
	Value string
	// Source names where the override came from, for errors:
	// "ENDPOINTS_LIMITS_TIMEOUT" or "--set limits.timeout".
	Source string
}

// Setting is one setting of endpoints.json an override can replace.
type Setting struct {
	// Pointer is its JSON pointer: "/storage/url".
	Pointer string
	// Name is its path with dots, as --set takes it: "storage.url".
	Name string
	// Env is its environment variable: "ENDPOINTS_STORAGE_URL".
	Env string
	// Text reports whether the value is taken as it is (a string or a
	// duration) rather than as JSON text.
	Text bool
	// List reports whether the setting is a list of strings, which an
	// override may give comma-separated ("https://a.example,
	// https://b.example") as well as a JSON array.
	List bool
	// Size reports whether the setting is a number of bytes, which also
	// takes a binary unit: "64KiB", "1MiB" (see [ParseSize]).
	Size bool
	// Default is the value in effect when the setting is absent, as an
	// override would write it ("30s", "1MiB", "/_endpoints/schema"):
	// read from [App.WithDefaults], so it is the default the host
	// applies. Empty when absence means "off" or "none", or the default
	// depends on the app (storage.namespace) or the mode (openApi.enabled).
	Default string
}

// Settings lists every setting of endpoints.json with its
// environment variable, read from [App]'s fields: a member that is
// an object of known keys is listed by its keys, a free-form one (a map of
// security schemes, "cors") as a whole. A map of objects of known keys
// ("databases") is listed as a whole and by its entries' keys, with
// [NamePlaceholder] for the entry: "/databases/{name}/url",
// ENDPOINTS_DATABASES_{NAME}_URL, which ENDPOINTS_DATABASES_MAIN_URL
// matches.
func Settings() []Setting {
	var out []Setting
	// v holds the defaults of the struct t walked: a field of
	// App{}.WithDefaults(), or a zero value inside a map's entries.
	var walk func(t reflect.Type, v reflect.Value, ptr, env string)
	walk = func(t reflect.Type, v reflect.Value, ptr, env string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			p, e := ptr+"/"+name, env+"_"+upperSnake(name)
			switch {
			case f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[Duration]():
				walk(f.Type, v.Field(i), p, e)
			case f.Type.Kind() == reflect.Map && f.Type.Elem().Kind() == reflect.Struct:
				out = append(out, Setting{Pointer: p, Name: strings.ReplaceAll(p[1:], "/", "."), Env: e})
				walk(f.Type.Elem(), entryDefaults(f.Type.Elem()), p+"/"+NamePlaceholder, e+"_"+strings.ToUpper(NamePlaceholder))
			default:
				text := f.Type.Kind() == reflect.String || f.Type == reflect.TypeFor[Duration]()
				list := f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String
				out = append(out, Setting{Pointer: p, Name: strings.ReplaceAll(p[1:], "/", "."), Env: e, Text: text, List: list, Size: isSize(p),
					Default: defaultText(v.Field(i), isSize(p))})
			}
		}
	}
	walk(reflect.TypeFor[App](), reflect.ValueOf(App{}.WithDefaults()), "", "ENDPOINTS")
	return out
}

// entryDefaults is the value of an entry of type t of a map member with
// its defaults: the zero value's WithDefaults when t has that method
// ([Database.WithDefaults]), else the zero value.
func entryDefaults(t reflect.Type) reflect.Value {
	zero := reflect.Zero(t)
	if m := zero.MethodByName("WithDefaults"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 && m.Type().Out(0) == t {
		return m.Call(nil)[0]
	}
	return zero
}

// defaultText writes a setting's default as an override takes it: a
// duration as "30s", a size with the largest binary unit that divides it
// ("1MiB"), a number, a string as it is; "" for a zero value (no default).
func defaultText(v reflect.Value, size bool) string {
	if v.IsZero() {
		return ""
	}
	switch {
	case v.Type() == reflect.TypeFor[Duration]():
		return time.Duration(v.Int()).String()
	case size:
		return FormatSize(v.Int())
	case v.Kind() == reflect.String:
		return v.String()
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return ""
	}
	return string(b)
}

// NamePlaceholder stands for an entry's name in the [Setting] of a map's
// entries: "/databases/{name}/url".
const NamePlaceholder = "{name}"

// match reports whether the setting's pointer is pointer, the placeholder
// standing for any one non-empty key.
func (s Setting) match(pointer string) bool {
	before, after, ok := strings.Cut(s.Pointer, NamePlaceholder)
	if !ok {
		return s.Pointer == pointer
	}
	if !strings.HasPrefix(pointer, before) || !strings.HasSuffix(pointer, after) || len(pointer) <= len(before)+len(after) {
		return false
	}
	return !strings.Contains(pointer[len(before):len(pointer)-len(after)], "/")
}

// matchEnv returns the pointer the variable name sets, when it is the
// setting's (the placeholder standing for a name of lower-case letters,
// digits and underscores).
func (s Setting) matchEnv(name string) (string, bool) {
	before, after, ok := strings.Cut(s.Env, strings.ToUpper(NamePlaceholder))
	if !ok {
		return s.Pointer, s.Env == name
	}
	if !strings.HasPrefix(name, before) || !strings.HasSuffix(name, after) || len(name) <= len(before)+len(after) {
		return "", false
	}
	entry := strings.ToLower(name[len(before) : len(name)-len(after)])
	if !databaseName.MatchString(entry) {
		return "", false
	}
	return strings.Replace(s.Pointer, NamePlaceholder, entry, 1), true
}

// SettingAt is the setting whose JSON pointer is pointer, such as
// "/security": its --set name and its environment variable
// (ENDPOINTS_SECURITY), for a message that says how a deployment sets
// it. A database's setting ("/databases/main/url") is that of every
// database, its Env spelled with [NamePlaceholder]. False when no setting
// has that pointer.
func SettingAt(pointer string) (Setting, bool) { return findSetting(Settings(), pointer) }

// findSetting is the setting whose pointer pointer is.
func findSetting(settings []Setting, pointer string) (Setting, bool) {
	for _, s := range settings {
		if s.match(pointer) {
			return s, true
		}
	}
	return Setting{}, false
}

// upperSnake turns a camelCase key into UPPER_SNAKE: "memoryBytes" is
// "MEMORY_BYTES", "openApi" "OPEN_API".
func upperSnake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// OverridesFromEnv returns the overrides the ENDPOINTS_* variables of
// environ (as os.Environ gives them) make, and a warning for each variable
// with that prefix that names no setting (a misspelling, or a variable of
// another program), which is then ignored: the caller logs the warnings.
// Variables in ignore are left alone (a program's own ENDPOINTS_*
// variables), and so are the service links Kubernetes injects for a
// Service named "endpoints" ([KubernetesServiceLink]).
func OverridesFromEnv(environ []string, ignore ...string) (overrides []Override, warnings []string) {
	settings := Settings()
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "ENDPOINTS_") || slices.Contains(ignore, name) || KubernetesServiceLink(name) {
			continue
		}
		pointer, found := "", false
		for _, s := range settings {
			if pointer, found = s.matchEnv(name); found {
				break
			}
		}
		if !found {
			warnings = append(warnings, fmt.Sprintf("environment variable %s names no setting of %s and is ignored%s", name, File, nearestEnv(settings, name)))
			continue
		}
		overrides = append(overrides, Override{Pointer: pointer, Value: value, Source: name})
	}
	slices.SortFunc(overrides, func(a, b Override) int { return strings.Compare(a.Pointer, b.Pointer) })
	return overrides, warnings
}

// KubernetesServiceLink reports whether name is one of the variables
// Kubernetes sets in every pod of a namespace holding a Service named
// "endpoints" (its "service links", Docker-links style):
// ENDPOINTS_SERVICE_HOST, ENDPOINTS_SERVICE_PORT,
// ENDPOINTS_SERVICE_PORT_<PORTNAME>, ENDPOINTS_PORT and
// ENDPOINTS_PORT_<NUMBER>_<PROTOCOL>[_PROTO|_PORT|_ADDR]. No setting has
// those names (endpoints.json has no "service" nor "port" member), so they
// are never overrides.
func KubernetesServiceLink(name string) bool {
	switch {
	case name == "ENDPOINTS_SERVICE_HOST", name == "ENDPOINTS_SERVICE_PORT", name == "ENDPOINTS_PORT":
		return true
	case strings.HasPrefix(name, "ENDPOINTS_SERVICE_PORT_"):
		return len(name) > len("ENDPOINTS_SERVICE_PORT_")
	case strings.HasPrefix(name, "ENDPOINTS_PORT_"):
		rest := name[len("ENDPOINTS_PORT_"):]
		port, proto, _ := strings.Cut(rest, "_")
		if port == "" || strings.Trim(port, "0123456789") != "" {
			return false
		}
		proto, _, _ = strings.Cut(proto, "_")
		return proto == "TCP" || proto == "UDP" || proto == "SCTP"
	}
	return false
}

// nearestEnv ends the warning about name: it suggests the variable of
// settings within three edits of it ("; did you mean
// ENDPOINTS_STORAGE_URL?"), a database's with the database's name as name
// spells it (ENDPOINTS_DATABASES_MAIN_MAX_CONNS for
// ENDPOINTS_DATABASES_MAIN_MAXCONNS), else the one sharing the longest
// prefix with it past "ENDPOINTS_" when one does, and says where the
// settings are listed.
func nearestEnv(settings []Setting, name string) string {
	best, bestDist := "", 4
	for _, s := range settings {
		for _, env := range envSpellings(s, name) {
			if d := editdistance.Levenshtein(name, env); d < bestDist {
				best, bestDist = env, d
			}
		}
	}
	if best == "" {
		bestLen := len("ENDPOINTS_") + 1
		for _, s := range settings {
			n := 0
			for n < len(name) && n < len(s.Env) && name[n] == s.Env[n] {
				n++
			}
			if n > bestLen {
				best, bestLen = s.Env, n
			}
		}
	}
	if best == "" {
		return " (`endpoints help settings` lists the settings)"
	}
	return "; did you mean " + best + "? (`endpoints help settings` lists the settings)"
}

// envSpellings are the variables of s that name may have meant: its own,
// or, for a setting of an entry (ENDPOINTS_DATABASES_{NAME}_URL), one per
// entry name the words of name at the placeholder's place could be ("MAIN",
// "MAIN_DB"...), since a misspelt variable still spells its entry.
func envSpellings(s Setting, name string) []string {
	before, after, ok := strings.Cut(s.Env, strings.ToUpper(NamePlaceholder))
	if !ok {
		return []string{s.Env}
	}
	words := strings.Split(name, "_")
	at := strings.Count(before, "_")
	var out []string
	for end := at + 1; end <= len(words); end++ {
		out = append(out, before+strings.Join(words[at:end], "_")+after)
	}
	return out
}

// ParseOverride reads a --set flag's argument, "limits.timeout=2s": the
// setting's path (dots or a JSON pointer), "=", its value. Its errors
// never quote the value, which may be a password (storage.url).
func ParseOverride(arg string) (Override, error) {
	key, value, ok := strings.Cut(arg, "=")
	if !ok || key == "" {
		return Override{}, fmt.Errorf("--set: want SETTING=VALUE, such as storage.url=redis://127.0.0.1:6379/0; the argument has no setting before an \"=\" (it is not repeated here: it may hold a password)")
	}
	ptr := key
	if !strings.HasPrefix(ptr, "/") {
		ptr = "/" + strings.ReplaceAll(key, ".", "/")
	}
	settings := Settings()
	if _, ok := findSetting(settings, ptr); !ok {
		var names []string
		for _, s := range settings {
			names = append(names, s.Name)
		}
		return Override{}, fmt.Errorf("--set %s: %s names no setting of %s; the settings are: %s", key, key, File, strings.Join(names, ", "))
	}
	return Override{Pointer: ptr, Value: value, Source: "--set " + key}, nil
}

// applyOverrides returns the content of endpoints.json (data, nil when the
// file is absent) with the overrides set.
func applyOverrides(file string, data []byte, overrides []Override) ([]byte, error) {
	if len(overrides) == 0 {
		return data, nil
	}
	doc := map[string]any{}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %v", file, strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	settings := Settings()
	for _, o := range overrides {
		setting, ok := findSetting(settings, o.Pointer)
		if !ok {
			return nil, fmt.Errorf("%s: %s names no setting of %s", o.Source, o.Pointer, File)
		}
		var value any = o.Value
		switch {
		case setting.List && firstByte([]byte(o.Value)) != '[':
			value = splitList(o.Value)
		case !setting.Text:
			var v any
			if err := json.Unmarshal([]byte(o.Value), &v); err != nil && isSize(o.Pointer) {
				v = o.Value // "1MiB": read by the decoding's sizes
			} else if err != nil {
				return nil, fmt.Errorf("%s: %s takes JSON (a number, true or false, an object), got %q", o.Source, o.Pointer, o.Value)
			}
			value = v
		}
		parts := strings.Split(strings.TrimPrefix(o.Pointer, "/"), "/")
		obj := doc
		for _, p := range parts[:len(parts)-1] {
			next, ok := obj[p].(map[string]any)
			if !ok {
				// Absent, or a shorthand such as "openApi": false,
				// which the override turns into an object.
				next = map[string]any{}
				if b, isBool := obj[p].(bool); isBool && p == "openApi" {
					next["enabled"] = b
				}
				obj[p] = next
			}
			obj = next
		}
		obj[parts[len(parts)-1]] = value
	}
	out, err := json.Marshal(doc, jsontext.WithIndent("  "))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// splitList reads a list setting written comma-separated, as an
// environment variable gives it: "a, b,,c" is ["a", "b", "c"].
func splitList(v string) []any {
	out := []any{}
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
