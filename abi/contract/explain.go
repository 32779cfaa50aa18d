package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/wasmendpoints/endpoints/internal/editdistance"
)

// explainSchemaError turns the error tree of a failed validation against
// contract.schema.json into issues: one per failing leaf, each at the
// instance it is about. Wrappers that only say "a $ref / allOf failed" are
// dropped; for anyOf/oneOf the branch the author evidently meant is
// explained (see explainAlternatives).
func explainSchemaError(verr *jsonschema.ValidationError) []Issue {
	var x explainer
	x.walk(verr)
	return x.issues
}

type explainer struct {
	issues []Issue
}

func (x *explainer) add(ptr, rule, msg string) {
	x.issues = append(x.issues, Issue{Pointer: ptr, Rule: rule, Message: msg})
}

func (x *explainer) walk(e *jsonschema.ValidationError) {
	ptr := pointer(e.InstanceLocation...)
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		if len(e.Causes) == 0 {
			x.add(ptr, ruleOf(e), "does not match the contract schema")
		}
		for _, c := range e.Causes {
			x.walk(c)
		}
	case *kind.AnyOf:
		x.explainAlternatives(e, "anyOf")
	case *kind.OneOf:
		if k.Subschemas == nil {
			x.explainAlternatives(e, "oneOf")
			return
		}
		x.add(ptr, "oneOf", fmt.Sprintf("matches both alternative %d and %d of oneOf; want exactly one", k.Subschemas[0], k.Subschemas[1]))
	case *kind.AdditionalProperties:
		patterns, _ := schemaKeyword(e.SchemaURL, "patternProperties").(map[string]any)
		for _, name := range slices.Sorted(slices.Values(k.Properties)) {
			if len(patterns) > 0 && len(schemaPropertyNames(e.SchemaURL)) == 0 {
				// The keys of this object are defined by a pattern only
				// (status codes): the key fails that pattern.
				x.add(child(ptr, name), "pattern", patternKeyMessage(patterns, name))
				continue
			}
			x.add(child(ptr, name), "additionalProperties", unknownKeyMessage(e, ptr, name))
		}
	case *kind.PropertyNames:
		// Not used by contract.schema.json: jsonschema/v6.0.3 reports
		// propertyNames failures with an InstanceLocation that later
		// validation overwrites. Report the key without a location rather
		// than a wrong one: at the root.
		x.add("", "propertyNames", fmt.Sprintf("key %q is not allowed where it stands", k.Property))
	case *kind.UniqueItems:
		x.add(child(ptr, strconv.Itoa(k.Duplicates[1])), "uniqueItems",
			fmt.Sprintf("repeats item %d; items must be unique", k.Duplicates[0]))
	default:
		x.add(ptr, ruleOf(e), leafMessage(e))
	}
}

// explainAlternatives explains a failed anyOf/oneOf by the alternative the
// author evidently meant: the first whose failures lie deeper inside the
// value (its shape was right), else the first that failed on something other
// than the JSON type (a misspelt enum value). When every alternative failed
// only on the type, one "type" issue lists every accepted type.
func (x *explainer) explainAlternatives(e *jsonschema.ValidationError, keyword string) {
	ptr := pointer(e.InstanceLocation...)
	depth := len(e.InstanceLocation)
	var deep, other *jsonschema.ValidationError
	var got string
	var want []string
	for _, c := range e.Causes {
		leaves := leafErrors(c)
		typeOnly := len(leaves) > 0
		for _, l := range leaves {
			if len(l.InstanceLocation) > depth && deep == nil {
				deep = c
			}
			t, ok := l.ErrorKind.(*kind.Type)
			if !ok || len(l.InstanceLocation) != depth {
				typeOnly = false
				continue
			}
			got = t.Got
			for _, w := range t.Want {
				if !slices.Contains(want, w) {
					want = append(want, w)
				}
			}
		}
		if !typeOnly && other == nil {
			other = c
		}
	}
	switch {
	case deep != nil:
		x.walk(deep)
	case other != nil:
		x.walk(other)
	case len(want) > 0:
		x.add(ptr, "type", fmt.Sprintf("got %s, want %s", got, strings.Join(want, " or ")))
	default:
		x.add(ptr, keyword, "matches none of the alternatives of "+keyword)
	}
}

// leafErrors returns the errors under e once wrappers are removed.
func leafErrors(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	switch e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		if len(e.Causes) > 0 {
			var out []*jsonschema.ValidationError
			for _, c := range e.Causes {
				out = append(out, leafErrors(c)...)
			}
			return out
		}
	}
	return []*jsonschema.ValidationError{e}
}

// patternKeyMessage explains a key that matches none of the
// patternProperties of its object, with the description of the pattern's
// schema ("an HTTP status code, ...") when it has one.
func patternKeyMessage(patterns map[string]any, name string) string {
	var descs, res []string
	for _, re := range slices.Sorted(maps.Keys(patterns)) {
		res = append(res, re)
		if s, ok := patterns[re].(map[string]any); ok {
			if d, ok := s["description"].(string); ok {
				descs = append(descs, d)
			}
		}
	}
	if len(descs) > 0 {
		return fmt.Sprintf("key %q is not %s (%s)", name, strings.Join(descs, " or "), strings.Join(res, " or "))
	}
	return fmt.Sprintf("key %q does not match %s", name, strings.Join(res, " or "))
}

// unknownKeyMessage says which key is unknown, where, what was probably
// meant and which keys are allowed there.
func unknownKeyMessage(e *jsonschema.ValidationError, ptr, name string) string {
	where := "in " + showPointer(ptr)
	if ptr == "" {
		where = "at the top level"
	}
	msg := fmt.Sprintf("unknown key %q %s", name, where)
	loc := e.InstanceLocation
	if name == "methods" && len(loc) == 2 && loc[0] == "methods" {
		msg += " (a contract inside methods describes one operation and cannot have methods of its own)"
	}
	allowed := schemaPropertyNames(e.SchemaURL)
	if s := closest(name, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(allowed) > 0 {
		msg += "; allowed: " + strings.Join(allowed, ", ")
	}
	return msg
}

// ruleOf names the keyword an error is about.
func ruleOf(e *jsonschema.ValidationError) string {
	if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
		return kp[0]
	}
	switch e.ErrorKind.(type) {
	case *kind.FalseSchema:
		return "false"
	case *kind.Not:
		return "not"
	case *kind.RefCycle:
		return "$ref"
	case *kind.InvalidJsonValue:
		return RuleJSON
	}
	return "schema"
}

// leafMessage explains one failing keyword: what was found, what was
// expected.
func leafMessage(e *jsonschema.ValidationError) string {
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("got %s, want %s", k.Got, strings.Join(k.Want, " or "))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = display(w)
		}
		if len(want) == 1 {
			return fmt.Sprintf("got %s, want %s", display(k.Got), want[0])
		}
		msg := fmt.Sprintf("got %s, want one of %s", display(k.Got), strings.Join(want, ", "))
		if got, ok := k.Got.(string); ok {
			var names []string
			for _, w := range k.Want {
				if w, ok := w.(string); ok {
					names = append(names, w)
				}
			}
			if s := closest(got, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
		}
		return msg
	case *kind.Const:
		return fmt.Sprintf("got %s, want %s", display(k.Got), display(k.Want))
	case *kind.Required:
		return fmt.Sprintf("missing required key %s", quoteAll(k.Missing))
	case *kind.Dependency:
		return fmt.Sprintf("key %q requires %s", k.Prop, quoteAll(k.Missing))
	case *kind.DependentRequired:
		return fmt.Sprintf("key %q requires %s", k.Prop, quoteAll(k.Missing))
	case *kind.MinProperties:
		return fmt.Sprintf("got %d keys, want at least %d", k.Got, k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("got %d keys, want at most %d", k.Got, k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("got %d items, want at least %d", k.Got, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("got %d items, want at most %d", k.Got, k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("got %d characters, want at least %d", k.Got, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("got %d characters, want at most %d", k.Got, k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("got %s, want at least %s", rat(k.Got), rat(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("got %s, want at most %s", rat(k.Got), rat(k.Want))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("got %s, want more than %s", rat(k.Got), rat(k.Want))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("got %s, want less than %s", rat(k.Got), rat(k.Want))
	case *kind.MultipleOf:
		return fmt.Sprintf("got %s, want a multiple of %s", rat(k.Got), rat(k.Want))
	case *kind.Pattern:
		return fmt.Sprintf("%q does not match the pattern %q", k.Got, k.Want)
	case *kind.Format:
		return fmt.Sprintf("%s is not a valid %s: %v", display(k.Got), k.Want, k.Err)
	case *kind.FalseSchema:
		return "no value is allowed here"
	case *kind.Not:
		return `matches the schema under "not"`
	case *kind.Contains, *kind.MinContains, *kind.MaxContains:
		return "too few or too many items match the schema under \"contains\""
	case *kind.AdditionalItems:
		return fmt.Sprintf("the last %d items are not allowed", k.Count)
	case *kind.ContentEncoding:
		return fmt.Sprintf("not %s encoded: %v", k.Want, k.Err)
	case *kind.ContentMediaType:
		return fmt.Sprintf("not of media type %s: %v", k.Want, k.Err)
	case *kind.RefCycle:
		return fmt.Sprintf("%s and %s resolve to %s, a reference cycle", k.KeywordLocation1, k.KeywordLocation2, k.URL)
	case *kind.InvalidJsonValue:
		return fmt.Sprintf("%T is not a JSON value", k.Value)
	}
	return fmt.Sprintf("fails %q", ruleOf(e))
}

// display shows a JSON value found in or wanted by the contract: scalars as
// JSON, containers by their kind.
func display(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// schemaFragment returns the raw JSON of contract.schema.json at the
// location schemaURL, or nil when the location is elsewhere (the
// meta-schema) or cannot be found.
func schemaFragment(schemaURL string) json.RawMessage {
	base, frag, _ := strings.Cut(schemaURL, "#")
	if base != schemaID() {
		return nil
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil
	}
	cur := json.RawMessage(SchemaJSON)
	for _, tok := range splitPointer(frag) {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(cur, &obj); err != nil {
			return nil
		}
		next, ok := obj[tok]
		if !ok {
			return nil
		}
		cur = next
	}
	return cur
}

// schemaKeyword returns the value of one keyword of the contract schema at
// schemaURL, or nil.
func schemaKeyword(schemaURL, keyword string) any {
	var obj map[string]any
	if err := json.Unmarshal(schemaFragment(schemaURL), &obj); err != nil {
		return nil
	}
	return obj[keyword]
}

// schemaPropertyNames returns the keys of "properties" of the contract
// schema at schemaURL, in the order the schema declares them.
func schemaPropertyNames(schemaURL string) []string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(schemaFragment(schemaURL), &obj); err != nil {
		return nil
	}
	props, ok := obj["properties"]
	if !ok {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(props))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		names = append(names, name)
	}
	return names
}

// closest returns the candidate nearest to name when it is close enough to
// be a typo of it ("respones" for "responses"), or "".
func closest(name string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		d := editdistance.Levenshtein(strings.ToLower(name), strings.ToLower(c))
		if d < bestDist && d < len(c) {
			best, bestDist = c, d
		}
	}
	return best
}
