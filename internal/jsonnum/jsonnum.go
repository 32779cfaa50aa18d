// Package jsonnum takes JSON number literals (RFC 8259 §6) apart exactly,
// without arithmetic: the sign, the significant digits and where the
// decimal point falls. Comparing such literals, deciding whether one is an
// integer or within a range, and writing it canonically then need no
// floating point or math/big, so a literal such as 1e999999999 costs no
// more than its length. The host's JSON values (internal/jsonvalue) and the
// Go SDK's integer decoding share it.
package jsonnum

// Literal is a number literal taken apart: its value is
// 0.d1d2d3... × 10^Point, where d1d2d3... are the significant digits (the
// digits as written from the first non-zero one to the last non-zero
// one).
type Literal struct {
	Neg           bool
	IntPart, Frac string // the digits before and after the point
	// First and Last are the positions of the significant digits in
	// IntPart+Frac; First > Last for zero.
	First, Last int
	// Point places the decimal point: the value is 0.digits × 10^Point.
	Point int64
	// HasFrac and HasExp say whether the literal has a fraction and an
	// exponent.
	HasFrac, HasExp bool
}

// MaxExponent bounds the exponent read: larger exponents saturate, which
// keeps Point within int64 for any input and decides their range alike.
const MaxExponent = 1 << 30

// Parse parses a JSON number literal (RFC 8259 §6) in one pass.
func Parse(s string) (n Literal, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		n.Neg = true
		i++
	}
	start := i
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && IsDigit(s[i]) {
			i++
		}
	default:
		return n, false
	}
	n.IntPart = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && IsDigit(s[i]) {
			i++
		}
		if i == start {
			return n, false
		}
		n.Frac, n.HasFrac = s[start:i], true
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		n.HasExp = true
		i++
		negExp := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			negExp = s[i] == '-'
			i++
		}
		start = i
		for i < len(s) && IsDigit(s[i]) {
			if exp < MaxExponent {
				exp = exp*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == start {
			return n, false
		}
		if negExp {
			exp = -exp
		}
	}
	if i != len(s) {
		return n, false
	}
	total := len(n.IntPart) + len(n.Frac)
	n.First, n.Last = total, -1
	for k := 0; k < total; k++ {
		if n.Digit(k) != '0' {
			n.First = k
			break
		}
	}
	for k := total - 1; k >= n.First; k-- {
		if n.Digit(k) != '0' {
			n.Last = k
			break
		}
	}
	n.Point = int64(len(n.IntPart)-n.First) + exp
	return n, true
}

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

// Digit returns digit k of IntPart+Frac.
func (n *Literal) Digit(k int) byte {
	if k < len(n.IntPart) {
		return n.IntPart[k]
	}
	return n.Frac[k-len(n.IntPart)]
}

// Zero reports whether the value is zero (-0 too).
func (n *Literal) Zero() bool { return n.First > n.Last }

// Digits counts the significant digits.
func (n *Literal) Digits() int64 { return int64(n.Last - n.First + 1) }

// Integral reports whether the value is an integer.
func (n *Literal) Integral() bool { return n.Digits() <= n.Point }

// AppendDigits appends the significant digits.
func (n *Literal) AppendDigits(b []byte) []byte {
	for k := n.First; k <= n.Last; k++ {
		b = append(b, n.Digit(k))
	}
	return b
}

// CompareDigits compares the significant digits with the digits of m, both
// read as 0.ddd..., missing digits being zeros.
func (n *Literal) CompareDigits(m string) int {
	count := int(n.Digits())
	for k := 0; k < count || k < len(m); k++ {
		a, b := byte('0'), byte('0')
		if k < count {
			a = n.Digit(n.First + k)
		}
		if k < len(m) {
			b = m[k]
		}
		if a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	return 0
}
