package overlay_test

import (
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/overlay"
)

func TestFill(t *testing.T) {
	sec := config.Duration(time.Second)
	tests := []struct {
		name       string
		over, base config.Server
		want       config.Server
	}{
		{"nothing set over: the base's", config.Server{}, config.Server{ReadTimeout: sec, MaxHeaderBytes: 1024},
			config.Server{ReadTimeout: sec, MaxHeaderBytes: 1024}},
		{"a field set over wins", config.Server{ReadTimeout: 2 * sec}, config.Server{ReadTimeout: sec, MaxHeaderBytes: 1024},
			config.Server{ReadTimeout: 2 * sec, MaxHeaderBytes: 1024}},
		{"nothing in the base: over's", config.Server{WriteTimeout: sec}, config.Server{}, config.Server{WriteTimeout: sec}},
		{"into a nested struct, field by field", config.Server{Compression: config.Compression{Level: "best"}},
			config.Server{Compression: config.Compression{Level: "fastest", MinBytes: 512}},
			config.Server{Compression: config.Compression{Level: "best", MinBytes: 512}}},
		{"true over wins", config.Server{Compression: config.Compression{Off: true}}, config.Server{},
			config.Server{Compression: config.Compression{Off: true}}},
		{"true in the base wins over false", config.Server{}, config.Server{Compression: config.Compression{Off: true}},
			config.Server{Compression: config.Compression{Off: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overlay.Fill(tt.over, tt.base); got != tt.want {
				t.Errorf("Fill = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestFillSlices(t *testing.T) {
	base := config.Outbound{AllowedHosts: []string{"https://api.example.com"}, CAFile: "ca.pem"}
	tests := []struct {
		name string
		over config.Outbound
		want []string
	}{
		{"nil takes the base's list", config.Outbound{}, []string{"https://api.example.com"}},
		{"an empty list set in code replaces it", config.Outbound{AllowedHosts: []string{}}, []string{}},
		{"a list set in code replaces it", config.Outbound{AllowedHosts: []string{"https://other.example"}}, []string{"https://other.example"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := overlay.Fill(tt.over, base)
			if !reflect.DeepEqual(got.AllowedHosts, tt.want) || (got.AllowedHosts == nil) != (tt.want == nil) {
				t.Errorf("AllowedHosts = %#v, want %#v", got.AllowedHosts, tt.want)
			}
			if got.CAFile != "ca.pem" {
				t.Errorf("CAFile = %q, want the base's", got.CAFile)
			}
		})
	}
}

// TestFillTakesEveryField: each field of the settings the host overlays,
// set in the base alone, comes out of Fill; set over, wins. A field added
// to one of these types is covered without a change here.
func TestFillTakesEveryField(t *testing.T) {
	for _, typ := range []any{config.Limits{}, config.Server{}, config.Outbound{}, config.Idempotency{}, config.Storage{}} {
		rt := reflect.TypeOf(typ)
		t.Run(rt.Name(), func(t *testing.T) {
			base, over := reflect.New(rt).Elem(), reflect.New(rt).Elem()
			setAll(t, base, 1)
			setAll(t, over, 2)
			got := callFill(typ, reflect.New(rt).Elem().Interface(), base.Interface())
			if !reflect.DeepEqual(got, base.Interface()) {
				t.Errorf("Fill(zero, base) = %+v, want the base %+v", got, base.Interface())
			}
			if got := callFill(typ, over.Interface(), base.Interface()); !reflect.DeepEqual(got, over.Interface()) {
				t.Errorf("Fill(over, base) = %+v, want over %+v", got, over.Interface())
			}
		})
	}
}

// callFill calls Fill with the type of typ.
func callFill(typ, over, base any) any {
	switch typ.(type) {
	case config.Limits:
		return overlay.Fill(over.(config.Limits), base.(config.Limits))
	case config.Server:
		return overlay.Fill(over.(config.Server), base.(config.Server))
	case config.Outbound:
		return overlay.Fill(over.(config.Outbound), base.(config.Outbound))
	case config.Idempotency:
		return overlay.Fill(over.(config.Idempotency), base.(config.Idempotency))
	case config.Storage:
		return overlay.Fill(over.(config.Storage), base.(config.Storage))
	}
	panic("no such settings type")
}

// setAll gives every field of the struct v a non-zero value made from n.
func setAll(t *testing.T, v reflect.Value, n int) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Struct:
			setAll(t, f, n)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(n))
		case reflect.String:
			f.SetString(string(rune('a' + n)))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), n, n))
		default:
			t.Fatalf("%s.%s: a %s, which this test cannot set: teach setAll", v.Type(), v.Type().Field(i).Name, f.Kind())
		}
	}
}

func TestStorage(t *testing.T) {
	file := config.Storage{Driver: config.DriverRedis, URL: "redis://file:6379", Namespace: "app", MaxBytes: 1 << 20}
	tests := []struct {
		name string
		over config.Storage
		want config.Storage
	}{
		{"no driver in code: the file's location", config.Storage{KVBytes: 512},
			config.Storage{Driver: config.DriverRedis, URL: "redis://file:6379", Namespace: "app", MaxBytes: 1 << 20, KVBytes: 512}},
		{"a driver in code: its location whole, the file's url not taken", config.Storage{Driver: config.DriverMemory},
			config.Storage{Driver: config.DriverMemory, Namespace: "app", MaxBytes: 1 << 20}},
		{"a url without a driver in code: the file's location replaces it", config.Storage{URL: "redis://code:6379"},
			config.Storage{Driver: config.DriverRedis, URL: "redis://file:6379", Namespace: "app", MaxBytes: 1 << 20}},
		{"the other fields field by field", config.Storage{Namespace: "code", MaxBytes: 2 << 20},
			config.Storage{Driver: config.DriverRedis, URL: "redis://file:6379", Namespace: "code", MaxBytes: 2 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overlay.Storage(tt.over, file); got != tt.want {
				t.Errorf("Storage = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestOpenAPI(t *testing.T) {
	on, off := true, false
	base := config.OpenAPI{Set: true, Enabled: &off, Title: "File", Version: "1.0", Path: "/file.json", Docs: config.Docs{Path: "/file-docs"}}
	tests := []struct {
		name  string
		over  config.OpenAPI
		check func(config.OpenAPI) string
	}{
		{"nothing in code: the file's", config.OpenAPI{}, func(o config.OpenAPI) string {
			if o.Title != "File" || o.Version != "1.0" || o.Path != "/file.json" || *o.Enabled || !o.Set || o.Docs.Path != "/file-docs" {
				return "not the file's settings"
			}
			return ""
		}},
		{"strings set in code win one by one", config.OpenAPI{Title: "Code"}, func(o config.OpenAPI) string {
			if o.Title != "Code" || o.Version != "1.0" {
				return "want Title from the code, Version from the file"
			}
			return ""
		}},
		{"Enabled set in code wins", config.OpenAPI{Enabled: &on}, func(o config.OpenAPI) string {
			if !*o.Enabled {
				return "want Enabled true, from the code"
			}
			return ""
		}},
		{"Servers set in code replace the file's", config.OpenAPI{Servers: []config.OpenAPIServer{{URL: "https://code.example"}}}, func(o config.OpenAPI) string {
			if len(o.Servers) != 1 || o.Servers[0].URL != "https://code.example" {
				return "want the code's servers"
			}
			return ""
		}},
		{"Docs replaced whole when any of it is set", config.OpenAPI{Docs: config.Docs{Off: true}}, func(o config.OpenAPI) string {
			if !o.Docs.Off || o.Docs.Path != "" {
				return "want the code's Docs whole"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := overlay.OpenAPI(tt.over, base)
			if msg := tt.check(got); msg != "" {
				t.Errorf("OpenAPI = %+v: %s", got, msg)
			}
		})
	}
}

func TestDatabases(t *testing.T) {
	sec := config.Duration(time.Second)
	file := map[string]config.Database{
		"main":  {Driver: config.DatabasePostgres, URL: "postgres://file/main", MaxConns: 4, StatementTimeout: sec},
		"cache": {Path: "cache.db"},
	}
	for _, tc := range []struct {
		name       string
		over, base map[string]config.Database
		want       map[string]config.Database
	}{
		{name: "nothing in code: the file's", base: file, want: file},
		{name: "neither", want: nil},
		{name: "a name only code declares, without a file", over: map[string]config.Database{"x": {Path: "x.db"}},
			want: map[string]config.Database{"x": {Path: "x.db"}}},
		{name: "a location replaces the file's whole", base: file,
			over: map[string]config.Database{"main": {Path: "main.db"}},
			want: map[string]config.Database{"main": {Path: "main.db", MaxConns: 4, StatementTimeout: sec}, "cache": {Path: "cache.db"}}},
		{name: "tuning alone keeps the file's location", base: file,
			over: map[string]config.Database{"main": {MaxConns: 9}},
			want: map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: "postgres://file/main", MaxConns: 9, StatementTimeout: sec}, "cache": {Path: "cache.db"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := maps.Clone(tc.base)
			if got := overlay.Databases(tc.over, tc.base); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Databases = %+v, want %+v", got, tc.want)
			}
			if !reflect.DeepEqual(tc.base, before) {
				t.Errorf("the file's databases were changed: %+v, were %+v", tc.base, before)
			}
		})
	}
}
