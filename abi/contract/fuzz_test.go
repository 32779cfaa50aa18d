package contract

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// fuzzMethods are the Options.Method values FuzzParse picks from.
var fuzzMethods = append([]string{""}, methodNames...)

func FuzzParse(f *testing.F) {
	for _, tt := range issueCases {
		f.Add([]byte(tt.json), uint8(slices.Index(fuzzMethods, strings.ToUpper(tt.method))))
	}
	f.Add(readTestdata(f, "spec-example.json"), uint8(slices.Index(fuzzMethods, "PUT")))
	f.Add(readTestdata(f, "many-mistakes.json"), uint8(0))
	f.Add([]byte("{\n  \"summary\": \"x\",\n}"), uint8(1))
	f.Add([]byte(`{"request": {"headers": {"properties": {"A\nB": {}}}}}`), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, m uint8) {
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		c, err := Parse("fuzz.wasm", data, Options{Method: method})
		if (c == nil) == (err == nil) {
			t.Fatalf("got contract %v and error %v, want exactly one", c, err)
		}
		if err == nil {
			return
		}
		var cerr *Error
		if !errors.As(err, &cerr) {
			t.Fatalf("got %T %v, want *Error", err, err)
		}
		if len(cerr.Issues) == 0 {
			t.Fatal("got *Error without issues")
		}
		for _, is := range cerr.Issues {
			if is.Rule == "" || is.Message == "" {
				t.Errorf("got issue %+v, want a rule and a message", is)
			}
		}
		if !slices.IsSortedFunc(cerr.Issues, func(a, b Issue) int { return comparePointers(a.Pointer, b.Pointer) }) {
			t.Errorf("issues not sorted by pointer: %v", cerr.Issues)
		}
		if got, want := strings.Count(err.Error(), "\n")+1, len(cerr.Issues); got != want {
			t.Errorf("Error() has %d lines, want one per issue (%d):\n%v", got, want, err)
		}
	})
}
