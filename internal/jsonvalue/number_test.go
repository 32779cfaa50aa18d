package jsonvalue

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestCanonicalNumber(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"integer", "42", "42"},
		{"negative integer", "-7", "-7"},
		{"zero", "0", "0"},
		{"negative zero", "-0", "0"},
		{"negative zero with fraction and exponent", "-0.000e-12", "0"},
		{"integer with .0", "2.0", "2"},
		{"integer with exponent 0", "2e0", "2"},
		{"integer with upper-case exponent and sign", "2E+0", "2"},
		{"1e1", "1e1", "10"},
		{"1E+2", "1E+2", "100"},
		{"1.5e3", "1.5e3", "1500"},
		{"trailing zeros before a negative exponent", "1500e-2", "15"},
		{"negative integer from exponent", "-1.25e2", "-125"},
		{"integer longer than 15 digits", "1234567890123456", "1234567890123456"},
		{"beyond int64", "9223372036854775808", "9223372036854775808"},
		{"exact beyond float64 precision", "12345678901234567890123", "12345678901234567890123"},
		{"exact from exponent", "1.2345678901234567890123e22", "12345678901234567890123"},
		{"1e21 is written out", "1e21", "1000000000000000000000"},
		{"1e308", "1e308", "1" + strings.Repeat("0", 308)},
		{"math.MaxFloat64 exactly", maxFloatDigits, maxFloatDigits},
		{"math.MaxFloat64 with a fraction of zeros", maxFloatDigits + ".000", maxFloatDigits},
		{"math.MaxFloat64 negative", "-" + maxFloatDigits, "-" + maxFloatDigits},
		{"0.1", "0.1", "0.1"},
		{"0.10", "0.10", "0.1"},
		{"1e-1", "1e-1", "0.1"},
		{"1.5", "1.5", "1.5"},
		{"negative fraction", "-0.5", "-0.5"},
		{"0.000001 is fixed", "0.000001", "0.000001"},
		{"1e-6 is fixed", "1e-6", "0.000001"},
		{"1e-7 uses an exponent", "1e-7", "1e-7"},
		{"1E-7", "1E-7", "1e-7"},
		{"0.00000015", "0.00000015", "1.5e-7"},
		{"1.5e-300", "1.5e-300", "1.5e-300"},
		{"smallest subnormal", "5e-324", "5e-324"},
		{"rounds up to the smallest subnormal", "2.5e-324", "5e-324"},
		{"smallest normal", "2.2250738585072014e-308", "2.2250738585072014e-308"},
		{"shortest round trip", "0.30000000000000004", "0.30000000000000004"},
		{"rounded to float64", "0.1000000000000000000001", "0.1"},
		{"rounded to an integer", "2.00000000000000000001", "2"},
		{"large fraction rounded", "123456789012345678901.5", "123456789012345680000"},
		{"fraction below math.MaxFloat64", "1" + strings.Repeat("0", 300) + ".5", "1" + strings.Repeat("0", 300)},
		{"pi", "3.141592653589793238462643383279", "3.141592653589793"},
		{"many leading zeros", "0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001e100", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalNumber(tt.in)
			if err != nil || string(got) != tt.want {
				t.Fatalf("CanonicalNumber(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			again, err := CanonicalNumber(string(got))
			if err != nil || again != got {
				t.Errorf("CanonicalNumber(%q) = %q, %v; want it unchanged", got, again, err)
			}
		})
	}
}

func TestCanonicalNumberErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
		isRange        bool
	}{
		{"1e309", "1e309", "number out of range: 1e309 exceeds the float64 range; send a number within ±1.7976931348623157e308", true},
		{"2e308", "-2e308", "number out of range: -2e308 exceeds the float64 range; send a number within ±1.7976931348623157e308", true},
		{"math.MaxFloat64 and a half", maxFloatDigits + ".5", "number out of range: 17976931348623157081452742373170…8368.5 exceeds the float64 range; send a number within ±1.7976931348623157e308", true},
		{"a billion-digit exponent", "1e999999999", "number out of range: 1e999999999 exceeds the float64 range; send a number within ±1.7976931348623157e308", true},
		{"an exponent beyond int64", "1e99999999999999999999999", "number out of range: 1e99999999999999999999999 exceeds the float64 range; send a number within ±1.7976931348623157e308", true},
		{"1e-400", "1e-400", "number out of range: 1e-400 is too small for a float64 and would round to 0; send 0 or a number of magnitude 5e-324 or more", true},
		{"half the smallest subnormal rounds to 0", "2.4703282292062327e-324", "number out of range: 2.4703282292062327e-324 is too small for a float64 and would round to 0; send 0 or a number of magnitude 5e-324 or more", true},
		{"a billion-digit negative exponent", "-7e-999999999", "number out of range: -7e-999999999 is too small for a float64 and would round to 0; send 0 or a number of magnitude 5e-324 or more", true},
		{"empty", "", `"" is not a JSON number (RFC 8259 §6)`, false},
		{"leading zero", "01", `"01" is not a JSON number (RFC 8259 §6)`, false},
		{"plus sign", "+1", `"+1" is not a JSON number (RFC 8259 §6)`, false},
		{"bare point", ".5", `".5" is not a JSON number (RFC 8259 §6)`, false},
		{"trailing point", "5.", `"5." is not a JSON number (RFC 8259 §6)`, false},
		{"hex", "0x10", `"0x10" is not a JSON number (RFC 8259 §6)`, false},
		{"infinity", "Infinity", `"Infinity" is not a JSON number (RFC 8259 §6)`, false},
		{"spaces", " 1", `" 1" is not a JSON number (RFC 8259 §6)`, false},
		{"exponent without digits", "1e+", `"1e+" is not a JSON number (RFC 8259 §6)`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalNumber(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("CanonicalNumber(%q) = %q, %v;\nwant error %s", tt.in, got, err, tt.want)
			}
			if errors.Is(err, ErrRange) != tt.isRange {
				t.Errorf("errors.Is(err, ErrRange) = %v, want %v", !tt.isRange, tt.isRange)
			}
		})
	}
}

func TestMaxFloatDigits(t *testing.T) {
	if len(maxFloatDigits) != maxExact {
		t.Errorf("math.MaxFloat64 has %d digits, want %d", len(maxFloatDigits), maxExact)
	}
	f, err := strconv.ParseFloat(maxFloatDigits, 64)
	if err != nil || f != math.MaxFloat64 {
		t.Errorf("ParseFloat(maxFloatDigits) = %v, %v; want math.MaxFloat64", f, err)
	}
}

// TestCanonicalNumberAgreesWithFloat64 checks that every canonical form
// reads back as the same float64 as its input, over numbers of every
// magnitude.
func TestCanonicalNumberAgreesWithFloat64(t *testing.T) {
	for exp := -323; exp <= 308; exp++ {
		for _, mant := range []string{"1", "1.7976931348623157", "4.9406564584124654", "9.999999999999999", "3.3333333333333335", "1.25"} {
			in := mant + "e" + strconv.Itoa(exp)
			want, err := strconv.ParseFloat(in, 64)
			if err != nil || want == 0 || math.IsInf(want, 0) {
				continue
			}
			got, err := CanonicalNumber(in)
			if err != nil {
				t.Errorf("CanonicalNumber(%q): %v", in, err)
				continue
			}
			if f, err := strconv.ParseFloat(string(got), 64); err != nil || f != want {
				t.Errorf("CanonicalNumber(%q) = %q, which reads as %v, want %v", in, got, f, want)
			}
		}
	}
}
