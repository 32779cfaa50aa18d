package fetch

// Header holds HTTP headers by name, like net/http's Header (it converts
// to one: http.Header(h)). Its methods put a name in canonical form
// ("content-type" is "Content-Type"), as net/http does; a literal map
// should use canonical names for Get to find them.
type Header map[string][]string

// Add appends value to the values of name.
func (h Header) Add(name, value string) {
	k := CanonicalName(name)
	h[k] = append(h[k], value)
}

// Set replaces the values of name with value.
func (h Header) Set(name, value string) { h[CanonicalName(name)] = []string{value} }

// Get returns the first value of name, or "".
func (h Header) Get(name string) string {
	if v := h[CanonicalName(name)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Values returns every value of name.
func (h Header) Values(name string) []string { return h[CanonicalName(name)] }

// Del removes name.
func (h Header) Del(name string) { delete(h, CanonicalName(name)) }

// CanonicalName returns name with its first letter and each letter after
// a hyphen in upper case, the others in lower case, as
// net/textproto.CanonicalMIMEHeaderKey does; a name holding a space or a
// byte that is not a token's is returned as it is.
func CanonicalName(name string) string {
	upper := true
	canonical := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isToken(c) {
			return name
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			canonical = false
		}
		upper = c == '-'
	}
	if canonical {
		return name
	}
	b := []byte(name)
	upper = true
	for i, c := range b {
		if upper && 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		} else if !upper && 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
		upper = c == '-'
	}
	return string(b)
}

// isToken reports whether c may appear in a header name (RFC 9110 §5.6.2).
func isToken(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}
