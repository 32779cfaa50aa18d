package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// tagError names the struct tag that could not be applied.
func tagError(key, value string, format string, args ...any) error {
	return fmt.Errorf("tag %s:%q: %s", key, value, fmt.Sprintf(format, args...))
}

// constraintTags are the tags applyTags applies, in the order it applies
// them.
var constraintTags = []string{
	"doc", "format", "enum", "default", "minimum", "exclusiveMinimum", "maximum",
	"exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern",
	"minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
	"example", "deprecated", "readOnly", "writeOnly", "required",
}

// applyTags applies the constraint tags of a field to its schema s.
// required, when not nil, receives the `required` tag.
//
// For a slice, array or map the value constraints (enum, format, pattern,
// minLength, maxLength, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf) apply to its items; the others (doc,
// default, example, minItems, maxItems, uniqueItems, minProperties,
// maxProperties, deprecated, readOnly, writeOnly) to the field itself.
func applyTags(s *schema, tag reflect.StructTag, required *bool) error {
	target := s
	if s.Type == "array" && s.Items != nil {
		target = s.Items
	} else if values, ok := s.AdditionalProperties.(*schema); ok {
		target = values
	}
	tags := parseTag(tag)
	if len(tags) == 0 {
		return nil
	}
	for _, key := range constraintTags {
		value, ok := tags.lookup(key)
		if !ok {
			continue
		}
		if err := applyTag(s, target, key, value, required); err != nil {
			return err
		}
	}
	if target.bounds != nil {
		// An exclusive bound within the type's range is tighter than the
		// range's own inclusive bound, which it replaces; an inclusive
		// tag given as well stays.
		if _, ok := tags.lookup("exclusiveMinimum"); ok {
			if _, ok := tags.lookup("minimum"); !ok {
				target.Minimum = nil
			}
		}
		if _, ok := tags.lookup("exclusiveMaximum"); ok {
			if _, ok := tags.lookup("maximum"); !ok {
				target.Maximum = nil
			}
		}
	}
	return nil
}

// tagPair is one key:"value" pair of a struct tag, its value quoted as
// written.
type tagPair struct{ key, quoted string }

// parsedTag is a struct tag split into its pairs once: applyTags looks
// up some 25 keys per field, and reflect.StructTag.Lookup scans the whole
// tag again for each, which in the interpreter that declares a saved
// bundle's routes was a fifth of the declaration's time.
type parsedTag []tagPair

// parseTag splits tag as reflect.StructTag.Lookup reads it: pairs up to
// the first malformed one.
func parseTag(tag reflect.StructTag) parsedTag {
	var pairs parsedTag
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		key := string(tag[:i])
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		pairs = append(pairs, tagPair{key: key, quoted: string(tag[:i+1])})
		tag = tag[i+1:]
	}
	return pairs
}

// lookup is reflect.StructTag.Lookup on the parsed tag: the first pair
// of key, its value unquoted; not found when that value is malformed.
func (t parsedTag) lookup(key string) (string, bool) {
	for _, p := range t {
		if p.key != key {
			continue
		}
		value, err := strconv.Unquote(p.quoted)
		if err != nil {
			return "", false
		}
		return value, true
	}
	return "", false
}

// applyTag applies one tag; s is the field's schema, target the schema that
// value constraints apply to (s, or its items).
func applyTag(s, target *schema, key, value string, required *bool) error {
	var err error
	switch key {
	case "doc":
		s.Description = value
	case "format":
		target.Format = value
	case "pattern":
		if err := expect(target, key, value, "string"); err != nil {
			return err
		}
		target.Pattern = value
	case "enum":
		for v := range strings.SplitSeq(value, ",") {
			raw, err := convertValue(target, v)
			if err != nil {
				return tagError(key, value, "%v", err)
			}
			target.Enum = append(target.Enum, raw)
		}
	case "default":
		s.Default, err = convertContainerValue(s, value)
	case "example":
		var raw json.RawMessage
		raw, err = convertContainerValue(s, value)
		s.Examples = append(s.Examples, raw)
	case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf":
		if err := expect(target, key, value, "number", "integer"); err != nil {
			return err
		}
		var raw json.RawMessage
		raw, err = parseNumber(value)
		switch {
		case err != nil:
		case key == "multipleOf" && string(raw) == "0":
			err = fmt.Errorf("must be greater than 0")
		case key != "multipleOf":
			// A bound the Go type cannot reach would let the host pass
			// values the handler's field cannot hold.
			err = checkRange(target, value, raw)
		}
		switch key {
		case "minimum":
			target.Minimum = raw
		case "exclusiveMinimum":
			target.ExclusiveMinimum = raw
		case "maximum":
			target.Maximum = raw
		case "exclusiveMaximum":
			target.ExclusiveMaximum = raw
		case "multipleOf":
			target.MultipleOf = raw
		}
	case "minLength", "maxLength":
		if err := expect(target, key, value, "string"); err != nil {
			return err
		}
		n, perr := parseCount(value)
		err = perr
		if key == "minLength" {
			target.MinLength = n
		} else {
			target.MaxLength = n
		}
	case "minItems", "maxItems":
		if err := expect(s, key, value, "array"); err != nil {
			return err
		}
		n, perr := parseCount(value)
		err = perr
		if key == "minItems" {
			s.MinItems = n
		} else {
			s.MaxItems = n
		}
	case "uniqueItems":
		if err := expect(s, key, value, "array"); err != nil {
			return err
		}
		s.UniqueItems, err = strconv.ParseBool(value)
	case "minProperties", "maxProperties":
		if err := expect(s, key, value, "object"); err != nil {
			return err
		}
		n, perr := parseCount(value)
		err = perr
		if key == "minProperties" {
			s.MinProperties = n
		} else {
			s.MaxProperties = n
		}
	case "deprecated":
		s.Deprecated, err = strconv.ParseBool(value)
	case "readOnly":
		s.ReadOnly, err = strconv.ParseBool(value)
	case "writeOnly":
		s.WriteOnly, err = strconv.ParseBool(value)
	case "required":
		if required == nil {
			return tagError(key, value, "not allowed here")
		}
		*required, err = strconv.ParseBool(value)
	}
	if err != nil {
		return tagError(key, value, "%v", unwrapNumError(err))
	}
	return nil
}

// expect checks that a tag applies to the schema's type. Schemas without a
// type (any, json.RawMessage, custom marshalers) accept every tag.
func expect(s *schema, key, value string, types ...string) error {
	got := s.typeName()
	if got == "" {
		return nil
	}
	for _, t := range types {
		if got == t {
			return nil
		}
	}
	return tagError(key, value, "applies to %s values, not %s", strings.Join(types, " or "), got)
}

// unwrapNumError drops strconv's "strconv.ParseFloat: parsing "x":" prefix,
// which repeats what the tag error already says.
func unwrapNumError(err error) error {
	if ne, ok := err.(*strconv.NumError); ok {
		return fmt.Errorf("not a valid %s", map[string]string{
			"ParseFloat": "number", "ParseInt": "integer", "ParseUint": "non-negative integer", "ParseBool": "boolean",
		}[ne.Func])
	}
	return err
}

// checkRange checks that the number raw, converted from the tag text
// value, lies within the range of the schema's Go type, if it has one.
func checkRange(s *schema, value string, raw json.RawMessage) error {
	if s.bounds == nil || s.bounds.holds(string(raw)) {
		return nil
	}
	return fmt.Errorf("%s is outside the range of %s: use a value within it, or a wider type", strings.TrimSpace(value), s.bounds)
}

// parseNumber parses a number tag and returns it as canonical JSON:
// integers exactly, as written without sign or leading zeros, other
// numbers in the shortest form of their float64 value.
func parseNumber(value string) (json.RawMessage, error) {
	value = strings.TrimSpace(value)
	if n, err := strconv.ParseInt(value, 10, 64); err == nil {
		return strconv.AppendInt(nil, n, 10), nil
	}
	if n, err := strconv.ParseUint(value, 10, 64); err == nil {
		return strconv.AppendUint(nil, n, 10), nil
	}
	f, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return nil, err
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("not a finite number")
	}
	return json.Marshal(f)
}

// parseCount parses a non-negative integer tag (minLength, maxItems, ...).
func parseCount(value string) (*uint64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// convertValue converts the text of one enum, default or example value to
// JSON of the schema's type: strings are taken as they are, numbers and
// booleans are parsed, anything else must be JSON already.
func convertValue(s *schema, text string) (json.RawMessage, error) {
	switch s.typeName() {
	case "string":
		return marshalJSON(text)
	case "boolean":
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return nil, unwrapNumError(err)
		}
		return json.Marshal(b)
	case "integer":
		text = strings.TrimSpace(text)
		var raw json.RawMessage
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			raw = strconv.AppendInt(nil, n, 10)
		} else if n, err := strconv.ParseUint(text, 10, 64); err == nil {
			raw = strconv.AppendUint(nil, n, 10)
		} else {
			return nil, fmt.Errorf("not a valid integer")
		}
		return raw, checkRange(s, text, raw)
	case "number":
		raw, err := parseNumber(text)
		if err != nil {
			return nil, unwrapNumError(err)
		}
		return raw, checkRange(s, text, raw)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		return nil, fmt.Errorf("not valid JSON for a value of type %s", describeType(s))
	}
	return buf.Bytes(), nil
}

// convertContainerValue converts a default or example for the field itself:
// for an array either JSON ("[1,2]") or a comma-separated list of items
// ("1,2"); otherwise one value.
func convertContainerValue(s *schema, text string) (json.RawMessage, error) {
	if s.Type != "array" || s.Items == nil || strings.HasPrefix(strings.TrimSpace(text), "[") {
		return convertValue(s, text)
	}
	var buf bytes.Buffer
	buf.WriteByte('[')
	if text != "" {
		for i, v := range strings.Split(text, ",") {
			raw, err := convertValue(s.Items, v)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(raw)
		}
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// describeType names a schema's type in messages.
func describeType(s *schema) string {
	if t := s.typeName(); t != "" {
		return t
	}
	return "any"
}
