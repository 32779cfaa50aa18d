package endpoints

import (
	"encoding/json"
	"testing"
)

// TestRowScanAllocations: reading a small result with Rows and Scan (what
// QueryRow(...).Scan does once the host answered) costs an allocation for
// the scanned value only, not for the result's column names and values
// nor a second copy of a string: each allocation is 200-450 ns in a Go
// WebAssembly module. The value is still the handler's own (a change to
// it does not show in a later Scan).
func TestRowScanAllocations(t *testing.T) {
	for _, tc := range []struct {
		name   string
		result string
		raw    bool // into a json.RawMessage, else a []byte
		want   string
	}{
		{
			"json_object's text into a json.RawMessage",
			`{"columns":["json_object('id', id, 'name', name)"],"rows":[["{\"id\":2,\"name\":\"Grace Hopper\"}"]]}`,
			true,
			`{"id":2,"name":"Grace Hopper"}`,
		},
		{
			"text with an escape into a []byte",
			`{"columns":["name"],"rows":[["say \"hi\""]]}`,
			false,
			`say "hi"`,
		},
		{
			"text without escapes into a []byte",
			`{"columns":["name"],"rows":[["Grace Hopper"]]}`,
			false,
			`Grace Hopper`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.result)
			var r Rows
			var raw json.RawMessage
			var b []byte
			read := func() []byte {
				if err := r.parse(data); err != nil {
					t.Fatal(err)
				}
				if !r.Next() {
					t.Fatal("no row")
				}
				if tc.raw {
					if err := r.Scan(&raw); err != nil {
						t.Fatal(err)
					}
					return raw
				}
				if err := r.Scan(&b); err != nil {
					t.Fatal(err)
				}
				return b
			}
			first := read()
			if string(first) != tc.want {
				t.Fatalf("scanned %s, want %s", first, tc.want)
			}
			first[0] = 'X'
			if again := read(); string(again) != tc.want {
				t.Errorf("scanned again after a change to the first value: %s, want %s", again, tc.want)
			}
			if n := testing.AllocsPerRun(100, func() { read() }); n != 1 {
				t.Errorf("parse and Scan: %v allocations, want 1 (the value)", n)
			}
		})
	}
}
