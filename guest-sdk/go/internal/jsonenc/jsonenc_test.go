package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

type user struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

type tagged struct {
	Renamed  string `json:"renamed_field"`
	Untagged int    // named after the field
	Skipped  string `json:"-"`
	//lint:ignore SA5008 a field named "-" is one of the cases under test
	Dash string `json:"-,"`
	//lint:ignore SA5008 a name encoding/json refuses (it uses the field's) is one of the cases under test
	Invalid   string   `json:"a\"b"`
	HTMLName  bool     `json:"<&>"`
	OmitStr   string   `json:"omitStr,omitempty"`
	OmitInt   int64    `json:"omitInt,omitempty"`
	OmitUint  uint16   `json:"omitUint,omitempty"`
	OmitBool  bool     `json:"omitBool,omitempty"`
	OmitPtr   *string  `json:"omitPtr,omitempty"`
	OmitSlice []int    `json:"omitSlice,omitempty"`
	OmitFloat float64  `json:"omitFloat,omitempty"`
	OmitF32   float32  `json:"omitF32,omitempty"`
	OmitInner inner    `json:"omitInner,omitempty"` // a struct is never empty
	Nums      []uint8s `json:"nums"`
	hidden    string
}

type inner struct {
	A int8    `json:"a"`
	B *inner2 `json:"b"`
}

type inner2 struct {
	C []string `json:"c"`
}

type uint8s struct {
	U  uint8   `json:"u"`
	U2 uintptr `json:"u2"`
	I  int16   `json:"i"`
	I2 int32   `json:"i2"`
	F  float32 `json:"f"`
}

type status string

type withNamed struct {
	Status status `json:"status"`
	Count  myInt  `json:"count"`
}

type myInt int

func TestAppendMatchesEncodingJSON(t *testing.T) {
	s := "pointed <to>"
	negZero := math.Copysign(0, -1)
	tests := []struct {
		name string
		v    any
	}{
		{"nil", nil},
		{"user", user{ID: 2, Name: "Grace Hopper", Email: "grace@example.com"}},
		{"pointer to user", &user{ID: 7, Name: "Ada"}},
		{"nil pointer", (*user)(nil)},
		{"slice of users", []user{{ID: 1}, {ID: 2, Name: "B"}}},
		{"empty slice", []user{}},
		{"nil slice", []user(nil)},
		{"slice of pointers", []*user{{ID: 1}, nil}},
		{"string", "plain"},
		{"escapes", "quote \" backslash \\ <script> & \b\f\n\r\t \x00 \x1f \x7f"},
		{"unicode", "héllo wörld ✓ 😀 \u2028 \u2029"},
		{"invalid utf-8", "a\xffb\xc3(c\xed\xa0\x80"},
		{"int", 42},
		{"negative int64", int64(math.MinInt64)},
		{"uint64", uint64(math.MaxUint64)},
		{"bool", true},
		{"float64", 3.14159},
		{"float64 int", 1.0},
		{"float64 tiny", 1e-7},
		{"float64 huge", 1e21},
		{"float64 just below", 999999999999999999999.0},
		{"float64 small exp", 1.5e-9},
		{"float64 negative zero", negZero},
		{"float32", float32(0.1)},
		{"float32 tiny", float32(1e-7)},
		{"float32 huge", float32(3e38)},
		{"named types", withNamed{Status: "ok", Count: 3}},
		{"tags zero", tagged{}},
		{"tags set", tagged{
			Renamed: "r", Untagged: 1, Skipped: "s", Dash: "d", Invalid: "i", HTMLName: true,
			OmitStr: "o", OmitInt: -1, OmitUint: 1, OmitBool: true, OmitPtr: &s, OmitSlice: []int{},
			OmitFloat: negZero, OmitF32: 0.5, OmitInner: inner{A: 1, B: &inner2{C: []string{"x", "<y>"}}},
			Nums: []uint8s{{U: 255, U2: 9, I: -3, I2: 1 << 30, F: 1e-7}}, hidden: "h",
		}},
		{"omitempty empty slice", tagged{OmitSlice: []int{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := Append([]byte("prefix"), tt.v)
			if !ok {
				t.Fatalf("Append(%#v) not handled, want %s", tt.v, want)
			}
			if !bytes.Equal(got, append([]byte("prefix"), want...)) {
				t.Errorf("Append(%#v)\n got %s\nwant prefix%s", tt.v, got, want)
			}
		})
	}
}

type marshaler struct{ X int }

func (marshaler) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }

type textMarshaler struct{ X int }

func (*textMarshaler) MarshalText() ([]byte, error) { return []byte("text"), nil }

type embedded struct {
	user
	Extra int `json:"extra"`
}

type recursive struct {
	Name     string      `json:"name"`
	Children []recursive `json:"children"`
}

type stringOpt struct {
	N int `json:"n,string"`
}

type omitZero struct {
	T time.Duration `json:"t,omitzero"`
}

type conflict struct {
	A int `json:"B"`
	B int
}

type withMarshalerField struct {
	M marshaler `json:"m"`
}

type onePointer struct {
	P *int `json:"p"`
}

// TestAppendLeavesToEncodingJSON lists what Append does not handle: the
// caller's fallback, encoding/json, encodes it (or refuses it).
func TestAppendLeavesToEncodingJSON(t *testing.T) {
	n := 1
	tests := []struct {
		name string
		v    any
	}{
		{"map", map[string]int{"a": 1}},
		{"interface field", struct {
			V any `json:"v"`
		}{V: 1}},
		{"bytes", []byte("abc")},
		{"array", [2]int{1, 2}},
		{"MarshalJSON", marshaler{}},
		{"MarshalJSON field", withMarshalerField{}},
		{"MarshalText on pointer", textMarshaler{}},
		{"time.Time", time.Unix(0, 0).UTC()},
		{"json.Number", json.Number("12")},
		{"json.RawMessage", json.RawMessage(`{}`)},
		{"embedded struct", embedded{}},
		{"recursive type", recursive{Name: "a"}},
		{"string option", stringOpt{N: 1}},
		{"omitzero option", omitZero{}},
		{"name conflict", conflict{}},
		{"pointer-shaped struct", onePointer{P: &n}},
		{"NaN", math.NaN()},
		{"infinity in a struct", struct {
			F float64 `json:"f"`
		}{F: math.Inf(1)}},
		{"channel", make(chan int)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Append([]byte("prefix"), tt.v)
			if ok {
				t.Fatalf("Append(%#v) = %s, want it left to encoding/json", tt.v, got)
			}
			if string(got) != "prefix" {
				t.Errorf("Append returned %q when not handled, want the prefix alone", got)
			}
		})
	}
}

// TestAppendStringMatchesEncodingJSON checks random strings, valid and
// invalid UTF-8, against json.Marshal.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "<", ">", "&", "\"", "\\", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "é", "😀", "\xff", "\xc3", "\xed\xa0\x80", " "}
	for range 2000 {
		var b []byte
		for range r.IntN(12) {
			b = append(b, alphabet[r.IntN(len(alphabet))]...)
		}
		checkString(t, string(b))
	}
}

// TestAppendStringEachPosition puts each byte AppendString must not copy
// as it is, and a few it must, at each position of strings longer than
// the eight bytes it checks at once, after plain bytes and after other
// such bytes: the first byte that stops its word-at-a-time scan must be
// found exactly.
func TestAppendStringEachPosition(t *testing.T) {
	for _, special := range []string{"\x00", "\x1f", " ", "!", "\"", "#", "%", "&", "'", ";", "<", "=", ">", "?", "[", "\\", "]", "\x7f", "\x80", "\xff", "é", "\u2028", "😀"} {
		for _, filler := range []string{"a", "\x01", "<", "é"} {
			for n := 0; n <= 24; n++ {
				for pos := 0; pos <= n; pos++ {
					s := strings.Repeat(filler, pos) + special + strings.Repeat("b", n-pos)
					checkString(t, s)
				}
			}
		}
	}
}

func checkString(t *testing.T, s string) {
	t.Helper()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendString(nil, s); !bytes.Equal(got, want) {
		t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	want = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if got := AppendStringNoHTML(nil, s); !bytes.Equal(got, want) {
		t.Fatalf("AppendStringNoHTML(%q) = %s, want %s", s, got, want)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&</a>", "\u2028\u2029", "a\xffb", "\x00\x01\t\n", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkString(t, s)
		if !utf8.ValidString(s) {
			return
		}
		v := user{Name: s, Email: s}
		want, _ := json.Marshal(v)
		if got, ok := Append(nil, v); !ok || !bytes.Equal(got, want) {
			t.Fatalf("Append(%#v) = %s, %v; want %s", v, got, ok, want)
		}
	})
}

// TestAppendAllocatesNothing: with room in dst, encoding a planned
// value allocates nothing, the point of the package.
func TestAppendAllocatesNothing(t *testing.T) {
	var v any = user{ID: 2, Name: "Grace Hopper", Email: "grace@example.com"}
	buf := make([]byte, 0, 256)
	Append(buf, v) // makes the plan
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := Append(buf, v); !ok {
			t.Fatal("not handled")
		}
	})
	if allocs != 0 {
		t.Errorf("Append allocated %v times per call, want 0", allocs)
	}
}
