package validation

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
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
func (s *Schema) CoerceString(property, value string) any {
	p := s.plan.props[property]
	if p == nil {
		return value
	}
	return coerceScalar(p, value)
}

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

func coerceScalar(p *plan, v string) any {
	if p.types&tString != 0 {
		return v
	}
	if p.types&tInteger != 0 && isInteger(v) {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
		return json.Number(v)
	}
	if p.types&(tNumber|tInteger) != 0 && isJSONNumber(v) {
		if p.types&tNumber != 0 {
			return json.Number(v)
		}
		// An integer written as 1.0 or 1e2: the schema decides.
		return json.Number(v)
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

func isInteger(s string) bool {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
	}
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

// isJSONNumber reports whether s is a number literal by RFC 8259 §6.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
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
