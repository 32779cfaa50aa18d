package jsonvalue

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"

	"github.com/wasmendpoints/endpoints/internal/jsonnum"
)

// ErrRange is the cause of every error about a number beyond what a float64
// holds: larger in magnitude than math.MaxFloat64, or not zero but so close
// to zero that it would round to 0. Test for it with errors.Is.
var ErrRange = errors.New("number out of range")

// maxFloatDigits holds the decimal digits of math.MaxFloat64, an integer of
// 309 digits: the largest magnitude a number may have.
var maxFloatDigits = func() string {
	n, _ := new(big.Float).SetFloat64(math.MaxFloat64).Int(nil)
	return n.String()
}()

// maxExact is the exponent (see jsonnum.Literal.Point) of math.MaxFloat64.
const maxExact = 309

// CanonicalNumber returns the canonical form of the JSON number literal s
// (RFC 8259 §6), or an error when s is not a number literal or is out of
// range (errors.Is(err, ErrRange)).
//
// A number whose value, as written, is an integer becomes its exact decimal
// digits, without sign for zero; any other number becomes the float64
// nearest to it, written in the shortest form that reads back as that
// float64. The forms are those of ECMAScript's Number.prototype.toString
// (and so of RFC 8785 §3.2.2.3), except that integers are never written
// with an exponent:
//
//	2.0, 2e0, 2E+0    -> 2
//	1e1, 1.5e3        -> 10, 1500
//	-0, -0.0          -> 0
//	1e21              -> 1000000000000000000000
//	12345678901234567890123 -> 12345678901234567890123 (exact)
//	0.10, 1e-1        -> 0.1
//	0.000001          -> 0.000001
//	1E-7, 0.00000015  -> 1e-7, 1.5e-7
//	2.00000000000000000001 -> 2 (rounded to float64 first, then an integer)
//
// # Notes
//
//   - Range: a number is accepted when its exact value lies within
//     ±math.MaxFloat64 and it does not round to 0 unless it is 0, so 1e308
//     and 5e-324 pass while 1e309, 2e308 and 1e-400 do not. Integers are
//     therefore at most 309 digits long.
//   - Cost: the exponent is read with saturation and the range is decided on
//     the digits as written, before any arithmetic: 1e999999999 is refused
//     at once, and nothing ever builds a billion-digit integer.
//   - Precision: numbers that are not integers are rounded to float64, so
//     0.1000000000000000000001 becomes 0.1 and 123456789012345678901.5
//     becomes 123456789012345680000. The canonical value is what the host
//     validates and hands on, so a guest always receives exactly the value
//     the schema accepted.
func CanonicalNumber(s string) (json.Number, error) {
	c, _, err := canonical(s)
	return json.Number(c), err
}

// canonical is CanonicalNumber that also reports whether s was canonical
// already; it then returns s itself, without allocating.
func canonical(s string) (c string, same bool, err error) {
	if plainInteger(s) {
		return s, true, nil
	}
	n, ok := jsonnum.Parse(s)
	if !ok {
		return "", false, &numberError{lit: s, kind: notNumber}
	}
	if n.Zero() {
		return "0", s == "0", nil
	}
	if n.Point > maxExact || n.Point == maxExact && n.CompareDigits(maxFloatDigits) > 0 {
		return "", false, &numberError{lit: s, kind: tooLarge}
	}
	if n.Integral() {
		if !n.HasFrac && !n.HasExp {
			// Digits as written: JSON has no leading zeros, and -0 is
			// taken care of above.
			return s, true, nil
		}
		b := make([]byte, 0, int(n.Point)+1)
		if n.Neg {
			b = append(b, '-')
		}
		b = n.AppendDigits(b)
		for i := n.Digits(); i < n.Point; i++ {
			b = append(b, '0')
		}
		return string(b), false, nil
	}
	// Below 10^-324 a number rounds to 0 whatever its digits; checking it
	// here keeps huge negative exponents away from strconv.
	if n.Point < -323 {
		return "", false, &numberError{lit: s, kind: tooSmall}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// The checks above keep f within range: not expected.
		return "", false, &numberError{lit: s, kind: tooLarge}
	}
	if f == 0 {
		return "", false, &numberError{lit: s, kind: tooSmall}
	}
	var buf [32]byte
	b := appendFloat(buf[:0], f)
	if string(b) == s {
		return s, true, nil
	}
	return string(b), false, nil
}

// plainInteger reports whether s is an integer of at most 15 digits
// written canonically: such a number is in range and needs no work.
func plainInteger[T string | []byte](s T) bool {
	i := 0
	if len(s) > 0 && s[0] == '-' {
		i = 1
	}
	n := len(s) - i
	if n == 0 || n > 15 || s[i] == '0' && (n > 1 || i == 1) {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// appendFloat appends the canonical form of a finite float64: shortest
// digits, fixed notation from 1e-6 up, exponent notation (1e-7, 1.5e-7)
// below.
func appendFloat(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	if math.Abs(f) >= 1e-6 {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'e', -1, 64) // e.g. 1.5e-07
	e := start
	for b[e] != 'e' {
		e++
	}
	// Drop the exponent's leading zeros: e-07 becomes e-7.
	z := e + 2
	for z < len(b)-1 && b[z] == '0' {
		z++
	}
	return append(b[:e+2], b[z:]...)
}

type numberErrorKind uint8

const (
	notNumber numberErrorKind = iota
	tooLarge
	tooSmall
)

// numberError says why a literal is not a number the host accepts.
type numberError struct {
	lit  string
	kind numberErrorKind
}

func (e *numberError) Error() string {
	switch e.kind {
	case tooLarge:
		return "number out of range: " + excerpt(e.lit) + " exceeds the float64 range; send a number within ±1.7976931348623157e308"
	case tooSmall:
		return "number out of range: " + excerpt(e.lit) + " is too small for a float64 and would round to 0; send 0 or a number of magnitude 5e-324 or more"
	}
	return strconv.Quote(excerpt(e.lit)) + " is not a JSON number (RFC 8259 §6)"
}

func (e *numberError) Is(target error) bool { return target == ErrRange && e.kind != notNumber }

// excerpt shortens a literal quoted in a message.
func excerpt(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max-8] + "…" + s[len(s)-6:]
}
