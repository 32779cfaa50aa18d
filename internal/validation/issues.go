package validation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"

	"github.com/wasmendpoints/endpoints/abi"
)

// Issue is one validation failure: where in the value (property names and
// array indexes) and what is wrong, in a sentence. It is the ABI's type, so
// the issues a hook receives are the ones the default 400 lists.
//
//	{"path": ["items", 0, "email"], "message": "must be a valid email address"}
type Issue = abi.Issue

// Validate checks v against the schema and returns every failure, or nil.
//
// A schema made only of the keywords the fast path reads (fast.go) is
// checked by its direct checks; any other schema, and any value the fast
// path does not read, by jsonschema/v6. Both give the same issues.
func (s *Schema) Validate(v any) []Issue {
	if s.fast != nil {
		if issues, ok := s.fast.validate(v); ok {
			return issues
		}
	}
	return s.validateSlow(v)
}

// validateSlow is Validate through jsonschema/v6 alone.
func (s *Schema) validateSlow(v any) []Issue {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []Issue{{Path: []any{}, Message: err.Error()}}
	}
	var out []Issue
	collect(verr, v, &out)
	return sortIssues(out)
}

// sortIssues orders issues by path, keeping the order of those at the same
// path, and drops repeated ones: the last step of both validation paths.
func sortIssues(out []Issue) []Issue {
	slices.SortStableFunc(out, func(a, b Issue) int {
		return strings.Compare(fmt.Sprint(a.Path...), fmt.Sprint(b.Path...))
	})
	return dedupe(out)
}

func dedupe(in []Issue) []Issue {
	out := in[:0]
	seen := map[string]bool{}
	for _, i := range in {
		key := fmt.Sprint(i.Path...) + "\x00" + i.Message
		if !seen[key] {
			seen[key] = true
			out = append(out, i)
		}
	}
	return out
}

var printer = message.NewPrinter(message.MatchLanguage("en"))

func collect(e *jsonschema.ValidationError, root any, out *[]Issue) {
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		// One issue for the alternative as a whole: listing the failure of
		// every branch confuses more than it helps.
		_ = k
		*out = append(*out, Issue{Path: pathOf(e.InstanceLocation, root), Message: alternatives(e)})
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, root, out)
		}
		return
	}
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, Issue{Path: pathOf(append(slices.Clip(loc), m), root), Message: msgRequired})
		}
		return
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, Issue{Path: pathOf(append(slices.Clip(loc), p), root), Message: msgNotAllowedProperty})
		}
		return
	case *kind.DependentRequired:
		for _, m := range k.Missing {
			*out = append(*out, Issue{Path: pathOf(append(slices.Clip(loc), m), root), Message: "is required when " + strconv.Quote(k.Prop) + " is present"})
		}
		return
	}
	*out = append(*out, Issue{Path: pathOf(loc, root), Message: describe(e.ErrorKind)})
}

func alternatives(e *jsonschema.ValidationError) string {
	if k, ok := e.ErrorKind.(*kind.OneOf); ok && len(k.Subschemas) > 1 {
		return "matches more than one of the allowed shapes"
	}
	var reasons []string
	for _, c := range e.Causes {
		var leaves []Issue
		collect(c, nil, &leaves)
		for _, l := range leaves {
			reasons = append(reasons, l.Message)
		}
	}
	if len(reasons) == 0 {
		return "does not match any of the allowed shapes"
	}
	slices.Sort(reasons)
	reasons = slices.Compact(reasons)
	return "does not match any of the allowed shapes (" + strings.Join(reasons, "; ") + ")"
}

// pathOf turns an instance location into a path whose array indexes are
// numbers, as JavaScript clients expect.
func pathOf(loc []string, root any) []any {
	path := make([]any, len(loc))
	cur := root
	for i, tok := range loc {
		path[i] = tok
		switch v := cur.(type) {
		case []any:
			if n, err := strconv.Atoi(tok); err == nil {
				path[i] = n
				if n >= 0 && n < len(v) {
					cur = v[n]
					continue
				}
			}
			cur = nil
		case map[string]any:
			cur = v[tok]
		default:
			cur = nil
		}
	}
	return path
}

func rat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// The messages of the keywords whose words take no argument.
const (
	msgRequired           = "is required"
	msgNotAllowedProperty = "is not an allowed property"
	msgFalseSchema        = "is not allowed"
)

// describe says what a failed keyword wants, in the words of an API user.
// The words of each keyword are those of the msg functions below, which
// the fast path (fast.go) calls too.
func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return msgType(k.Want, k.Got)
	case *kind.Minimum:
		return msgMinimum(k.Want)
	case *kind.Maximum:
		return msgMaximum(k.Want)
	case *kind.ExclusiveMinimum:
		return msgExclusiveMinimum(k.Want)
	case *kind.ExclusiveMaximum:
		return msgExclusiveMaximum(k.Want)
	case *kind.MultipleOf:
		return msgMultipleOf(k.Want)
	case *kind.MinLength:
		return msgMinLength(k.Want)
	case *kind.MaxLength:
		return msgMaxLength(k.Want)
	case *kind.Pattern:
		return msgPattern(k.Want)
	case *kind.Format:
		return msgFormat(k.Want)
	case *kind.MinItems:
		return msgMinItems(k.Want)
	case *kind.MaxItems:
		return msgMaxItems(k.Want)
	case *kind.MinProperties:
		return msgMinProperties(k.Want)
	case *kind.MaxProperties:
		return msgMaxProperties(k.Want)
	case *kind.UniqueItems:
		return fmt.Sprintf("must not contain duplicate items (items %d and %d are equal)", k.Duplicates[0], k.Duplicates[1])
	case *kind.FalseSchema:
		return msgFalseSchema
	case *kind.Enum:
		return msgEnum(k.Want)
	case *kind.Const:
		return msgConst(k.Want)
	case *kind.InvalidJsonValue:
		if r, ok := k.Value.(outOfRange); ok {
			return r.err.Error()
		}
	}
	return k.LocalizedString(printer)
}

// msgType is the message of "type": want lists the admitted types in
// jsonschema's order (Types.ToStrings), got is the type of the value.
func msgType(want []string, got string) string {
	return "expected " + strings.Join(want, " or ") + ", received " + got
}

// msgMinimum is the message of "minimum".
func msgMinimum(want *big.Rat) string { return "must be greater than or equal to " + rat(want) }

// msgMaximum is the message of "maximum".
func msgMaximum(want *big.Rat) string { return "must be less than or equal to " + rat(want) }

// msgExclusiveMinimum is the message of "exclusiveMinimum".
func msgExclusiveMinimum(want *big.Rat) string { return "must be greater than " + rat(want) }

// msgExclusiveMaximum is the message of "exclusiveMaximum".
func msgExclusiveMaximum(want *big.Rat) string { return "must be less than " + rat(want) }

// msgMultipleOf is the message of "multipleOf".
func msgMultipleOf(want *big.Rat) string { return "must be a multiple of " + rat(want) }

// msgMinLength is the message of "minLength".
func msgMinLength(want int) string {
	return "must contain at least " + plural(want, "character", "characters")
}

// msgMaxLength is the message of "maxLength".
func msgMaxLength(want int) string {
	return "must contain at most " + plural(want, "character", "characters")
}

// msgPattern is the message of "pattern", want being the pattern as written.
func msgPattern(want string) string { return "must match the pattern " + strconv.Quote(want) }

// msgFormat is the message of "format", want being the format's name.
func msgFormat(want string) string {
	if f := rangeFormats[want]; f != nil {
		return "must be " + f.words + " (" + f.name + ")"
	}
	return "must be a valid " + formatName(want)
}

// msgMinItems is the message of "minItems".
func msgMinItems(want int) string { return "must contain at least " + plural(want, "item", "items") }

// msgMaxItems is the message of "maxItems".
func msgMaxItems(want int) string { return "must contain at most " + plural(want, "item", "items") }

// msgMinProperties is the message of "minProperties".
func msgMinProperties(want int) string {
	return "must contain at least " + plural(want, "property", "properties")
}

// msgMaxProperties is the message of "maxProperties".
func msgMaxProperties(want int) string {
	return "must contain at most " + plural(want, "property", "properties")
}

// msgEnum is the message of "enum", want being its values.
func msgEnum(want []any) string {
	words := make([]string, len(want))
	for i, w := range want {
		b, _ := json.Marshal(w)
		words[i] = string(b)
	}
	if len(words) == 1 {
		return "must be " + words[0]
	}
	return "must be one of " + strings.Join(words, ", ")
}

// msgConst is the message of "const", want being its value.
func msgConst(want any) string {
	b, _ := json.Marshal(want)
	return "must be " + string(b)
}

func formatName(f string) string {
	switch f {
	case "email":
		return "email address"
	case "date-time":
		return "date-time (RFC 3339)"
	case "uri":
		return "URI"
	case "uuid":
		return "UUID"
	case "ipv4", "ipv6":
		return strings.ToUpper(f[:2]) + f[2:] + " address"
	}
	return f
}
