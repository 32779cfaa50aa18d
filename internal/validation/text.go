package validation

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

// NotUTF8 is the issue of a request value (a parameter, a form field)
// whose text is not UTF-8, naming the first offending byte; its path is
// name, made valid UTF-8.
//
//	{"path": ["q"], "message": "is not valid UTF-8: byte \xff at offset 2; send text as UTF-8 (percent-encoded in a URL)"}
func NotUTF8(name, value string) Issue {
	at := 0
	for at < len(value) {
		r, size := utf8.DecodeRuneInString(value[at:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		at += size
	}
	return Issue{Path: []any{strings.ToValidUTF8(name, "\uFFFD")},
		Message: fmt.Sprintf("is not valid UTF-8: byte \\x%02x at offset %d; send text as UTF-8 (percent-encoded in a URL)", value[at], at)}
}

// NotUTF8Values checks a parameter's name and values: the issue of the
// first that is not UTF-8 (NotUTF8; the name's says "the name"), or nil.
func NotUTF8Values(name string, values []string) *Issue {
	if !utf8.ValidString(name) {
		i := NotUTF8(name, name)
		i.Message = "the name " + i.Message
		return &i
	}
	for _, v := range values {
		if !utf8.ValidString(v) {
			i := NotUTF8(name, v)
			return &i
		}
	}
	return nil
}

// DecodeIssue is the issue of a JSON value that did not decode
// (jsonvalue.Decode): where in the value and why, or, for another error,
// its text at the root.
func DecodeIssue(err error) Issue {
	var je *jsonvalue.Error
	if errors.As(err, &je) {
		return Issue{Path: je.Path, Message: je.Message}
	}
	return Issue{Path: []any{}, Message: err.Error()}
}
