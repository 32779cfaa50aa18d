package sqlredact

import (
	"strings"
	"testing"
)

func TestMessage(t *testing.T) {
	tests := []struct{ name, msg, want string }{
		{"a value in double quotes", `invalid input syntax for type integer: "abc-secret"`, `invalid input syntax for type integer: ?`},
		{"a value with quotes of its own", `value "1"2" is out of range for type integer`, `value ? is out of range for type integer`},
		{"a value in single quotes", `bad JSON path: '$.secret'`, `bad JSON path: ?`},
		{"a token of the statement", `near "secret": syntax error`, `near ?: syntax error`},
		{"byte sequences", `invalid byte sequence for encoding "UTF8": 0xc3 0x28`, `invalid byte sequence for encoding ?: ? ?`},
		{"an apostrophe opens nothing", `the statement's parameter can't be "secret"`, `the statement's parameter can't be ?`},
		{"an unclosed quote runs to the end", `unterminated quoted string at or near "'secret`, `unterminated quoted string at or near ?`},
		{"no quote: as is", "UNIQUE constraint failed: users.email", "UNIQUE constraint failed: users.email"},
		{"a name in a word is no byte sequence", "column x0xff", "column x0xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Message(tt.msg); got != tt.want {
				t.Errorf("Message(%q)\n got %q\nwant %q", tt.msg, got, tt.want)
			}
		})
	}
}

// FuzzMessage checks that a value quoted in a message, whatever it
// holds, is not left, and that Message never panics.
func FuzzMessage(f *testing.F) {
	f.Add("invalid input syntax for type integer: ", "abc", "", byte('"'))
	f.Add("value ", `1"2`, " is out of range", byte('"'))
	f.Add("bad JSON path: ", "it's", "", byte('\''))
	f.Fuzz(func(t *testing.T, before, value, after string, q byte) {
		if q != '"' && q != '\'' {
			q = '"'
		}
		value = marker + value
		msg := before + " " + string(q) + value + string(q) + strings.ReplaceAll(after, string(q), "")
		if got := Message(msg); strings.Contains(got, marker) {
			t.Errorf("Message(%q) = %q: the quoted value is left", msg, got)
		}
		Message(before + value + after)
	})
}
