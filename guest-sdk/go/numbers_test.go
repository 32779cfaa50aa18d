package endpoints

import (
	"math/big"
	"strings"
	"testing"
)

// decimalPairs seed FuzzDecimalCompare: JSON numbers around the ranges of
// Go's types, in several spellings.
var decimalPairs = [][2]string{
	{"0", "-0"},
	{"0.0", "0e10"},
	{"1", "1.0"},
	{"2e0", "20e-1"},
	{"9223372036854775807", "9223372036854775808"},
	{"9.223372036854775807e18", "9223372036854775807"},
	{"-9223372036854775808", "-9223372036854775809"},
	{"18446744073709551615", "1.8446744073709551615e19"},
	{"3.4028235e+38", "340282346638528859811704183484516925440"},
	{"-3.4028235e+38", "-1e39"},
	{"0.5", "0.05"},
	{"12", "123"},
	{"13", "123"},
	{"-12", "-123"},
	{"1e-7", "0.0000001"},
	{"100", "1E2"},
	{"-0.25", "0.25"},
}

// TestParseDecimalRejectsWhatJSONRejects: only RFC 8259 numbers parse.
func TestParseDecimalRejectsWhatJSONRejects(t *testing.T) {
	for _, s := range []string{"", "-", "01", "1.", ".5", "+1", "1e", "1e+", "Inf", "NaN", "0x10", "1_000", " 1", "1 ", "--1", "1.2.3", "true", `"1"`} {
		if _, ok := parseDecimal(s); ok {
			t.Errorf("parseDecimal(%q) succeeded, want a failure", s)
		}
	}
}

// TestDecimalCompare compares JSON numbers exactly, as math/big does.
func TestDecimalCompare(t *testing.T) {
	for _, p := range decimalPairs {
		t.Run(p[0]+" vs "+p[1], func(t *testing.T) {
			checkCompare(t, p[0], p[1])
			checkCompare(t, p[1], p[0])
		})
	}
}

func FuzzDecimalCompare(f *testing.F) {
	for _, p := range decimalPairs {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		// math/big expands exponents: keep them small.
		for _, s := range []string{a, b} {
			if i := strings.IndexAny(s, "eE"); i >= 0 && len(s)-i > 4 {
				return
			}
		}
		checkCompare(t, a, b)
	})
}

// checkCompare checks decimal.cmp against big.Rat for two JSON numbers.
func checkCompare(t *testing.T, a, b string) {
	t.Helper()
	da, okA := parseDecimal(a)
	db, okB := parseDecimal(b)
	if !okA || !okB {
		return
	}
	ra, _ := new(big.Rat).SetString(a)
	rb, _ := new(big.Rat).SetString(b)
	if ra == nil || rb == nil {
		t.Fatalf("math/big cannot read %q or %q, which parseDecimal reads", a, b)
	}
	if got, want := da.cmp(db), ra.Cmp(rb); got != want {
		t.Errorf("cmp(%s, %s) = %d, want %d", a, b, got, want)
	}
	if got, want := da.integral(), ra.IsInt(); got != want {
		t.Errorf("integral(%s) = %v, want %v", a, got, want)
	}
	if da.integral() && da.exp <= 40 {
		if got := da.integerText(); got != ra.Num().String() {
			t.Errorf("integerText(%s) = %s, want %s", a, got, ra.Num())
		}
	}
}
