package endpoints

import (
	"cmp"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/internal/jsonnum"
)

// Go numbers in JSON. JSON Schema's "integer" and "number" have no range,
// Go's numeric types do: the schema derived from an int8 says minimum -128
// and maximum 127, so the host refuses 128 with a 400 before the guest
// runs, instead of the SDK failing to decode it into the field (a failed
// call costs the instance). The same ranges check the number tags and
// values of a field (minimum:"300" on a uint8 is a registration error).
// Everything here works on the decimal text of JSON numbers, exactly,
// without math/big, which would grow every module.

// numRange is the range of a Go numeric type, as JSON numbers.
type numRange struct {
	goType   string // the Go type, for messages: "uint8", "main.Port"
	min, max string // JSON numbers
}

// maxFloat32 is math.MaxFloat32 as the shortest JSON number that reads
// back as it in a float32. It is a little larger than the exact value
// (by less than half a float32 step), so every JSON number up to it
// decodes into a float32 without overflow.
var maxFloat32 = strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32)

// maxFloat64 is math.MaxFloat64 as a JSON number, for messages.
var maxFloat64 = strconv.FormatFloat(math.MaxFloat64, 'g', -1, 64)

// rangeOf returns the range of values of type t when the schema of t
// states one: every integer kind, by its size on the target (int and uint
// are 64 bits under GOARCH=wasm, and on the 64-bit hosts the SDK's tests
// run natively), and float32. It is nil for float64 (JSON numbers beyond
// its range are rare enough to be left to the decoder's 400) and for any
// other type.
func rangeOf(t reflect.Type) *numRange {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32:
		r := kindRange(t.Kind(), t.Bits())
		r.goType = t.String()
		return r
	}
	return nil
}

// kindRange returns the range of numeric kind kind of the given size in
// bits; 0 means the size of kind on the target.
func kindRange(kind reflect.Kind, bits int) *numRange {
	if bits == 0 {
		bits = kindBits(kind)
	}
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		max := int64(math.MaxInt64 >> (64 - bits))
		return &numRange{goType: kind.String(), min: strconv.FormatInt(-1-max, 10), max: strconv.FormatInt(max, 10)}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &numRange{goType: kind.String(), min: "0", max: strconv.FormatUint(math.MaxUint64>>(64-bits), 10)}
	case reflect.Float32:
		return &numRange{goType: kind.String(), min: "-" + maxFloat32, max: maxFloat32}
	}
	return nil
}

// kindBits is the size of a numeric kind in bits on the target: int,
// uint and uintptr follow the platform (64 bits in WebAssembly).
func kindBits(kind reflect.Kind) int {
	switch kind {
	case reflect.Int8, reflect.Uint8:
		return 8
	case reflect.Int16, reflect.Uint16:
		return 16
	case reflect.Int32, reflect.Uint32, reflect.Float32:
		return 32
	case reflect.Int64, reflect.Uint64, reflect.Float64:
		return 64
	case reflect.Uintptr:
		return int(reflect.TypeFor[uintptr]().Bits())
	}
	return strconv.IntSize
}

// holds reports whether the JSON number n lies within r, bounds included.
func (r *numRange) holds(n string) bool {
	d, ok := parseDecimal(n)
	lo, _ := parseDecimal(r.min)
	hi, _ := parseDecimal(r.max)
	return ok && d.cmp(lo) >= 0 && d.cmp(hi) <= 0
}

// String describes the range in messages: "uint8 (0 to 255)".
func (r *numRange) String() string {
	return r.goType + " (" + r.min + " to " + r.max + ")"
}

// decimal is a JSON number read exactly: ±0.digits × 10^exp, where digits
// has no leading or trailing zeros. Zero has no digits.
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// maxExp caps the exponents of decimals: beyond it every number compares
// the same against the ranges of Go types, and arithmetic on it cannot
// overflow.
const maxExp = 1 << 24

// parseDecimal reads a JSON number (RFC 8259 §6); ok is false for any
// other text.
func parseDecimal(s string) (d decimal, ok bool) {
	n, ok := jsonnum.Parse(s)
	if !ok {
		return decimal{}, false
	}
	if n.Zero() {
		return decimal{}, true // and -0 is zero
	}
	digits := n.AppendDigits(make([]byte, 0, n.Digits()))
	return decimal{neg: n.Neg, digits: string(digits), exp: int(max(min(n.Point, maxExp), -maxExp))}, true
}

// sign returns -1, 0 or 1.
func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmp compares d and e: -1 when d < e, 0 when equal, 1 when d > e.
func (d decimal) cmp(e decimal) int {
	if ds, es := d.sign(), e.sign(); ds != es || ds == 0 {
		return cmp.Compare(ds, es)
	}
	// Same sign, both non-zero: compare magnitudes, then apply the sign.
	mag := cmp.Compare(d.exp, e.exp)
	if mag == 0 {
		// Without trailing zeros, the longer of two digit strings that
		// share a prefix is the larger number, as strings compare.
		mag = strings.Compare(d.digits, e.digits)
	}
	if d.neg {
		return -mag
	}
	return mag
}

// integral reports whether d is a whole number.
func (d decimal) integral() bool { return len(d.digits) <= d.exp || d.digits == "" }

// integerText returns the decimal digits of the whole number d, with its
// sign ("2.0", "2e0" and "20e-1" give "2"). d must be integral and its
// exponent small (the ranges of Go integers have at most 20 digits).
func (d decimal) integerText() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	b.WriteString(d.digits)
	for range d.exp - len(d.digits) {
		b.WriteByte('0')
	}
	return b.String()
}
