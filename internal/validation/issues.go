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
func (s *Schema) Validate(v any) []Issue {
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
			*out = append(*out, Issue{Path: pathOf(append(slices.Clip(loc), m), root), Message: "is required"})
		}
		return
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, Issue{Path: pathOf(append(slices.Clip(loc), p), root), Message: "is not an allowed property"})
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

// describe says what a failed keyword wants, in the words of an API user.
func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return "expected " + strings.Join(k.Want, " or ") + ", received " + k.Got
	case *kind.Minimum:
		return "must be greater than or equal to " + rat(k.Want)
	case *kind.Maximum:
		return "must be less than or equal to " + rat(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be greater than " + rat(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be less than " + rat(k.Want)
	case *kind.MultipleOf:
		return "must be a multiple of " + rat(k.Want)
	case *kind.MinLength:
		return "must contain at least " + plural(k.Want, "character", "characters")
	case *kind.MaxLength:
		return "must contain at most " + plural(k.Want, "character", "characters")
	case *kind.Pattern:
		return "must match the pattern " + strconv.Quote(k.Want)
	case *kind.Format:
		return "must be a valid " + formatName(k.Want)
	case *kind.MinItems:
		return "must contain at least " + plural(k.Want, "item", "items")
	case *kind.MaxItems:
		return "must contain at most " + plural(k.Want, "item", "items")
	case *kind.MinProperties:
		return "must contain at least " + plural(k.Want, "property", "properties")
	case *kind.MaxProperties:
		return "must contain at most " + plural(k.Want, "property", "properties")
	case *kind.UniqueItems:
		return fmt.Sprintf("must not contain duplicate items (items %d and %d are equal)", k.Duplicates[0], k.Duplicates[1])
	case *kind.FalseSchema:
		return "is not allowed"
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			b, _ := json.Marshal(w)
			want[i] = string(b)
		}
		if len(want) == 1 {
			return "must be " + want[0]
		}
		return "must be one of " + strings.Join(want, ", ")
	case *kind.Const:
		b, _ := json.Marshal(k.Want)
		return "must be " + string(b)
	case *kind.InvalidJsonValue:
		if r, ok := k.Value.(outOfRange); ok {
			return r.err.Error()
		}
	}
	return k.LocalizedString(printer)
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
