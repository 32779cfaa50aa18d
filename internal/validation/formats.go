package validation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// rangeFormat is a "format" of the OpenAPI format registry that bounds a
// number: the integer formats (int8 ... int64, uint8) and the floating
// point ones (float, double). JSON Schema leaves them unknown, so without
// these an "int32" property would take 2147483648; the host asserts them as
// it asserts "email" (docs/spec.md §3, "Formats").
type rangeFormat struct {
	name string
	// integer formats admit only whole numbers from min to max; the float
	// formats any number whose magnitude is at most max.
	integer  bool
	min, max *big.Rat
	// words is the message's range: "an integer from -128 to 127".
	words string
}

// rangeFormats lists the asserted range formats by name.
var rangeFormats = func() map[string]*rangeFormat {
	m := map[string]*rangeFormat{}
	for _, f := range []struct {
		name     string
		min, max string
	}{
		{"int8", "-128", "127"},
		{"int16", "-32768", "32767"},
		{"int32", strconv.Itoa(math.MinInt32), strconv.Itoa(math.MaxInt32)},
		{"int64", strconv.FormatInt(math.MinInt64, 10), strconv.FormatInt(math.MaxInt64, 10)},
		{"uint8", "0", "255"},
	} {
		lo, _ := new(big.Rat).SetString(f.min)
		hi, _ := new(big.Rat).SetString(f.max)
		m[f.name] = &rangeFormat{name: f.name, integer: true, min: lo, max: hi,
			words: fmt.Sprintf("an integer from %s to %s", f.min, f.max)}
	}
	for _, f := range []struct {
		name string
		max  float64
	}{{"float", math.MaxFloat32}, {"double", math.MaxFloat64}} {
		hi := new(big.Rat).SetFloat64(f.max)
		m[f.name] = &rangeFormat{name: f.name, min: new(big.Rat).Neg(hi), max: hi,
			words: fmt.Sprintf("a number from -%s to %s", strconv.FormatFloat(f.max, 'g', -1, 64), strconv.FormatFloat(f.max, 'g', -1, 64))}
	}
	return m
}()

// registerRangeFormats makes c assert every range format.
func registerRangeFormats(c *jsonschema.Compiler) {
	for _, f := range rangeFormats {
		c.RegisterFormat(&jsonschema.Format{Name: f.name, Validate: f.validate})
	}
}

var errFormatRange = errors.New("out of the format's range")

// validate checks a number against the format; any other value passes, as
// a format applies only to the type it describes.
func (f *rangeFormat) validate(v any) error {
	var r *big.Rat
	switch v := v.(type) {
	case int64:
		r = new(big.Rat).SetInt64(v)
	case int:
		r = new(big.Rat).SetInt64(int64(v))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return errFormatRange
		}
		r = new(big.Rat).SetFloat64(v)
	case json.Number:
		var ok bool
		if r, ok = new(big.Rat).SetString(string(v)); !ok {
			return errFormatRange
		}
	default:
		return nil
	}
	if (f.integer && !r.IsInt()) || r.Cmp(f.min) < 0 || r.Cmp(f.max) > 0 {
		return errFormatRange
	}
	return nil
}
