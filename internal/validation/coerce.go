package validation

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

func sortStrings(s []string) { slices.Sort(s) }

// Properties lists the property names the schema declares, sorted: the
// headers the host reads for a headers schema.
func (s *Schema) Properties() []string { return s.plan.propOrder }

// CoerceString turns one path, query or header string into the type the
// property's schema admits: a string stays a string when strings are
// allowed; otherwise an integer, a number or a boolean when it parses as
// one. A string that fits no admitted type is kept, and validation then
// reports the type mismatch naming the property.
//
// Numbers come out canonical (jsonvalue.CanonicalNumber), as in a JSON
// body: for a property that admits integers, "2", "2.0" and "2e0" all
// become int64(2), and an integer beyond int64 a json.Number of its exact
// digits; any other number becomes a canonical json.Number ("1E3" is
// json.Number("1000"), "0.10" json.Number("0.1")).
//
// # Notes
//
//   - A numeric string beyond the float64 range ("1e999") becomes a value
//     that Validate always refuses with "number out of range: ...", at the
//     property's path. Such a value must not be handed on unvalidated; no
//     number is ever computed from it.
func (s *Schema) CoerceString(property, value string) any {
	p := s.plan.props[property]
	if p == nil {
		return value
	}
	return coerceScalar(p, value)
}

// CoerceValue is CoerceString for a schema that is itself the value's,
// such as a response header's.
func (s *Schema) CoerceValue(value string) any { return coerceScalar(s.plan, value) }

// CoerceStrings is CoerceString for a property given several times (a
// repeated query key or header): when the schema admits an array, every
// value becomes an item coerced by the items schema; otherwise the first
// value is used.
//
// A nil schema coerces nothing: one value stays a string, repeated ones
// become an array of strings.
func (s *Schema) CoerceStrings(property string, values []string) any {
	var p *plan
	if s != nil {
		p = s.plan.props[property]
	}
	return coerceValues(p, values)
}

// coerceValues is CoerceStrings for the plan p of one property; a nil plan
// coerces nothing.
func coerceValues(p *plan, values []string) any {
	if p == nil {
		if len(values) == 1 {
			return values[0]
		}
		out := make([]any, len(values))
		for i, v := range values {
			out[i] = v
		}
		return out
	}
	if p.types&tArray != 0 && (len(values) > 1 || p.types&^tArray&(tString|tInteger|tNumber|tBoolean) == 0) {
		items := p.items
		out := make([]any, len(values))
		for i, v := range values {
			if items == nil {
				out[i] = v
			} else {
				out[i] = coerceScalar(items, v)
			}
		}
		return out
	}
	return coerceScalar(p, values[0])
}

// JSONPart reports whether a multipart part for the property is read as
// JSON: its schema admits an object or an array but no string, and the
// part is JSON (json true) or is an object property sent as text, the
// part type OpenAPI defaults to application/json for objects.
func (s *Schema) JSONPart(property string, json bool) bool {
	if s == nil {
		return false
	}
	p := s.plan.props[property]
	if p == nil || p.types&tString != 0 || p.types&(tObject|tArray) == 0 {
		return false
	}
	return json || p.types&tObject != 0
}

// ObjectMembers reports whether the property's schema admits only objects
// (a query parameter OpenAPI serializes by its style), and if so the member
// names it declares, sorted.
func (s *Schema) ObjectMembers(property string) (members []string, ok bool) {
	p := s.plan.props[property]
	if p == nil || p.types != tObject {
		return nil, false
	}
	return p.propOrder, true
}

// CoerceMembers builds the value of an object property from its members'
// strings (an object query parameter as style form or deepObject spells
// it), each coerced by its member's schema as CoerceStrings coerces a
// property.
func (s *Schema) CoerceMembers(property string, members map[string][]string) map[string]any {
	var p *plan
	if s != nil {
		p = s.plan.props[property]
	}
	out := make(map[string]any, len(members))
	for name, vs := range members {
		var sub *plan
		if p != nil {
			sub = p.props[name]
		}
		out[name] = coerceValues(sub, vs)
	}
	return out
}

func coerceScalar(p *plan, v string) any {
	if p.types&tString != 0 {
		return v
	}
	if p.types&(tInteger|tNumber) != 0 {
		if n, ok := coerceNumber(p.types, v); ok {
			return n
		}
	}
	if p.types&tBoolean != 0 {
		switch v {
		case "true":
			return true
		case "false":
			return false
		}
	}
	if p.types&tNull != 0 && v == "null" {
		return nil
	}
	return v
}

// coerceNumber reads v as a JSON number literal: an int64 when the types
// admit integers and its value is one that fits, else a canonical
// json.Number; ok is false when v is not a number literal.
func coerceNumber(types typeSet, v string) (n any, ok bool) {
	if types&tInteger != 0 && isInteger(v) {
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			return i, true
		}
	}
	c, err := jsonvalue.CanonicalNumber(v)
	switch {
	case errors.Is(err, jsonvalue.ErrRange):
		return outOfRange{err}, true
	case err != nil:
		return nil, false
	}
	if types&tInteger != 0 && isInteger(string(c)) {
		if i, err := strconv.ParseInt(string(c), 10, 64); err == nil {
			return i, true
		}
	}
	return c, true
}

// outOfRange is what coercion makes of a numeric string beyond the float64
// range. The validator sees a value of no JSON type and reports it
// (kind.InvalidJsonValue) at its location, where describe gives err's
// words; nothing ever reads it as a number.
type outOfRange struct{ err error }

func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// HasDefaults reports whether applying defaults can change a value, so a
// caller can hand the guest the bytes it received when it cannot.
func (s *Schema) HasDefaults() bool { return s.plan.hasDefaults(0) }

func (p *plan) hasDefaults(depth int) bool {
	if p == nil || depth > 32 {
		return false
	}
	for _, sub := range p.props {
		if sub.hasDefault || sub.hasDefaults(depth+1) {
			return true
		}
	}
	return p.items.hasDefaults(depth + 1)
}

// ApplyDefaults fills, in objects and their nested objects and array items,
// every absent property whose schema has a default. It changes v in place
// and reports whether it changed anything.
func (s *Schema) ApplyDefaults(v any) bool { return s.plan.apply(v, 0) }

func (p *plan) apply(v any, depth int) bool {
	if p == nil || depth > 32 {
		return false
	}
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for _, name := range p.propOrder {
			sub := p.props[name]
			cur, ok := v[name]
			if !ok {
				if sub.hasDefault {
					v[name] = deepCopy(sub.def)
					changed = true
				}
				continue
			}
			if sub.apply(cur, depth+1) {
				changed = true
			}
		}
	case []any:
		for _, item := range v {
			if p.items.apply(item, depth+1) {
				changed = true
			}
		}
	}
	return changed
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
