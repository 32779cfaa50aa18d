package apidiff

import (
	"slices"
	"strings"

	"github.com/oasdiff/oasdiff/checker"
)

// Where values travel as text (a parameter, a header, a form field), oasdiff
// v1.37.0 decides whether a type change breaks clients from the types added
// and the types removed, and reads "no type added" as "no type constraint
// left". With OpenAPI 3.1 lists of types that goes wrong both ways:
//
//	query id: ["string", "integer"] -> "integer"   oasdiff: widened (info); "abc" is now refused
//	form  n:  ["integer", "boolean"] -> "integer"  oasdiff: compatible (info); "true" is now refused
//	query id: ["string", "integer"] -> ["string", "integer", "boolean"]
//	                                               oasdiff: changed (error); every value is still accepted
//
// (Bodies in JSON go through another path of oasdiff, which compares the
// lists as sets, and are right.) For the rules below, when either side
// lists more than one type besides "null" and only the type changed,
// correctTypeList judges the change again with the sets: a text value is
// accepted by a list that has "string" (or no type), and otherwise by the
// types that cover every type of the other list ("integer" within
// "number"). Nullability is left to oasdiff's own nullable rules.

// textTypeRule is one oasdiff rule about a type change where values are
// text, with where its message arguments hold the changed dimension ("type",
// "format" or "type/format") and, after it, the old and new types.
type textTypeRule struct {
	dimension int
	// response: the documents describe what the server sends, so a change
	// breaks clients when the new types are not within the old ones.
	response bool
	// breaking and compatible are the rules to report the change under
	// when its verdict is corrected to breaking, or to not breaking.
	breaking, compatible string
}

var textTypeRules = map[string]textTypeRule{
	checker.RequestParameterTypeChangedId:     {2, false, checker.RequestParameterTypeChangedId, checker.RequestParameterTypeGeneralizedId},
	checker.RequestParameterTypeGeneralizedId: {2, false, checker.RequestParameterTypeChangedId, checker.RequestParameterTypeGeneralizedId},
	// oasdiff reports a change as "compatible" only where values are text.
	checker.RequestBodyTypeCompatibleId:     {0, false, checker.RequestBodyTypeChangedId, checker.RequestBodyTypeCompatibleId},
	checker.RequestPropertyTypeCompatibleId: {1, false, checker.RequestPropertyTypeChangedId, checker.RequestPropertyTypeCompatibleId},
	checker.ResponseBodyTypeCompatibleId:    {0, true, checker.ResponseBodyTypeChangedId, checker.ResponseBodyTypeCompatibleId},
	checker.ResponsePropertyTypeCompatibleId: {
		1, true, checker.ResponsePropertyTypeChangedId, checker.ResponsePropertyTypeCompatibleId,
	},
	checker.ResponseHeaderTypeChangedId:     {1, true, checker.ResponseHeaderTypeChangedId, checker.ResponseHeaderTypeCompatibleId},
	checker.ResponseHeaderTypeGeneralizedId: {1, true, checker.ResponseHeaderTypeChangedId, checker.ResponseHeaderTypeCompatibleId},
	checker.ResponseHeaderTypeSpecializedId: {1, true, checker.ResponseHeaderTypeChangedId, checker.ResponseHeaderTypeSpecializedId},
	checker.ResponseHeaderTypeCompatibleId:  {1, true, checker.ResponseHeaderTypeChangedId, checker.ResponseHeaderTypeCompatibleId},
}

// correctTypeList returns c with its verdict corrected, and oasdiff's rule,
// when c is a type change between lists of types where values are text
// and oasdiff's verdict is wrong; otherwise c and "".
func correctTypeList(c checker.Change) (checker.Change, string) {
	ac, ok := c.(checker.ApiChange)
	if !ok {
		return c, ""
	}
	rule, ok := textTypeRules[ac.Id]
	if !ok || len(ac.Args) < rule.dimension+3 || ac.Args[rule.dimension] != "type" {
		return c, ""
	}
	before, _ := ac.Args[rule.dimension+1].(string)
	after, _ := ac.Args[rule.dimension+2].(string)
	oldTypes, newTypes := parseTypes(before), parseTypes(after)
	if len(oldTypes) < 2 && len(newTypes) < 2 {
		return c, "" // one type each side: oasdiff is right
	}
	var breaking bool
	if rule.response {
		breaking = !textAccepts(oldTypes, newTypes)
	} else {
		breaking = !textAccepts(newTypes, oldTypes)
	}
	if breaking == ac.IsBreaking() {
		return c, ""
	}
	id := rule.compatible
	if breaking {
		id = rule.breaking
	}
	levels := checker.GetCheckLevels()
	corrected := ac.Id
	ac.Id, ac.Level, ac.Comment = id, levels[id], ""
	return ac, corrected
}

// parseTypes reads a list of types as oasdiff writes it in a message
// ("string, integer", "array<string>, null", "any"), without "null": the
// types a value other than null may have; none for "any".
func parseTypes(s string) []string {
	var types []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '<':
				depth++
				continue
			case '>':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		t := strings.TrimSpace(s[start:i])
		start = i + 1
		if j := strings.IndexByte(t, '<'); j >= 0 {
			t = t[:j] // array<string> is an array
		}
		if t != "" && t != "null" && t != "any" {
			types = append(types, t)
		}
	}
	return types
}

// textAccepts reports whether every text value that a schema of the types
// from accepts is also accepted by one of the types to.
func textAccepts(to, from []string) bool {
	if len(to) == 0 || slices.Contains(to, "string") {
		return true // any text
	}
	if len(from) == 0 || slices.Contains(from, "string") {
		return false // from took any text, to does not
	}
	for _, f := range from {
		if !slices.ContainsFunc(to, func(t string) bool { return t == f || (f == "integer" && t == "number") }) {
			return false
		}
	}
	return true
}
