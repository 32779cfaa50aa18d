package jsonvalue

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// AppendValue appends the canonical JSON of v to b: no whitespace, object
// members sorted by name, numbers as CanonicalNumber writes them, strings
// with the minimal escaping of RFC 8785 §3.2.2.2 (only '"', '\\' and
// control characters; \b \f \n \r \t where they exist, else \u00XX).
// What Decode returns, AppendValue writes so that Decode reads it back equal
// and canonical.
//
//	AppendValue(nil, map[string]any{"b": json.Number("2.0"), "a": "x"})
//	// {"a":"x","b":2}
//
// v may hold what Decode and the validation package's coercion produce:
// nil, bool, string, json.Number, int64, int, float64, []any and
// map[string]any.
//
// # Notes
//
//   - Names are sorted by their UTF-8 bytes, as Go sorts strings; RFC 8785
//     sorts by UTF-16 code units, which differs only between names holding
//     characters above U+FFFF and ones holding U+E000 to U+FFFF.
//   - A json.Number that is not a number in range, a NaN or an infinite
//     float64 is written as null, and invalid UTF-8 in a string as U+FFFD:
//     neither comes out of Decode.
//   - Other types are written by encoding/json, not canonically.
func AppendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		b, _ = jsontext.AppendQuote(b, v)
		return b
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		if plainInteger(string(v)) {
			return append(b, v...)
		}
		c, _, err := canonical(string(v))
		if err != nil {
			return append(b, "null"...)
		}
		return append(b, c...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return append(b, "null"...)
		}
		return appendFloat(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendValue(b, e)
		}
		return append(b, ']')
	case map[string]any:
		return appendObject(b, v)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, out...)
}

func appendObject(b []byte, m map[string]any) []byte {
	b = append(b, '{')
	var small [16]string
	names := small[:0]
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = jsontext.AppendQuote(b, k)
		b = append(b, ':')
		b = AppendValue(b, m[k])
	}
	return append(b, '}')
}
