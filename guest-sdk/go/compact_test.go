package endpoints

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// compactCases seed FuzzAppendCompact; TestAppendCompact checks them.
var compactCases = []string{
	`{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`,
	" { \"a\" : [ 1 , 2.5e-3 , -0 , true , false , null ] ,\n\t\"b\" : { } , \"c\" : [ ] } ",
	`"esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"`,
	`[[[[[]]]]]`, `0`, `-1.0E+10`, `1e5`, `"héllo"`,
	// Not JSON:
	``, ` `, `{`, `[1,]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `[1 2]`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`,
	`+1`, `tru`, `nul`, `truex`, `"a`, "\"a\tb\"", `"\x"`, `"\u12g4"`, `"\u12"`, `{"a":1}}`, `[1]x`,
	`{1:2}`, `NaN`, `'a'`, `[` + strings.Repeat("[", 10001) + strings.Repeat("]", 10002),
}

func TestAppendCompact(t *testing.T) {
	for _, in := range compactCases {
		checkCompact(t, []byte(in))
	}
}

func FuzzAppendCompact(f *testing.F) {
	for _, in := range compactCases {
		f.Add([]byte(in))
	}
	f.Fuzz(checkCompact)
}

// checkCompact holds appendCompact to json.Compact: the same verdict, the
// same bytes, and dst kept as it was on an error.
func checkCompact(t *testing.T, in []byte) {
	var want bytes.Buffer
	wantErr := json.Compact(&want, in)
	prefix := []byte("prefix:")
	got, err := appendCompact(bytes.Clone(prefix), in)
	short := string(in)
	if len(short) > 60 {
		short = short[:60] + "…"
	}
	if valid := validJSON(string(in)); valid != json.Valid(in) {
		t.Errorf("validJSON(%q) = %v, json.Valid %v", short, valid, !valid)
	}
	switch {
	case (err == nil) != (wantErr == nil):
		t.Errorf("appendCompact(%q): error %v, json.Compact: %v", short, err, wantErr)
	case err != nil && !bytes.Equal(got, prefix):
		t.Errorf("appendCompact(%q) failed but changed dst: %q", short, got)
	case err == nil && !bytes.Equal(got[len(prefix):], want.Bytes()):
		t.Errorf("appendCompact(%q) = %q, json.Compact %q", short, got[len(prefix):], want.Bytes())
	}
}

// FuzzEncodeRawJSON holds the reply of a json.RawMessage body, which the
// compactor checks and compacts, to what json.Marshal makes of it.
func FuzzEncodeRawJSON(f *testing.F) {
	for _, in := range compactCases {
		f.Add([]byte(in))
	}
	f.Add([]byte(`{"a": "<b>&", "b": "a\u2028b\u2029 €"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		want, wantErr := json.Marshal(json.RawMessage(in))
		got, err := encodeJSON(json.RawMessage(in))
		short := string(in)
		if len(short) > 60 {
			short = short[:60] + "…"
		}
		switch {
		case (err == nil) != (wantErr == nil):
			t.Errorf("encodeJSON(%q): error %v, json.Marshal: %v", short, err, wantErr)
		case err == nil && !bytes.Equal(got, want):
			t.Errorf("encodeJSON(%q) = %q, json.Marshal %q", short, got, want)
		}
	})
}
