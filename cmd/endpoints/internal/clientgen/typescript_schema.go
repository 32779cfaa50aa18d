package clientgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/openapi"
)

// This file turns JSON Schema 2020-12 into TypeScript types. The mapping,
// which the TypeScript function's documentation repeats for users:
//
//   - string, integer/number, boolean, null: string, number, boolean, null;
//     formats, contentEncoding and contentMediaType do not change a JSON
//     string's type (a date-time is a string on the wire).
//   - A type array is the union of its types: ["string", "null"] is
//     string | null.
//   - enum and const: a union of literal types; object and array values
//     become object and tuple literal types.
//   - object: one property per entry of properties, optional (?:) unless
//     listed in required; a required name without a property is unknown.
//     additionalProperties false or absent adds nothing (TypeScript object
//     types accept other properties where they are assigned, and excess
//     property checks catch typos in literals), a schema or
//     patternProperties add an index signature whose type also admits the
//     declared properties' types, and an object with neither properties
//     nor a closing additionalProperties is { [key: string]: unknown }.
//     A closed empty object is Record<string, never>.
//   - array: items gives T[]; prefixItems a tuple whose elements past
//     minItems are optional, with ...T[] for the items after them unless
//     items is false.
//   - allOf: an intersection; oneOf and anyOf: a union; $ref to
//     #/components/schemas/X: the named type; every keyword present
//     applies, so a $ref beside properties is their intersection.
//   - true and {} are unknown; false is never. Keywords that only
//     constrain values (minimum, pattern, not, if/then/else...) are not
//     types and are dropped.

// Precedences of a TypeScript type expression, to know when to
// parenthesise it.
const (
	tsPrecUnion        = iota // A | B
	tsPrecIntersection        // A & B
	tsPrecPrimary             // anything else: X, X[], {...}, [...], "a"
)

// tsType is a TypeScript type expression and its precedence; a union
// keeps its members too, so that a union of unions stays flat.
type tsType struct {
	text    string
	prec    int
	members []string
}

var (
	tsUnknown = tsType{text: "unknown", prec: tsPrecPrimary}
	tsNever   = tsType{text: "never", prec: tsPrecPrimary}
)

// at returns the type's text, parenthesised when its precedence is lower
// than prec.
func (t tsType) at(prec int) string {
	if t.prec < prec {
		return "(" + t.text + ")"
	}
	return t.text
}

// tsSchemas converts schemas, resolving references to the named types.
type tsSchemas struct {
	// names maps a components/schemas name to its TypeScript identifier.
	names map[string]string
	// schemas are the named schemas, decoded.
	schemas map[string]any
}

// tsDecodeSchema decodes a schema, keeping numbers as written.
func tsDecodeSchema(v json.RawMessage) (any, error) {
	if len(v) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var s any
	if err := d.Decode(&s); err != nil {
		return nil, err
	}
	return s, nil
}

// typeOf converts schema s, found at ptr (for errors), into a type whose
// object literals are laid out for a line indented by indent levels of two
// spaces.
func (c *tsSchemas) typeOf(s any, ptr string, indent int) (tsType, error) {
	switch s := s.(type) {
	case nil:
		return tsUnknown, nil
	case bool:
		if s {
			return tsUnknown, nil
		}
		return tsNever, nil
	case map[string]any:
		return c.objectSchema(s, ptr, indent)
	}
	return tsType{}, fmt.Errorf("%s: a schema must be an object or a boolean, not %T", ptr, s)
}

func (c *tsSchemas) objectSchema(s map[string]any, ptr string, indent int) (tsType, error) {
	var parts []tsType
	if ref, ok := s["$ref"]; ok {
		t, err := c.ref(ref, ptr)
		if err != nil {
			return tsType{}, err
		}
		parts = append(parts, t)
	}
	if v, ok := s["const"]; ok {
		t, err := tsLiteralType(v, ptr+"/const", indent)
		if err != nil {
			return tsType{}, err
		}
		parts = append(parts, t)
	} else if v, ok := s["enum"]; ok {
		values, ok := v.([]any)
		if !ok {
			return tsType{}, fmt.Errorf("%s/enum: must be an array, not %T", ptr, v)
		}
		var members []tsType
		for i, v := range values {
			t, err := tsLiteralType(v, fmt.Sprintf("%s/enum/%d", ptr, i), indent)
			if err != nil {
				return tsType{}, err
			}
			members = append(members, t)
		}
		parts = append(parts, tsUnion(members))
	} else if types, err := tsSchemaTypes(s, ptr); err != nil {
		return tsType{}, err
	} else if len(types) > 0 {
		var members []tsType
		for _, typ := range types {
			t, err := c.typeNamed(typ, s, ptr, indent)
			if err != nil {
				return tsType{}, err
			}
			members = append(members, t)
		}
		parts = append(parts, tsUnion(members))
	}
	if v, ok := s["allOf"]; ok {
		list, err := tsSchemaList(v, ptr+"/allOf")
		if err != nil {
			return tsType{}, err
		}
		for i, m := range list {
			t, err := c.typeOf(m, fmt.Sprintf("%s/allOf/%d", ptr, i), indent)
			if err != nil {
				return tsType{}, err
			}
			parts = append(parts, t)
		}
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		v, ok := s[kw]
		if !ok {
			continue
		}
		list, err := tsSchemaList(v, ptr+"/"+kw)
		if err != nil {
			return tsType{}, err
		}
		var members []tsType
		for i, m := range list {
			t, err := c.typeOf(m, fmt.Sprintf("%s/%s/%d", ptr, kw, i), indent)
			if err != nil {
				return tsType{}, err
			}
			members = append(members, t)
		}
		parts = append(parts, tsUnion(members))
	}
	return tsIntersection(parts), nil
}

// ref resolves a $ref to the name of its type.
func (c *tsSchemas) ref(v any, ptr string) (tsType, error) {
	ref, ok := v.(string)
	if !ok {
		return tsType{}, fmt.Errorf("%s/$ref: must be a string, not %T", ptr, v)
	}
	name, ok := strings.CutPrefix(ref, SchemaRefPrefix)
	if !ok || strings.Contains(name, "/") {
		return tsType{}, fmt.Errorf("%s/$ref: %q is not supported: a client can only reference %sName", ptr, ref, SchemaRefPrefix)
	}
	id, ok := c.names[name]
	if !ok {
		return tsType{}, fmt.Errorf("%s/$ref: %q names no schema in components/schemas", ptr, ref)
	}
	return tsType{text: id, prec: tsPrecPrimary}, nil
}

// tsSchemaTypes are the JSON types a schema allows, from type or, without
// it, from the keywords of one type that it uses.
func tsSchemaTypes(s map[string]any, ptr string) ([]string, error) {
	switch t := s["type"].(type) {
	case string:
		return []string{t}, nil
	case []any:
		var types []string
		for i, v := range t {
			name, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s/type/%d: must be a string, not %T", ptr, i, v)
			}
			types = append(types, name)
		}
		return types, nil
	case nil:
		if _, ok := s["type"]; ok {
			break
		}
		for _, kw := range []string{"properties", "additionalProperties", "patternProperties", "required"} {
			if _, ok := s[kw]; ok {
				return []string{"object"}, nil
			}
		}
		for _, kw := range []string{"items", "prefixItems"} {
			if _, ok := s[kw]; ok {
				return []string{"array"}, nil
			}
		}
		return nil, nil
	}
	return nil, fmt.Errorf("%s/type: must be a string or an array of strings", ptr)
}

// typeNamed converts schema s restricted to JSON type typ.
func (c *tsSchemas) typeNamed(typ string, s map[string]any, ptr string, indent int) (tsType, error) {
	switch typ {
	case "string":
		return tsType{text: "string", prec: tsPrecPrimary}, nil
	case "integer", "number":
		return tsType{text: "number", prec: tsPrecPrimary}, nil
	case "boolean":
		return tsType{text: "boolean", prec: tsPrecPrimary}, nil
	case "null":
		return tsType{text: "null", prec: tsPrecPrimary}, nil
	case "array":
		return c.arrayType(s, ptr, indent)
	case "object":
		return c.objectType(s, ptr, indent, nil)
	}
	return tsType{}, fmt.Errorf("%s/type: %q is not a JSON Schema type", ptr, typ)
}

func (c *tsSchemas) arrayType(s map[string]any, ptr string, indent int) (tsType, error) {
	items, hasItems := s["items"]
	prefix, hasPrefix := s["prefixItems"]
	if !hasPrefix {
		if !hasItems {
			return tsType{text: "unknown[]", prec: tsPrecPrimary}, nil
		}
		t, err := c.typeOf(items, ptr+"/items", indent)
		if err != nil {
			return tsType{}, err
		}
		if t.text == tsNever.text {
			return tsType{text: "[]", prec: tsPrecPrimary}, nil
		}
		return tsType{text: t.at(tsPrecPrimary) + "[]", prec: tsPrecPrimary}, nil
	}
	list, err := tsSchemaList(prefix, ptr+"/prefixItems")
	if err != nil {
		return tsType{}, err
	}
	minItems := 0
	if n, ok := s["minItems"].(json.Number); ok {
		if v, err := n.Int64(); err == nil {
			minItems = int(v)
		}
	}
	var elems []string
	for i, m := range list {
		t, err := c.typeOf(m, fmt.Sprintf("%s/prefixItems/%d", ptr, i), indent)
		if err != nil {
			return tsType{}, err
		}
		if i >= minItems {
			elems = append(elems, t.at(tsPrecPrimary)+"?")
		} else {
			elems = append(elems, t.text)
		}
	}
	rest := tsUnknown
	if hasItems {
		if rest, err = c.typeOf(items, ptr+"/items", indent); err != nil {
			return tsType{}, err
		}
	}
	if rest.text != tsNever.text {
		elems = append(elems, "..."+rest.at(tsPrecPrimary)+"[]")
	}
	return tsType{text: "[" + strings.Join(elems, ", ") + "]", prec: tsPrecPrimary}, nil
}

// objectType converts an object schema. property, when not nil, may
// replace the type of a property (multipart bodies turn files into Blob).
func (c *tsSchemas) objectType(s map[string]any, ptr string, indent int, property func(name string, schema any) (tsType, bool)) (tsType, error) {
	props, _ := s["properties"].(map[string]any)
	if v, ok := s["properties"]; ok && props == nil {
		return tsType{}, fmt.Errorf("%s/properties: must be an object, not %T", ptr, v)
	}
	required := map[string]bool{}
	if list, ok := s["required"].([]any); ok {
		for _, v := range list {
			if name, ok := v.(string); ok {
				required[name] = true
			}
		}
	}
	names := slices.Sorted(maps.Keys(props))
	for name := range required {
		if _, ok := props[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)

	// The index signature: additionalProperties as a schema, and
	// patternProperties.
	var index []tsType
	open := true
	if ap, ok := s["additionalProperties"]; ok {
		switch ap := ap.(type) {
		case bool:
			open = ap
		default:
			t, err := c.typeOf(ap, ptr+"/additionalProperties", indent+1)
			if err != nil {
				return tsType{}, err
			}
			index = append(index, t)
			open = false
		}
	}
	if pp, ok := s["patternProperties"].(map[string]any); ok {
		for _, pattern := range slices.Sorted(maps.Keys(pp)) {
			t, err := c.typeOf(pp[pattern], ptr+"/patternProperties/"+openapi.EscapeToken(pattern), indent+1)
			if err != nil {
				return tsType{}, err
			}
			index = append(index, t)
		}
	}
	if len(names) == 0 && len(index) == 0 {
		if open {
			return tsType{text: "{ [key: string]: unknown }", prec: tsPrecPrimary}, nil
		}
		return tsType{text: "Record<string, never>", prec: tsPrecPrimary}, nil
	}

	var b strings.Builder
	pad := strings.Repeat("  ", indent+1)
	b.WriteString("{\n")
	anyOptional := false
	for _, name := range names {
		sub, declared := props[name]
		subPtr := ptr + "/properties/" + openapi.EscapeToken(name)
		var t tsType
		replaced := false
		if property != nil && declared {
			t, replaced = property(name, sub)
		}
		if !replaced {
			var err error
			if t, err = c.typeOf(sub, subPtr, indent+1); err != nil {
				return tsType{}, err
			}
		}
		if len(index) > 0 {
			index = append(index, t)
		}
		tsWriteDoc(&b, pad, tsSchemaDoc(sub))
		b.WriteString(pad)
		b.WriteString(tsPropertyKey(name))
		if !required[name] {
			b.WriteString("?")
			anyOptional = true
		}
		b.WriteString(": ")
		b.WriteString(t.text)
		b.WriteString(";\n")
	}
	if len(index) > 0 {
		if anyOptional {
			index = append(index, tsType{text: "undefined", prec: tsPrecPrimary})
		}
		b.WriteString(pad)
		b.WriteString("[key: string]: ")
		b.WriteString(tsUnion(index).text)
		b.WriteString(";\n")
	}
	b.WriteString(strings.Repeat("  ", indent))
	b.WriteString("}")
	return tsType{text: b.String(), prec: tsPrecPrimary}, nil
}

// tsLiteralType is the TypeScript literal type of a JSON value.
func tsLiteralType(v any, ptr string, indent int) (tsType, error) {
	switch v := v.(type) {
	case nil:
		return tsType{text: "null", prec: tsPrecPrimary}, nil
	case bool:
		return tsType{text: fmt.Sprint(v), prec: tsPrecPrimary}, nil
	case json.Number:
		if strings.HasPrefix(string(v), "-") {
			// A negative literal type is a prefix expression; it needs no
			// parentheses in a union but does in T[].
			return tsType{text: string(v), prec: tsPrecIntersection}, nil
		}
		return tsType{text: string(v), prec: tsPrecPrimary}, nil
	case string:
		return tsType{text: tsJsString(v), prec: tsPrecPrimary}, nil
	case []any:
		var elems []string
		for i, e := range v {
			t, err := tsLiteralType(e, fmt.Sprintf("%s/%d", ptr, i), indent)
			if err != nil {
				return tsType{}, err
			}
			elems = append(elems, t.text)
		}
		return tsType{text: "[" + strings.Join(elems, ", ") + "]", prec: tsPrecPrimary}, nil
	case map[string]any:
		if len(v) == 0 {
			return tsType{text: "Record<string, never>", prec: tsPrecPrimary}, nil
		}
		var b strings.Builder
		b.WriteString("{ ")
		for i, k := range slices.Sorted(maps.Keys(v)) {
			t, err := tsLiteralType(v[k], ptr+"/"+openapi.EscapeToken(k), indent)
			if err != nil {
				return tsType{}, err
			}
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(tsPropertyKey(k) + ": " + t.text)
		}
		b.WriteString(" }")
		return tsType{text: b.String(), prec: tsPrecPrimary}, nil
	}
	return tsType{}, fmt.Errorf("%s: %T is not a JSON value", ptr, v)
}

// tsUnion joins types with |, dropping never and duplicates; unknown
// absorbs the rest.
func tsUnion(members []tsType) tsType {
	var texts []string
	var only tsType
	for _, m := range members {
		if m.text == tsUnknown.text {
			return tsUnknown
		}
		if m.text == tsNever.text {
			continue
		}
		flat := m.members
		if flat == nil {
			flat = []string{m.at(tsPrecIntersection)}
		}
		for _, t := range flat {
			if !slices.Contains(texts, t) {
				texts = append(texts, t)
			}
		}
		only = m
	}
	switch len(texts) {
	case 0:
		return tsNever
	case 1:
		return only
	}
	return tsType{text: strings.Join(texts, " | "), prec: tsPrecUnion, members: texts}
}

// tsIntersection joins types with &, dropping unknown and duplicates; never
// absorbs the rest.
func tsIntersection(parts []tsType) tsType {
	var kept []tsType
	for _, p := range parts {
		if p.text == tsNever.text {
			return tsNever
		}
		if p.text == tsUnknown.text || slices.ContainsFunc(kept, func(k tsType) bool { return k.text == p.text }) {
			continue
		}
		kept = append(kept, p)
	}
	switch len(kept) {
	case 0:
		return tsUnknown
	case 1:
		return kept[0]
	}
	texts := make([]string, len(kept))
	for i, p := range kept {
		texts[i] = p.at(tsPrecPrimary)
	}
	return tsType{text: strings.Join(texts, " & "), prec: tsPrecIntersection}
}

func tsSchemaList(v any, ptr string) ([]any, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: must be an array of schemas, not %T", ptr, v)
	}
	return list, nil
}

// tsSchemaDoc is the documentation of a schema: its description, and
// @deprecated when it says so.
func tsSchemaDoc(s any) string {
	m, ok := s.(map[string]any)
	if !ok {
		return ""
	}
	doc, _ := m["description"].(string)
	if m["deprecated"] == true {
		if doc != "" {
			doc += "\n"
		}
		doc += "@deprecated"
	}
	return doc
}

// tsWriteDoc writes a /** */ comment at indentation pad, its lines
// wrapped at 100 columns; nothing when doc is empty.
func tsWriteDoc(b *strings.Builder, pad, doc string) {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return
	}
	doc = strings.ReplaceAll(doc, "*/", "*\\/")
	var lines []string
	for _, l := range strings.Split(doc, "\n") {
		lines = append(lines, tsWrap(strings.TrimRight(l, " \t\r"), 100-len(pad)-3)...)
	}
	if len(lines) == 1 && len(pad)+len(lines[0])+7 <= 100 {
		fmt.Fprintf(b, "%s/** %s */\n", pad, lines[0])
		return
	}
	fmt.Fprintf(b, "%s/**\n", pad)
	for _, l := range lines {
		if l == "" {
			fmt.Fprintf(b, "%s *\n", pad)
		} else {
			fmt.Fprintf(b, "%s * %s\n", pad, l)
		}
	}
	fmt.Fprintf(b, "%s */\n", pad)
}

// tsWrap breaks a line of text into lines of at most width characters
// where it has spaces; the continuation of a "- " list item, or of one
// nested two spaces under another, is indented under its text, and any
// other line that starts with a space (code) is kept.
func tsWrap(line string, width int) []string {
	nested := strings.HasPrefix(line, "  - ")
	if len(line) <= width || (strings.HasPrefix(line, " ") && !nested) {
		return []string{line}
	}
	indent := ""
	switch {
	case nested:
		indent = "    "
	case strings.HasPrefix(line, "- "):
		indent = "  "
	}
	var out []string
	cur := ""
	for _, w := range strings.Fields(line) {
		switch {
		case cur == "" && nested:
			cur = "  " + w
		case cur == "":
			cur = w
		case len(cur)+1+len(w) > width:
			out = append(out, cur)
			cur = indent + w
		default:
			cur += " " + w
		}
	}
	return append(out, cur)
}

var tsIdentifierRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// tsPropertyKey is a property name as written in an object type: bare when
// it is an identifier, quoted otherwise.
func tsPropertyKey(name string) string {
	if tsIdentifierRE.MatchString(name) {
		return name
	}
	return tsJsString(name)
}

// tsJsString quotes s as a JavaScript string literal (JSON's syntax, which
// is valid JavaScript since ES2019).
func tsJsString(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
