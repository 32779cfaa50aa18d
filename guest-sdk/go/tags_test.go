package endpoints

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestParseTagMatchesLookup holds parseTag and lookup, which applyTags
// reads a field's constraint tags with, to reflect.StructTag.Lookup:
// well-formed tags, repeated keys, escapes, malformed pairs and values,
// and random tags made of the characters its parsing turns on.
func TestParseTagMatchesLookup(t *testing.T) {
	tags := []reflect.StructTag{
		``, ` `, `json:"name"`, `json:"name,omitempty" minimum:"1" doc:"A \"quoted\" <doc>."`,
		`  doc:"spaces before"   enum:"a,b"  `, `doc:"first" doc:"second"`,
		`doc:"bad \q escape" doc:"second"`, `doc:"é\u00e9\x41\101\n"`, `doc:"unterminated`,
		`doc:"a" broken minimum:"1"`, `doc:"a"minimum:"2"`, `:"no key" doc:"x"`, `doc:`, `doc:"`,
		"doc:\"new\nline\" minimum:\"3\"", "doc:\"bad \xff utf-8\"", `doc:'single'`, "do\x7fc:\"del\"",
		`example:"{\"id\":1,\"name\":\"Ada\"}" default:"[1, 2]"`, `minimum:"1" minimum:"2"`, `doc:"\\"`,
	}
	r := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"doc", "minimum", "enum", ":", `"`, `\`, " ", "a", "\x7f", "\n", "é", `\"`, `\n`, `\q`, `\u00e9`, ",", "\x00"}
	for range 5000 {
		var b []byte
		for range r.IntN(14) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		tags = append(tags, reflect.StructTag(b))
	}
	keys := append([]string{"json", "nullable", "a", ""}, constraintTags...)
	for _, tag := range tags {
		parsed := parseTag(tag)
		for _, key := range keys {
			want, wantOK := tag.Lookup(key)
			got, ok := parsed.lookup(key)
			if got != want || ok != wantOK {
				t.Fatalf("tag %q, key %q: lookup = %q, %v; reflect's Lookup %q, %v", tag, key, got, ok, want, wantOK)
			}
		}
	}
}
