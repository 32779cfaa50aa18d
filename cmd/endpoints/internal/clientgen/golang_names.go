package clientgen

import (
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// goInitialisms are the words Go spells in capitals (as golint and the
// standard library do): getApiUsersById → GetAPIUsersByID.
var goInitialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "CSV": true, "DNS": true, "EOF": true,
	"GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true, "JSON": true, "JWT": true,
	"LHS": true, "OK": true, "QPS": true, "RAM": true, "RHS": true, "RPC": true, "SLA": true, "SMTP": true, "SQL": true,
	"SSE": true, "SSH": true, "TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true,
	"URI": true, "URL": true, "UTF8": true, "UUID": true, "VM": true, "XML": true, "XMPP": true, "XSRF": true,
	"XSS": true,
}

// goWords splits s into words: at every rune that is neither a letter nor
// a digit, before an upper-case letter that follows a lower-case letter or
// a digit, and before the last capital of a run followed by a lower-case
// letter (HTTPServer → HTTP, Server).
func goWords(s string) []string {
	var words []string
	for _, chunk := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		rs := []rune(chunk)
		start := 0
		for i := 1; i < len(rs); i++ {
			prev, cur := rs[i-1], rs[i]
			next := rune(0)
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			if unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev) ||
				unicode.IsUpper(prev) && unicode.IsLower(next)) {
				words = append(words, string(rs[start:i]))
				start = i
			}
		}
		words = append(words, string(rs[start:]))
	}
	return words
}

// goName makes an exported Go identifier of s: each word capitalised,
// initialisms in capitals, words written in capitals (SCREAMING_CASE)
// lower-cased after their first letter. It starts with "X" when s starts
// with a digit and is "X" when s has no letter or digit.
//
//	goName("getApiUsersById")         // GetAPIUsersByID
//	goName("IDEMPOTENCY_KEY_REQUIRED") // IdempotencyKeyRequired
//	goName("application/problem+json") // ApplicationProblemJSON
func goName(s string) string {
	var b strings.Builder
	for _, w := range goWords(s) {
		upper := strings.ToUpper(w)
		switch {
		case goInitialisms[upper]:
			b.WriteString(upper)
		case len(w) > 2 && w != upper && w[len(w)-1] == 's' && goInitialisms[upper[:len(upper)-1]]:
			b.WriteString(upper[:len(upper)-1] + "s") // ids → IDs
		case w == upper:
			r, n := utf8.DecodeRuneInString(w)
			b.WriteRune(r)
			b.WriteString(strings.ToLower(w[n:]))
		default:
			r, n := utf8.DecodeRuneInString(w)
			b.WriteRune(unicode.ToUpper(r))
			b.WriteString(w[n:])
		}
	}
	name := b.String()
	if r, _ := utf8.DecodeRuneInString(name); name == "" || !unicode.IsLetter(r) {
		name = "X" + name
	}
	return name
}

// goNamer hands out identifiers unique within one scope (the package, a
// struct's fields, a type's methods): a name already taken gets the
// first free numeric suffix, 2 upwards. Names are claimed in a fixed
// order, so the output is the same on every run.
type goNamer struct {
	taken map[string]bool
}

func newGoNamer(reserved ...string) *goNamer {
	n := &goNamer{taken: map[string]bool{}}
	for _, r := range reserved {
		n.taken[r] = true
	}
	return n
}

// claim returns want, or want with a suffix when want is taken, and takes
// it.
func (n *goNamer) claim(want string) string {
	name := want
	for i := 2; n.taken[name]; i++ {
		name = want + strconv.Itoa(i)
	}
	n.taken[name] = true
	return name
}

// goStatusName names a status for a response field: http.StatusText's words
// (404 → NotFound, 200 → OK), or Status and the number when the status has
// no registered text.
func goStatusName(status int) string {
	if text := http.StatusText(status); text != "" {
		return goName(text)
	}
	return "Status" + strconv.Itoa(status)
}

// goMediaName names a media type for a field that tells one of several
// apart: its subtype's words (application/problem+json → ProblemJSON,
// image/svg+xml → SvgXML), the whole type for "*" ranges.
func goMediaName(mediaType string) string {
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(mediaType, ";", 2)[0]))
	typ, sub, _ := strings.Cut(mt, "/")
	switch {
	case typ == "*":
		return "Any"
	case sub == "*" || sub == "":
		return goName(typ)
	}
	return goName(sub)
}
