package negotiate

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSyntax is wrapped by every error [Parse] returns: the Accept header does not follow RFC 9110 §12.5.1.
//
// The wrapping error names the byte offset and what was expected there, for example
//
//	negotiate: malformed Accept header "text/": byte 5: want a subtype token after "/", as in "text/plain"
var ErrSyntax = errors.New("negotiate: malformed Accept header")

// Range is one media range of an Accept header (RFC 9110 §12.5.1) with its weight.
//
// For example "Text/HTML;Level=1;q=0.5" is
//
//	Range{Type: "text", Subtype: "html", Params: map[string]string{"level": "1"}, Q: 0.5}
//
// # Notes
//
//   - Type and Subtype are lower case; "*" is a wildcard ("*/*" or "type/*").
//   - Params holds the media type parameters before the weight, names in lower case and values unquoted
//     (RFC 9110 §5.6.6); it is nil when there are none. A name given twice keeps its last value.
//   - Q is the weight (RFC 9110 §12.4.2), 1 when absent, always in [0, 1] with at most three decimals.
//     Parameters after the weight (RFC 7231 "accept-ext") are checked for syntax and dropped.
type Range struct {
	// Type is the top-level type in lower case, "*" for "*/*".
	Type string
	// Subtype is the subtype in lower case, "*" for "*/*" and "type/*".
	Subtype string
	// Params are the media type parameters (lower-case names, unquoted values), nil when there are none.
	Params map[string]string
	// Q is the weight in [0, 1]; 0 means "not acceptable".
	Q float64
}

// Parse splits an Accept header value into its media ranges, in header order.
//
// accept is the field value, several field lines joined with ", ". Empty list elements ("a/b,,c/d") are
// skipped as RFC 9110 §5.6.1.2 requires of recipients, so "" and " , " give no ranges and no error.
//
//	rs, err := negotiate.Parse("text/html, */*;q=0.8")
//	// rs[1] == Range{Type: "*", Subtype: "*", Q: 0.8}
//
// # Notes
//
//   - Any syntax error anywhere makes the whole header invalid: the error wraps [ErrSyntax] and names the
//     byte offset. "text/", ";q=0.5", "*/html", "q=2", "text/html;q=1.5" and "text/html;q=0.1234" are errors.
//   - Parse allocates its result; [Choose] does not call it and parses without building maps.
func Parse(accept string) ([]Range, error) {
	var buf [stackRanges]mrange
	rs, e := parseAccept(buf[:0], accept)
	if e.want != "" {
		return nil, e.err(accept)
	}
	if len(rs) == 0 {
		return nil, nil
	}
	out := make([]Range, len(rs))
	for i, r := range rs {
		out[i] = Range{Type: strings.ToLower(r.typ), Subtype: strings.ToLower(r.sub), Q: float64(r.q) / 1000}
		if r.nparams == 0 {
			continue
		}
		out[i].Params = make(map[string]string, r.nparams)
		for ps := r.params; ; {
			var name, val string
			var ok bool
			if name, val, ps, ok = nextParam(ps); !ok {
				break
			}
			out[i].Params[strings.ToLower(name)] = unquote(val)
		}
	}
	return out, nil
}

// stackRanges is how many media ranges [Choose] keeps on the stack; a longer header costs one allocation.
// Browsers send 3 to 10.
const stackRanges = 16

// maxQ is the weight 1 in thousandths: weights are kept as integers 0..1000 (RFC 9110 §12.4.2 allows at
// most three decimals), so comparing them is exact.
const maxQ = 1000

// mrange is a media range as [Choose] uses it: substrings of the header, nothing copied.
type mrange struct {
	typ, sub string
	// params is the checked parameter section before the weight, as written: `; a=b;c="d"`.
	params string
	// nparams counts the parameters in params.
	nparams int
	// q is the weight in thousandths, maxQ when absent.
	q int
	// weighted reports whether a "q" parameter was given.
	weighted bool
}

// syntaxErr locates a syntax error without allocating; want == "" means no error.
type syntaxErr struct {
	off  int
	want string
	// name is the type or parameter name that want refers to, if any.
	name string
}

func (e syntaxErr) err(accept string) error {
	if e.name != "" {
		return fmt.Errorf("%w %q: byte %d: want %s %q", ErrSyntax, accept, e.off, e.want, e.name)
	}
	return fmt.Errorf("%w %q: byte %d: want %s", ErrSyntax, accept, e.off, e.want)
}

// parseAccept appends the media ranges of the Accept value s to dst.
//
// Grammar (RFC 9110 §12.5.1, lists §5.6.1, tokens §5.6.2, quoted strings §5.6.4, parameters §5.6.6,
// weights §12.4.2):
//
//	Accept          = #( media-range [ weight ] )
//	media-range     = ( "*/*" / ( type "/" "*" ) / ( type "/" subtype ) ) parameters
//	parameters      = *( OWS ";" OWS [ parameter ] )
//	parameter       = parameter-name "=" parameter-value
//	parameter-value = ( token / quoted-string )
//	weight          = OWS ";" OWS "q=" qvalue
//	qvalue          = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
//
// After the weight, RFC 7231 §5.3.2 accept-ext parameters (token [ "=" value ]) are accepted and ignored.
func parseAccept(dst []mrange, s string) ([]mrange, syntaxErr) {
	i := 0
	for {
		// Separators and empty list elements (RFC 9110 §5.6.1.2).
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
		if i == len(s) {
			return dst, syntaxErr{}
		}
		r, next, e := parseRange(s, i)
		if e.want != "" {
			return dst, e
		}
		if next < len(s) && s[next] != ',' {
			return dst, syntaxErr{next, `"," between media ranges`, ""}
		}
		dst = append(dst, r)
		i = next
	}
}

// parseRange parses one media range with its weight and parameters starting at s[i]. It stops, after
// optional whitespace, at a "," or the end of s and returns that position.
func parseRange(s string, i int) (mrange, int, syntaxErr) {
	typ, j := token(s, i)
	if typ == "" {
		return mrange{}, i, syntaxErr{i, `a media range such as "text/html", "image/*" or "*/*"`, ""}
	}
	if j == len(s) || s[j] != '/' {
		return mrange{}, j, syntaxErr{j, `"/" after the type`, typ}
	}
	sub, k := token(s, j+1)
	if sub == "" {
		return mrange{}, j + 1, syntaxErr{j + 1, `a subtype token after "/", as in "text/plain"`, ""}
	}
	if typ == "*" && sub != "*" {
		return mrange{}, i, syntaxErr{i, `"*/*": a "*" type needs a "*" subtype`, ""}
	}
	r := mrange{typ: typ, sub: sub, q: maxQ}
	start, end := k, k // the parameter section before the weight
	i = k
	for {
		p := skipOWS(s, i)
		if p == len(s) || s[p] == ',' {
			if !r.weighted {
				r.params = s[start:end]
			}
			return r, p, syntaxErr{}
		}
		if s[p] != ';' {
			return mrange{}, p, syntaxErr{p, `";" before a parameter or "," before the next media range`, ""}
		}
		semi := p
		p = skipOWS(s, p+1)
		if p == len(s) || s[p] == ',' || s[p] == ';' {
			i = p // an empty parameter: "text/plain;;a=b" and "text/plain;" are allowed
			continue
		}
		name, n := token(s, p)
		if name == "" {
			return mrange{}, p, syntaxErr{p, `a parameter name token after ";"`, ""}
		}
		if r.weighted && isQ(name) {
			return mrange{}, p, syntaxErr{p, `one weight per media range, not a second "q"`, ""}
		}
		if n == len(s) || s[n] != '=' {
			if r.weighted { // accept-ext without a value
				i = n
				continue
			}
			return mrange{}, n, syntaxErr{n, `"=" after the parameter name`, name}
		}
		val, v, ok := value(s, n+1)
		if !ok {
			return mrange{}, n + 1, syntaxErr{n + 1, `a token or quoted-string value for the parameter`, name}
		}
		i = v
		switch {
		case isQ(name):
			q, ok := qvalue(val)
			if !ok {
				return mrange{}, n + 1, syntaxErr{n + 1, `a weight from 0 to 1 with at most three decimals, such as q=0.8`, ""}
			}
			r.q, r.weighted = q, true
			r.params = s[start:semi]
		case !r.weighted:
			r.nparams++
			end = v
		}
	}
}

// parseOffer parses an offered media type ("text/csv; charset=utf-8"). ok is false when offer is not a
// single media type, or has a "q" parameter.
func parseOffer(offer string) (typ, sub, params string, ok bool) {
	r, i, e := parseRange(offer, skipOWS(offer, 0))
	if e.want != "" || i != len(offer) || r.weighted {
		return "", "", "", false
	}
	return r.typ, r.sub, r.params, true
}

// nextParam returns the first parameter of a checked parameter section and the rest of it; ok is false
// at the end.
func nextParam(ps string) (name, val, rest string, ok bool) {
	i := 0
	for i < len(ps) && (ps[i] == ' ' || ps[i] == '\t' || ps[i] == ';') {
		i++
	}
	name, j := token(ps, i)
	if name == "" || j == len(ps) || ps[j] != '=' {
		return "", "", "", false
	}
	val, k, ok := value(ps, j+1)
	if !ok {
		return "", "", "", false
	}
	return name, val, ps[k:], true
}

// token returns the token (RFC 9110 §5.6.2) starting at s[i], empty when there is none, and the index after it.
func token(s string, i int) (string, int) {
	j := i
	for j < len(s) && isTchar(s[j]) {
		j++
	}
	return s[i:j], j
}

// value returns a parameter value starting at s[i], a token or a quoted-string with its quotes
// (RFC 9110 §5.6.4), and the index after it.
func value(s string, i int) (string, int, bool) {
	if i == len(s) || s[i] != '"' {
		t, j := token(s, i)
		return t, j, t != ""
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return s[i : j+1], j + 1, true
		case c == '\\':
			j++
			if j == len(s) || !isQuotedPairChar(s[j]) {
				return "", j, false
			}
		case !isQdtext(c):
			return "", j, false
		}
	}
	return "", len(s), false
}

// qvalue converts a weight (RFC 9110 §12.4.2) to thousandths.
func qvalue(v string) (int, bool) {
	if v == "" || len(v) > 5 || (v[0] != '0' && v[0] != '1') {
		return 0, false
	}
	q := int(v[0]-'0') * maxQ
	if len(v) == 1 {
		return q, true
	}
	if v[1] != '.' {
		return 0, false
	}
	scale := 100
	for _, c := range []byte(v[2:]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		q += int(c-'0') * scale
		scale /= 10
	}
	return q, q <= maxQ
}

// unquote returns the value of a token or quoted-string.
func unquote(v string) string {
	if len(v) < 2 || v[0] != '"' {
		return v
	}
	var b strings.Builder
	b.Grow(len(v) - 2)
	for i := 1; ; {
		c, next, end := valueByte(v, i)
		if end {
			return b.String()
		}
		b.WriteByte(c)
		i = next
	}
}

// valueByte returns the byte of the quoted-string v at i with escapes resolved, the index of the next one,
// and end at the closing quote.
func valueByte(v string, i int) (c byte, next int, end bool) {
	if i >= len(v) || v[i] == '"' {
		return 0, i, true
	}
	if v[i] == '\\' && i+1 < len(v) {
		return v[i+1], i + 2, false
	}
	return v[i], i + 1, false
}

func skipOWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func isQ(name string) bool { return len(name) == 1 && (name[0] == 'q' || name[0] == 'Q') }

// isTchar reports whether c may appear in a token (RFC 9110 §5.6.2).
func isTchar(c byte) bool { return tchars[c] }

// tchars is the token character set of RFC 9110 §5.6.2, as a table: it is looked up for every byte of a header.
var tchars = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", byte(c)) >= 0
	}
	return t
}()

// isQdtext reports whether c may appear unescaped in a quoted-string (RFC 9110 §5.6.4).
func isQdtext(c byte) bool {
	return c == '\t' || c == ' ' || c == 0x21 || (0x23 <= c && c <= 0x5B) || (0x5D <= c && c <= 0x7E) || c >= 0x80
}

// isQuotedPairChar reports whether c may follow a backslash in a quoted-string (RFC 9110 §5.6.4).
func isQuotedPairChar(c byte) bool { return c == '\t' || (0x20 <= c && c <= 0x7E) || c >= 0x80 }
