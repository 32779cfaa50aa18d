// Package querystring parses a request's query string whole or not at
// all: the host validates the parameters it parsed, and the guest reads
// the raw query, so a query the parser would read only in part (a pair it
// skips, the rest it never reaches) is refused rather than validated
// partially.
package querystring

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// MaxParams is the most parameters any limit may allow: Go's own parser
// (net/url) gives up past 10,000.
const MaxParams = 10000

// Error is why a query string was refused: its message says what is wrong
// with it and how to send it instead.
type Error struct {
	msg string
}

func (e *Error) Error() string { return e.msg }

// Parse parses raw, a query string without its '?', into its parameters.
// It refuses, with an *Error, a query with more than maxParams parameters
// (counted as net/url counts them: one more than its '&' separators), a
// ';' in place of '&', and a '%' not followed by two hexadecimal digits.
// limit names the setting behind maxParams, for the message.
//
//	Parse("n=1&q=a%20b", 1000, "limits.queryParams") // {"n": ["1"], "q": ["a b"]}
//	Parse("n=1;q=2", 1000, "limits.queryParams")     // error: ';' is not a separator...
func Parse(raw string, maxParams int, limit string) (url.Values, error) {
	if n := strings.Count(raw, "&") + 1; n > maxParams {
		return nil, &Error{fmt.Sprintf("the query string has %d parameters, more than the %d the host accepts (%s)", n, maxParams, limit)}
	}
	if i := strings.IndexByte(raw, ';'); i >= 0 {
		return nil, &Error{fmt.Sprintf("the query string has a ';' at byte %d: parameters are separated by '&', and a ';' in a value is sent as %%3B", i)}
	}
	values, err := url.ParseQuery(raw)
	if err != nil {
		var esc url.EscapeError
		if errors.As(err, &esc) {
			return nil, &Error{fmt.Sprintf("the query string has an invalid escape %q: a '%%' starts two hexadecimal digits, and a '%%' itself is sent as %%25", string(esc))}
		}
		return nil, &Error{fmt.Sprintf("the query string does not parse: %v", err)}
	}
	return values, nil
}
