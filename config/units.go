package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Sizes: every integer setting whose name ends in "Bytes" (bodyBytes,
// memoryBytes, storage.maxBytes...) takes a number of bytes or a string
// with a binary unit, as an operator writes it: "64KiB", "1MiB", "1.5GiB",
// "512B". Decimal units ("1MB") are refused, naming both readings: 1 MB is
// 1000000 bytes to a disk maker and 1048576 to most people who write it.

// sizeUnits are the units a size string may end with, longest first.
var sizeUnits = []struct {
	suffix string
	bytes  float64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1},
}

// FormatSize writes n bytes as [ParseSize] reads it back: with the
// largest binary unit that divides it ("64KiB", "1MiB"), else as a whole
// number ("1000").
func FormatSize(n int64) string {
	for _, u := range sizeUnits[:len(sizeUnits)-1] {
		if b := int64(u.bytes); n != 0 && n%b == 0 {
			return strconv.FormatInt(n/b, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseSize reads a size: a whole number of bytes ("65536") or a number
// with a binary unit ("64KiB", "1.5MiB", "2GiB"), a whole number of bytes
// in the end.
func ParseSize(s string) (int64, error) {
	text := strings.TrimSpace(s)
	for _, dec := range []struct{ suffix, binary string }{
		{"KB", "KiB"}, {"kB", "KiB"}, {"K", "KiB"}, {"MB", "MiB"}, {"M", "MiB"}, {"GB", "GiB"}, {"G", "GiB"}, {"TB", "TiB"}, {"T", "TiB"},
	} {
		if n, ok := strings.CutSuffix(text, dec.suffix); ok {
			return 0, fmt.Errorf("%q: write %q for a binary size (1 %s is %d bytes) or a plain number of bytes: decimal units are ambiguous", s, strings.TrimSpace(n)+dec.binary, dec.binary, int64(unitBytes(dec.binary)))
		}
	}
	num, mult := text, 1.0
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(text, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.bytes
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || strings.ContainsAny(num, "eEx_+") || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a size: want a number of bytes or a number with a binary unit such as \"64KiB\", \"1MiB\" or \"2GiB\"", s)
	}
	total := v * mult
	if total != math.Trunc(total) || math.Abs(total) > 1<<62 {
		return 0, fmt.Errorf("%q is not a whole number of bytes", s)
	}
	return int64(total), nil
}

// unitBytes is the size of a binary unit.
func unitBytes(unit string) float64 {
	for _, u := range sizeUnits {
		if u.suffix == unit {
			return u.bytes
		}
	}
	return 1
}

// isSize reports whether the setting at pointer (a JSON pointer into
// endpoints.json, map entries standing for any name) is a size: an
// integer member whose name ends in "Bytes".
func isSize(pointer string) bool {
	t := reflect.TypeFor[App]()
	name := ""
	for tok := range strings.SplitSeq(strings.TrimPrefix(pointer, "/"), "/") {
		switch t.Kind() {
		case reflect.Map:
			t, name = t.Elem(), ""
			continue
		case reflect.Struct:
		default:
			return false
		}
		f, ok := jsonField(t, tok)
		if !ok {
			return false
		}
		t, name = f.Type, tok
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return strings.HasSuffix(name, "Bytes")
	}
	return false
}

// normalizeSizes returns data with every size written as a string
// ("1MiB") replaced by its number of bytes, for the strict decoding that
// follows; an unreadable size is a *settingError naming its pointer. The
// rest of the text is copied token for token.
func normalizeSizes(file string, data []byte) ([]byte, error) {
	if !bytes.Contains(data, []byte("Bytes")) {
		return data, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	changed := false
	for {
		tok, err := dec.ReadToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return data, nil // the strict decoding reports it
		}
		if tok.Kind() == '"' && dec.StackDepth() > 0 {
			// A string that is an object's value (not its name) at a
			// size's pointer.
			if kind, n := dec.StackIndex(dec.StackDepth()); kind == '{' && n%2 == 0 {
				if ptr := string(dec.StackPointer()); isSize(ptr) {
					v, err := ParseSize(tok.String())
					if err != nil {
						return nil, badSetting(file, ptr, "%v", err)
					}
					tok, changed = jsontext.Int(v), true
				}
			}
		}
		if err := enc.WriteToken(tok); err != nil {
			return data, nil
		}
	}
	if !changed {
		return data, nil
	}
	return out.Bytes(), nil
}
