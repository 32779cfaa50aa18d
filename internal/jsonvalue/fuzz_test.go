package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FuzzDecode checks Decode against encoding/json (through
// jsonschema.UnmarshalJSON, what the host used before): Decode never
// panics; it accepts exactly what encoding/json accepts without duplicate
// names, invalid UTF-8, lone surrogates, nesting deeper than the limit or
// numbers out of range, and then the values agree; what it refuses comes
// with an error of its own words; AppendValue writes canonical JSON that
// decodes back equal. Run it with
//
//	go test ./internal/jsonvalue -run '^$' -fuzz FuzzDecode -fuzztime 60s
func FuzzDecode(f *testing.F) {
	for _, tt := range decodeCases {
		f.Add([]byte(tt.in))
	}
	for _, tt := range errorCases {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte(smallBody))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, canonical, err := Decode(data, Limits{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode(%q) error %T %v, want an *Error", data, err, err)
			}
			if e.fallback {
				t.Errorf("Decode(%q) explains nothing itself: %s", data, e.Message)
			}
			if e.Offset < 0 || e.Offset > len(data) || !strings.HasPrefix(e.Message, "invalid JSON at byte "+strconv.Itoa(e.Offset)+": ") {
				t.Errorf("Decode(%q): offset %d, message %q", data, e.Offset, e.Message)
			}
			if e.Path == nil || pointer(e.Path) != e.Pointer {
				t.Errorf("Decode(%q): path %#v and pointer %q disagree", data, e.Path, e.Pointer)
			}
			if v != nil || canonical {
				t.Errorf("Decode(%q) = %#v, %v with an error", data, v, canonical)
			}
		} else {
			checkRoundTrip(t, v)
		}

		ref, refErr := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if refErr != nil {
			if err == nil {
				t.Fatalf("Decode(%q) accepts what encoding/json refuses (%v)", data, refErr)
			}
			return
		}
		inRange := numbersInRange(t, ref)
		want := jsontext.Value(data).IsValid() && depth(ref) <= DefaultMaxDepth && count(ref) <= DefaultMaxValues && inRange
		switch {
		case want && err != nil:
			t.Fatalf("Decode(%q) refuses a value encoding/json reads as %#v: %v", data, ref, err)
		case !want && err == nil:
			t.Fatalf("Decode(%q) = %#v, want an error (duplicate names, invalid strings, too deep or out of range)", data, v)
		case err != nil:
			return
		}
		if !equal(v, ref) {
			t.Errorf("Decode(%q) = %#v, encoding/json reads %#v", data, v, ref)
		}
		if got := allCanonical(ref); canonical != got {
			t.Errorf("Decode(%q) canonical = %v, want %v", data, canonical, got)
		}
	})
}

// FuzzCanonicalNumber checks CanonicalNumber on its own, where the fuzzer
// mutates numbers faster than inside documents: never a panic; a number
// literal in range comes back with the same value (exact for integers, the
// same float64 otherwise) and unchanged by a second call; one out of range
// gives ErrRange; anything else is not a number.
//
//	go test ./internal/jsonvalue -run '^$' -fuzz FuzzCanonicalNumber -fuzztime 60s
func FuzzCanonicalNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "2.0", "2e0", "1e1", "1E+2", "0.1", "1e-7", "1e308", "1e309", "1e-400",
		"9223372036854775808", "1e999999999", "5e-324", "2.4703282292062328e-324", maxFloatDigits, maxFloatDigits + ".5", "01", "1."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) || strings.TrimSpace(s) != s || s == "" || !strings.ContainsAny(s[:1], "-0123456789") {
			if _, err := CanonicalNumber(s); err == nil || errors.Is(err, ErrRange) {
				t.Errorf("CanonicalNumber(%q) = %v, want an error saying it is not a number", s, err)
			}
			return
		}
		checkNumber(t, s)
	})
}

// depth counts the nesting of arrays and objects.
func depth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			d = max(d, depth(e))
		}
		return d + 1
	case []any:
		for _, e := range v {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

// numbersInRange reports whether every number of v is in range, decided
// without CanonicalNumber, and checks CanonicalNumber's result for each.
func numbersInRange(t *testing.T, v any) bool {
	switch v := v.(type) {
	case map[string]any:
		ok := true
		for _, e := range v {
			ok = numbersInRange(t, e) && ok
		}
		return ok
	case []any:
		ok := true
		for _, e := range v {
			ok = numbersInRange(t, e) && ok
		}
		return ok
	case json.Number:
		return checkNumber(t, string(v))
	}
	return true
}

// checkNumber decides whether the literal s is in range with strconv and
// math/big, and checks that CanonicalNumber agrees and returns a number
// of the same value: exact for integers, the same float64 for the others.
func checkNumber(t *testing.T, s string) bool {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	mantissa, _, _ := strings.Cut(strings.ToLower(s), "e")
	zero := strings.Trim(mantissa, "-0.") == ""
	inRange := err == nil && (f != 0 || zero)
	var exact *big.Rat
	if inRange && exponentDigits(s) <= 4 {
		exact, _ = new(big.Rat).SetString(s)
		if math.Abs(f) == math.MaxFloat64 {
			max := new(big.Rat).SetFloat64(math.MaxFloat64)
			inRange = new(big.Rat).Abs(exact).Cmp(max) <= 0
		}
	}
	c, cerr := CanonicalNumber(s)
	if !inRange {
		if cerr == nil || !errors.Is(cerr, ErrRange) {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want ErrRange", s, c, cerr)
		}
		return false
	}
	if cerr != nil {
		t.Errorf("CanonicalNumber(%q): %v", s, cerr)
		return true
	}
	if cf, err := strconv.ParseFloat(string(c), 64); err != nil || cf != f && !(cf == 0 && f == 0) {
		t.Errorf("CanonicalNumber(%q) = %q, which reads as %v, want %v", s, c, cf, f)
	}
	if exact != nil && exact.IsInt() && string(c) != exact.Num().String() {
		t.Errorf("CanonicalNumber(%q) = %q, want the exact integer %s", s, c, exact.Num().String())
	}
	if again, err := CanonicalNumber(string(c)); err != nil || again != c {
		t.Errorf("CanonicalNumber(%q) = %q, %v; want it unchanged", c, again, err)
	}
	return true
}

// exponentDigits counts the digits of a literal's exponent, leading zeros
// aside, so that the test asks math/big only about small ones.
func exponentDigits(s string) int {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return 0
	}
	return len(strings.TrimLeft(s[i+1:], "+-0"))
}

// allCanonical reports whether every number of v is written canonically.
func allCanonical(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if !allCanonical(e) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !allCanonical(e) {
				return false
			}
		}
	case json.Number:
		c, err := CanonicalNumber(string(v))
		return err == nil && c == v
	}
	return true
}

// count counts the values of v, containers included, as MaxValues does.
func count(v any) int {
	n := 1
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			n += count(e)
		}
	case map[string]any:
		for _, e := range v {
			n += count(e)
		}
	}
	return n
}
