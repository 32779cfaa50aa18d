// Package mediatype parses and compares media types (RFC 9110 §8.3.1) the
// way the contract, the document builder and the host all need them.
package mediatype

import (
	"fmt"
	"mime"
	"strings"
)

// Parse parses "type/subtype; params" into a canonical form (lower case,
// parameters sorted) and reports whether it is a range (*/* or type/*).
func Parse(s string) (canon string, wildcard bool, err error) {
	mt, params, err := mime.ParseMediaType(s)
	if err != nil {
		return "", false, fmt.Errorf("want type/subtype, such as \"image/png\" (%v)", err)
	}
	typ, sub, ok := strings.Cut(mt, "/")
	if !ok || typ == "" || sub == "" {
		return "", false, fmt.Errorf("want type/subtype, such as \"image/png\"")
	}
	return mime.FormatMediaType(mt, params), typ == "*" || sub == "*", nil
}

// Same compares two media types case-insensitively, parameters included;
// unparsable ones are compared as text, ignoring case.
func Same(a, b string) bool {
	ca, _, errA := Parse(a)
	cb, _, errB := Parse(b)
	if errA != nil || errB != nil {
		return strings.EqualFold(a, b)
	}
	return ca == cb
}

// IsJSON reports whether ct is application/json or an
// application/<name>+json profile, case-insensitively, with any parameters.
func IsJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	typ, sub, _ := strings.Cut(mt, "/")
	return typ == "application" && (sub == "json" || (strings.HasSuffix(sub, "+json") && len(sub) > len("+json")))
}
