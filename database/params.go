package database

import (
	"strconv"
	"unicode/utf8"

	"github.com/wasmendpoints/endpoints/abi"
)

// decodeSimpleParams decodes the parameters most statements take without
// encoding/json's reflection, appending them to dst: an array of null,
// true, false, integers that fit an int64 and strings without escapes. ok
// is false for anything else (floats, blobs, escapes, invalid or unusual
// JSON), which [DecodeParams] then decodes in full, with its errors.
//
//	decodeSimpleParams(nil, []byte(`[2, "Ada", null]`)) // []any{int64(2), "Ada", nil}, true
func decodeSimpleParams(dst []any, data []byte) (args []any, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, false
	}
	args = dst
	if args == nil {
		args = []any{}
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return args, skipSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) {
			return nil, false
		}
		var v any
		switch c := data[i]; {
		case c == 'n' && hasWord(data[i:], "null"):
			v, i = nil, i+4
		case c == 't' && hasWord(data[i:], "true"):
			v, i = true, i+4
		case c == 'f' && hasWord(data[i:], "false"):
			v, i = false, i+5
		case c == '"':
			end := i + 1
			for end < len(data) && data[end] != '"' && data[end] != '\\' && data[end] >= 0x20 {
				end++
			}
			if end >= len(data) || data[end] != '"' || !utf8.Valid(data[i+1:end]) {
				return nil, false
			}
			v, i = string(data[i+1:end]), end+1
		case c == '-' || c >= '0' && c <= '9':
			end := i
			if data[end] == '-' {
				end++
			}
			start := end
			for end < len(data) && data[end] >= '0' && data[end] <= '9' {
				end++
			}
			// JSON integers: at least one digit, no leading zero;
			// a fraction or exponent is the full decoder's.
			if end == start || (data[start] == '0' && end-start > 1) || (end < len(data) && (data[end] == '.' || data[end] == 'e' || data[end] == 'E')) {
				return nil, false
			}
			n, err := strconv.ParseInt(string(data[i:end]), 10, 64)
			if err != nil {
				return nil, false
			}
			v, i = n, end
		default:
			return nil, false
		}
		if len(args)-len(dst) == abi.DBParamsMax {
			return nil, false // decodeParamsJSON says why
		}
		args = append(args, v)
		i = skipSpace(data, i)
		if i >= len(data) {
			return nil, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return args, skipSpace(data, i+1) == len(data)
		default:
			return nil, false
		}
	}
}

// hasWord reports whether data starts with the literal word, not followed
// by a letter or digit.
func hasWord(data []byte, word string) bool {
	if len(data) < len(word) || string(data[:len(word)]) != word {
		return false
	}
	if len(data) == len(word) {
		return true
	}
	c := data[len(word)]
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}
