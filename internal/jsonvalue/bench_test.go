package jsonvalue

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// smallBody is a typical request body of about 200 bytes.
const smallBody = `{"name":"Grace Hopper","email":"grace@example.com","age":85,"admin":true,` +
	`"tags":["navy","cobol"],"address":{"street":"1 Main St","city":"Arlington","zip":"22201"},"score":99.5,"note":null}`

// largeBody is a document of about 100 KB: an array of records with
// strings, numbers (integers, fractions, exponents), booleans, nulls and
// nested objects.
func largeBody() []byte {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < 100<<10; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item %d with a \"quoted\" name","price":%d.%02d,"ratio":%de-3,"active":%t,`+
			`"tags":["a","bc","déf"],"dims":{"w":%d,"h":%d,"unit":"cm"},"parent":null}`,
			i, i, i%1000, i%100, i%7+1, i%2 == 0, i%50, i%30)
	}
	b.WriteString(`],"total":12345,"next":null}`)
	return []byte(b.String())
}

// BenchmarkDecode compares Decode with jsonschema.UnmarshalJSON, which the
// host used before it: run with
//
//	go test ./internal/jsonvalue -run '^$' -bench Decode -benchmem
func BenchmarkDecode(b *testing.B) {
	large := largeBody()
	for _, doc := range []struct {
		name string
		data []byte
	}{
		{"small", []byte(smallBody)},
		{"100KB", large},
	} {
		b.Run(doc.name+"/jsonvalue.Decode", func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Decode(doc.data, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(doc.name+"/jsonschema.UnmarshalJSON", func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc.data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
