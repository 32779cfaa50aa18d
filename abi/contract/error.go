package contract

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Issue is one thing wrong with a contract.
//
//	Issue{Pointer: "/request/query/properties/limit/minimum", Rule: "type", Message: "got string, want number"}
//
// # Notes
//
//   - Pointer is an RFC 6901 JSON pointer into the contract; "" is the
//     whole contract (printed "/" by [Issue.String]).
//   - An unknown key is reported at the key itself ("/respones"), so the
//     pointer always names what to edit.
type Issue struct {
	// Pointer locates the offending value in the contract.
	Pointer string
	// Rule names what was broken: a JSON Schema keyword of
	// contract.schema.json or of the 2020-12 meta-schema ("type",
	// "additionalProperties", "pattern", "enum", ...), one of the
	// Rule constants of this package ("endpoints/json-profile", ...), or
	// [RuleJSON] for a contract that is not JSON at all.
	Rule string
	// Message says what was found and what was expected.
	Message string
}

// String formats the issue as "pointer: rule: message", with "/" for the
// root pointer and the pointer quoted if a key in it holds a control
// character.
func (i Issue) String() string {
	return showPointer(i.Pointer) + ": " + i.Rule + ": " + i.Message
}

// showPointer prints a pointer for people: "/" for the root, quoted when a
// key in it holds a character that would break the line.
func showPointer(p string) string {
	if p == "" {
		return "/"
	}
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}

// Error is what [Parse] returns for a contract that is not valid: every issue
// found, sorted by pointer (then rule and message), so the text is the same
// from one run to the next.
//
// Its text has one line per issue:
//
//	server/api/users/[id].get.wasm: contract: /request/query/properties/limit/minimum: type: got string, want number
//	server/api/users/[id].get.wasm: contract: /respones: additionalProperties: unknown key "respones" at the top level; ...
//
// Use [errors.As] to get at the issues:
//
//	var cerr *contract.Error
//	if errors.As(err, &cerr) {
//		for _, is := range cerr.Issues { ... }
//	}
type Error struct {
	// File is the module the contract came from, as given to [Parse].
	File string
	// Issues is never empty.
	Issues []Issue
}

// Error returns one line per issue: "file: contract: pointer: rule: message".
// The "file: " prefix is left out when File is empty.
func (e *Error) Error() string {
	prefix := "contract: "
	if e.File != "" {
		prefix = e.File + ": " + prefix
	}
	var b strings.Builder
	for i, is := range e.Issues {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(prefix)
		b.WriteString(is.String())
	}
	return b.String()
}

// pointer builds an RFC 6901 JSON pointer from reference tokens.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// child appends one reference token to a pointer.
func child(ptr, token string) string {
	return ptr + "/" + escapeToken(token)
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func unescapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// splitPointer returns the unescaped reference tokens of ptr.
func splitPointer(ptr string) []string {
	if ptr == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		parts[i] = unescapeToken(p)
	}
	return parts
}

// comparePointers orders pointers token by token, array indexes
// numerically, so "/media/2" comes before "/media/10" and a parent before its
// children.
func comparePointers(a, b string) int {
	ta, tb := splitPointer(a), splitPointer(b)
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if c := compareTokens(ta[i], tb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ta), len(tb))
}

func compareTokens(a, b string) int {
	na, errA := strconv.Atoi(a)
	nb, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		if c := cmp.Compare(na, nb); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

// sortIssues sorts issues by pointer, rule and message and drops exact
// duplicates.
func sortIssues(issues []Issue) []Issue {
	slices.SortFunc(issues, func(a, b Issue) int {
		if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		if c := strings.Compare(a.Rule, b.Rule); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(issues)
}
