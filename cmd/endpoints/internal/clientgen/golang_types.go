package clientgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// goSchema holds the JSON Schema keywords the Go generator reads. The
// validation keywords (minimum, pattern, ...) have no Go form: the server
// checks them.
type goSchema struct {
	Ref                  string                     `json:"$ref"`
	Type                 json.RawMessage            `json:"type"`
	Properties           map[string]json.RawMessage `json:"properties"`
	Required             []string                   `json:"required"`
	AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	PatternProperties    map[string]json.RawMessage `json:"patternProperties"`
	Items                json.RawMessage            `json:"items"`
	PrefixItems          []json.RawMessage          `json:"prefixItems"`
	Enum                 []json.RawMessage          `json:"enum"`
	Const                json.RawMessage            `json:"const"`
	OneOf                []json.RawMessage          `json:"oneOf"`
	AnyOf                []json.RawMessage          `json:"anyOf"`
	AllOf                []json.RawMessage          `json:"allOf"`
	Nullable             bool                       `json:"nullable"` // OpenAPI 3.0; 3.1 writes "null" in type
	Description          string                     `json:"description"`
	Format               string                     `json:"format"`
	ContentEncoding      string                     `json:"contentEncoding"`
	ContentMediaType     string                     `json:"contentMediaType"`
	Default              json.RawMessage            `json:"default"`
	Deprecated           bool                       `json:"deprecated"`
}

// parseGoSchema reads a schema; an absent schema and the boolean schemas
// read as the empty schema, which any value matches.
func parseGoSchema(raw []byte) (*goSchema, error) {
	s := &goSchema{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "true" || string(raw) == "false" {
		return s, nil
	}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("schema %s: %w", goExcerpt(raw), err)
	}
	return s, nil
}

// goExcerpt shortens a schema for an error message.
func goExcerpt(raw []byte) string {
	if len(raw) > 80 {
		return string(raw[:80]) + "..."
	}
	return string(raw)
}

// types returns the JSON types the schema allows besides null, and
// whether it allows null. Without "type" they are inferred from the other
// keywords: properties make an object, items an array, enum values their
// own types.
func (s *goSchema) types() (types []string, null bool) {
	var declared []string
	if len(s.Type) > 0 {
		var one string
		if json.Unmarshal(s.Type, &one) == nil {
			declared = []string{one}
		} else {
			_ = json.Unmarshal(s.Type, &declared) // a malformed type reads as none
		}
	} else {
		switch {
		case len(s.Properties) > 0 || len(s.AdditionalProperties) > 0:
			declared = []string{"object"}
		case len(s.Items) > 0 || len(s.PrefixItems) > 0:
			declared = []string{"array"}
		default:
			for _, v := range s.values() {
				if t := goJSONType(v); !slices.Contains(declared, t) {
					declared = append(declared, t)
				}
			}
		}
	}
	null = s.Nullable
	for _, t := range declared {
		if t == "null" {
			null = true
		} else if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	return types, null
}

// values returns the enum values, or the const value as a one-value enum.
func (s *goSchema) values() []json.RawMessage {
	if len(s.Const) > 0 {
		return []json.RawMessage{s.Const}
	}
	return s.Enum
}

// goJSONType names the JSON type of a value: null, boolean, string, number,
// integer, array or object.
func goJSONType(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "null"
	}
	switch v[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	if bytes.ContainsAny(v, ".eE") {
		return "number"
	}
	return "integer"
}

// stringEnum returns the values of an enum (or const) of strings, null
// left out; ok is false when there is none or a value is not a string.
func (s *goSchema) stringEnum() (values []string, ok bool) {
	for _, v := range s.values() {
		switch goJSONType(v) {
		case "null":
			continue
		case "string":
			var str string
			if json.Unmarshal(v, &str) != nil {
				return nil, false
			}
			values = append(values, str)
		default:
			return nil, false
		}
	}
	return values, len(values) > 0
}

// open reports whether an object schema allows properties its
// properties do not name besides what additionalProperties says: those
// of patternProperties.
func (s *goSchema) open() bool { return len(s.PatternProperties) > 0 }

// goIsNullSchema reports whether a schema allows null only.
func goIsNullSchema(raw []byte) bool {
	s, err := parseGoSchema(raw)
	if err != nil || s.Ref != "" {
		return false
	}
	types, null := s.types()
	return null && len(types) == 0
}

// isFile reports whether a string schema is a file's content, as OpenAPI
// 3.1 writes a multipart file part: contentMediaType or contentEncoding,
// or the OpenAPI 3.0 format binary.
func (s *goSchema) isFile() bool {
	types, _ := s.types()
	return len(types) == 1 && types[0] == "string" &&
		(s.ContentMediaType != "" || s.ContentEncoding != "" || s.Format == "binary")
}

// isTime reports whether the schema is a string of format date-time (not
// an enum), whose Go type is time.Time.
func (s *goSchema) isTime() bool {
	types, _ := s.types()
	_, enum := s.stringEnum()
	return s.Format == "date-time" && len(types) == 1 && types[0] == "string" && !enum
}

// notes are what a field's comment says of its schema besides its
// description: format, default, values of an enum Go has no type for.
func (s *goSchema) notes() []string {
	var notes []string
	if s.Format != "" && !s.isTime() { // a time.Time says it
		notes = append(notes, "Format: "+s.Format+".")
	}
	if _, ok := s.stringEnum(); !ok && len(s.values()) > 0 {
		var vs []string
		for _, v := range s.values() {
			vs = append(vs, string(goCompact(v)))
		}
		notes = append(notes, "One of "+strings.Join(vs, ", ")+".")
	}
	if len(s.Default) > 0 {
		notes = append(notes, "Defaults to "+string(goCompact(s.Default))+".")
	}
	if s.Deprecated {
		notes = append(notes, "Deprecated: the document marks it deprecated.")
	}
	return notes
}

func goCompact(v json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// goPlace is where a schema sits, for the name of a type it needs and the
// comment on that type.
type goPlace struct {
	name  string // the Go name a declared type gets (numbered when taken)
	where string // for comments: "the property data of EndpointsValidationError"
	fixed bool   // name is already claimed: a named schema's own type
}

// sub is a place inside p.
func (p goPlace) sub(suffix, where string) goPlace {
	return goPlace{name: p.name + suffix, where: where}
}

// Kinds of declared types, beside the underlying basic type of the others.
const (
	goDeclStruct = "struct"
	goDeclUnion  = "union"
)

// typeOf returns the Go type of a schema at a place, declaring the named
// types it needs:
//
//   - $ref to a named schema: its type; nullable named schemas are pointers.
//   - string, integer, number, boolean: string, int64, float64, bool; a
//     string of format date-time is a time.Time (its JSON is RFC 3339, as
//     the format's), as oapi-codegen and ogen make it; other formats stay
//     strings, whose comment names the format (date among them: a
//     time.Time would send a date-time, which a date refuses); an enum (or
//     const) of strings is a string type with one constant per value.
//   - array: a slice of the items' type; tuples (prefixItems) []any.
//   - object with properties: a struct; optional properties are pointers
//     (nil slices and maps) tagged omitzero. Without properties, a map of
//     the additionalProperties type, or map[string]any.
//   - oneOf/anyOf of several schemas: a struct holding the JSON as it came
//     (json.RawMessage) with one As method per variant, which refuses JSON
//     that is not its variant (see union); with null beside one schema, a
//     pointer to that schema's type.
//   - allOf: the one member that has a type, or a struct embedding the
//     members when each is a struct.
//   - a type list ("type": ["string", "null"]): a pointer to the type;
//     several types besides null, and the empty schema: any.
func (g *goGen) typeOf(raw []byte, at goPlace) string {
	s, err := parseGoSchema(raw)
	if err != nil {
		g.fail(fmt.Errorf("%s: %w", at.where, err))
		return "any"
	}
	if s.Ref != "" {
		if name, ok := strings.CutPrefix(s.Ref, SchemaRefPrefix); ok {
			if _, ok := g.m.Schemas[name]; ok {
				return g.named(name)
			}
		}
		g.fail(fmt.Errorf("%s: $ref %q: want a schema under %s", at.where, s.Ref, SchemaRefPrefix))
		return "any"
	}
	if alts := append(slices.Clip(s.OneOf), s.AnyOf...); len(alts) > 0 {
		var kept []json.RawMessage
		null := false
		for _, a := range alts {
			if goIsNullSchema(a) {
				null = true
			} else {
				kept = append(kept, a)
			}
		}
		switch len(kept) {
		case 0:
			return "any"
		case 1:
			t := g.typeOf(kept[0], at)
			if null {
				t = g.nilable(t)
			}
			return t
		}
		t := g.union(kept, s, at)
		if null {
			t = "*" + t
		}
		return t
	}
	if len(s.AllOf) > 0 {
		return g.allOf(s, at)
	}
	types, null := s.types()
	t := "any"
	if len(types) == 1 {
		switch types[0] {
		case "string":
			t = "string"
			if values, ok := s.stringEnum(); ok {
				t = g.enum(values, s, at)
			} else if s.isTime() {
				t = goTime
				g.imports["time"] = true
			}
		case "integer":
			t = "int64"
		case "number":
			t = "float64"
		case "boolean":
			t = "bool"
		case "array":
			t = "[]any"
			if len(s.PrefixItems) == 0 && len(s.Items) > 0 {
				t = "[]" + g.typeOf(s.Items, at.sub("Item", "an item of "+at.where))
			}
		case "object":
			switch {
			case len(s.Properties) > 0:
				t = g.structOf(s, at)
			case goIsSchemaObject(s.AdditionalProperties):
				t = "map[string]" + g.typeOf(s.AdditionalProperties, at.sub("Value", "a value of "+at.where))
			default:
				t = "map[string]any"
			}
		}
	}
	if null {
		t = g.nilable(t)
	}
	return t
}

// goIsSchemaObject reports whether raw is a schema object (not true, false
// or absent).
func goIsSchemaObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// nilable returns t, or a pointer to it when t has no nil: the type of a
// field that may be absent or null.
func (g *goGen) nilable(t string) string {
	for _, u := range []string{t, g.under[t]} {
		if u == "any" || strings.HasPrefix(u, "*") || strings.HasPrefix(u, "[]") || strings.HasPrefix(u, "map[") {
			return t
		}
	}
	return "*" + t
}

// named returns the Go type of the named schema, declaring it the first
// time.
func (g *goGen) named(name string) string {
	goType := g.schemaTypes[name]
	if !g.declared[name] {
		g.declared[name] = true
		g.inProgress[goType] = true
		group := g.group
		g.group = "schema " + name
		at := goPlace{name: goType, where: "the schema " + name, fixed: true}
		t := g.typeOf(g.m.Schemas[name], at)
		switch strings.TrimPrefix(t, "*") {
		case goType: // a struct, enum or union declared under the name
			if t != goType {
				g.pointerTo[goType] = true
			}
		default:
			s, _ := parseGoSchema(g.m.Schemas[name])
			var b strings.Builder
			goWriteDoc(&b, "", goType+" is "+at.where+".", s.Description)
			// time.Time's own type, not one declared from it, which
			// would lose its JSON methods.
			if _, isType := g.under[t]; isType || t == "any" || t == goTime || strings.HasPrefix(t, "*") {
				fmt.Fprintf(&b, "type %s = %s\n", goType, t) // same type: keeps t's methods and nil
				g.under[goType] = t
				if isType {
					g.under[goType] = g.under[t]
				}
			} else {
				fmt.Fprintf(&b, "type %s %s\n", goType, t)
				g.under[goType] = t
			}
			g.declare(b.String())
		}
		g.group = group
		delete(g.inProgress, goType)
	}
	if g.pointerTo[goType] {
		return "*" + goType
	}
	return goType
}

// typeName returns the name a type declared at the place gets.
func (g *goGen) typeName(at goPlace) string {
	if at.fixed {
		return at.name
	}
	return g.names.claim(at.name)
}

// structOf declares the struct type of an object schema with properties.
func (g *goGen) structOf(s *goSchema, at goPlace) string {
	name := g.typeName(at)
	g.under[name] = goDeclStruct
	slot := g.reserve()
	var b strings.Builder
	extra := ""
	if goIsSchemaObject(s.AdditionalProperties) || string(bytes.TrimSpace(s.AdditionalProperties)) == "true" {
		extra = "Properties besides these are allowed, and not kept when decoding."
	}
	goWriteDoc(&b, "", name+" is "+at.where+".", s.Description, extra)
	g.fieldTypes[name] = map[string]string{}
	fmt.Fprintf(&b, "type %s struct {\n", name)
	fields := newGoNamer()
	for _, prop := range slices.Sorted(maps.Keys(s.Properties)) {
		raw := s.Properties[prop]
		ps, err := parseGoSchema(raw)
		if err != nil {
			g.fail(fmt.Errorf("property %s of %s: %w", prop, at.where, err))
			continue
		}
		if !goValidTag(prop) {
			goWriteDoc(&b, "\t", fmt.Sprintf("The property %q has no Go field: a struct tag cannot name it.", prop))
			continue
		}
		field := fields.claim(goName(prop))
		t := g.typeOf(raw, goPlace{name: name + goName(prop), where: "the property " + prop + " of " + name})
		g.fieldTypes[name][prop] = t
		tag := prop
		if slices.Contains(s.Required, prop) {
			if g.inProgress[t] {
				t = "*" + t // a struct cannot hold itself
			}
		} else {
			t = g.nilable(t)
			tag += ",omitzero"
		}
		goWriteDoc(&b, "\t", goSentences(ps.Description, strings.Join(ps.notes(), " ")))
		fmt.Fprintf(&b, "\t%s %s `json:%s`\n", field, t, strconv.Quote(tag))
	}
	b.WriteString("}\n")
	g.fill(slot, b.String())
	return name
}

// goValidTag reports whether encoding/json can use name from a tag.
func goValidTag(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", r):
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r > 0x7f:
		default:
			return false
		}
	}
	return true
}

// enum declares a string type with one constant per value.
func (g *goGen) enum(values []string, s *goSchema, at goPlace) string {
	name := g.typeName(at)
	g.under[name] = "string"
	var b strings.Builder
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = strconv.Quote(v)
	}
	goWriteDoc(&b, "", name+" is "+at.where+": one of "+strings.Join(quoted, ", ")+".", s.Description)
	fmt.Fprintf(&b, "type %s string\n\n", name)
	fmt.Fprintf(&b, "// The values of %s.\nconst (\n", name)
	for i, v := range values {
		fmt.Fprintf(&b, "\t%s %s = %s\n", g.names.claim(name+goName(v)), name, quoted[i])
	}
	b.WriteString(")\n")
	g.declare(b.String())
	return name
}

// union declares the type of a oneOf or anyOf: the JSON as it came, and
// one As method per variant to decode it. The client does not decode
// every variant to pick one (JSON Schema matches a value against each,
// which encoding/json cannot do faithfully: patterns, formats), but an As
// method refuses JSON that is plainly not its variant (goShape: the JSON
// type, required properties, properties a closed schema does not declare,
// a value its const or enum does not allow), so that of two variants of
// one status only the one the body is decodes it.
func (g *goGen) union(variants []json.RawMessage, s *goSchema, at goPlace) string {
	name := g.typeName(at)
	g.under[name] = goDeclUnion
	slot := g.reserve()
	var b strings.Builder
	goWriteDoc(&b, "", name+" is "+at.where+": one of several schemas (oneOf/anyOf). It keeps the JSON as it "+
		"came; decode it with the As method of its variant, which fails with an error wrapping ErrNotVariant "+
		"when the JSON is plainly another one.", s.Description)
	fmt.Fprintf(&b, "type %s struct {\n\tjson.RawMessage\n}\n", name)
	methods := newGoNamer("MarshalJSON", "UnmarshalJSON", "RawMessage")
	for i, v := range variants {
		vs, _ := parseGoSchema(v)
		t := g.typeOf(v, goPlace{name: fmt.Sprintf("%sVariant%d", name, i+1), where: fmt.Sprintf("variant %d of %s", i+1, name)})
		method := fmt.Sprintf("AsVariant%d", i+1)
		if vs != nil && vs.Ref != "" {
			method = "As" + strings.TrimPrefix(t, "*")
		}
		method = methods.claim(method)
		shape := g.shapeOf(v)
		b.WriteString("\n")
		goWriteDoc(&b, "", fmt.Sprintf("%s decodes v as %s. It fails, wrapping ErrNotVariant, when the JSON is not one: %s.",
			method, t, shape.describe(strings.TrimPrefix(t, "*"))))
		fmt.Fprintf(&b, "func (v %s) %s() (%s, error) {\n\tvar out %s\n", name, method, t, t)
		fmt.Fprintf(&b, "\tif err := matchVariant(v.RawMessage, %s, %s, %s); err != nil {\n\t\treturn out, err\n\t}\n",
			strconv.Quote(at.where), strconv.Quote(strings.TrimPrefix(t, "*")), shape.literal())
		b.WriteString("\terr := json.Unmarshal(v.RawMessage, &out)\n\treturn out, err\n}\n")
	}
	g.imports["encoding/json"] = true
	g.uses["union"] = true
	g.fill(slot, b.String())
	return name
}

// goShape is what a union's As method checks of the JSON before it
// decodes it as one variant: what tells the variants of one status apart
// when they have a media type in common, as a discriminator would.
type goShape struct {
	kinds    []string            // the JSON types the variant allows; none: any
	required []string            // the properties it requires
	closed   []string            // its properties, when it allows no other; nil: open
	values   map[string][]string // a property's allowed values (compact JSON), from const or enum
}

// shapeOf is the shape of a variant's schema, its $ref followed.
func (g *goGen) shapeOf(raw json.RawMessage) goShape {
	s := g.resolve(raw)
	if s == nil {
		return goShape{}
	}
	var shape goShape
	shape.kinds, _ = s.types()
	if len(s.OneOf)+len(s.AnyOf)+len(s.AllOf) > 0 {
		// Its members may add types and properties: only what the
		// schema itself requires holds.
		shape.kinds = nil
	}
	if len(shape.kinds) != 1 || shape.kinds[0] != "object" {
		return shape
	}
	shape.required = slices.Clone(s.Required)
	if string(bytes.TrimSpace(s.AdditionalProperties)) == "false" && !s.open() {
		shape.closed = slices.Sorted(maps.Keys(s.Properties))
	}
	for _, p := range slices.Sorted(maps.Keys(s.Properties)) {
		ps := g.resolve(s.Properties[p])
		if ps == nil || len(ps.values()) == 0 {
			continue
		}
		var allowed []string
		for _, v := range ps.values() {
			if t := goJSONType(v); t == "object" || t == "array" {
				allowed = nil // only scalars are compared
				break
			}
			allowed = append(allowed, string(goCompact(v)))
		}
		if _, null := ps.types(); null && !slices.Contains(allowed, "null") && len(allowed) > 0 {
			allowed = append(allowed, "null")
		}
		if len(allowed) > 0 {
			if shape.values == nil {
				shape.values = map[string][]string{}
			}
			shape.values[p] = allowed
		}
	}
	return shape
}

// resolve parses a schema, following its $ref to the named schemas (a
// few hops at most); nil when it cannot.
func (g *goGen) resolve(raw json.RawMessage) *goSchema {
	for range 8 {
		s, err := parseGoSchema(raw)
		if err != nil {
			return nil
		}
		if s.Ref == "" {
			return s
		}
		name, ok := strings.CutPrefix(s.Ref, SchemaRefPrefix)
		if !ok {
			return nil
		}
		if raw, ok = g.m.Schemas[name]; !ok {
			return nil
		}
	}
	return nil
}

// describe says in words what the shape requires of a variant named
// name, for the As method's comment.
func (sh goShape) describe(name string) string {
	var parts []string
	if len(sh.kinds) > 0 {
		parts = append(parts, "a JSON "+strings.Join(sh.kinds, " or "))
	}
	if len(sh.required) > 0 {
		parts = append(parts, "requiring "+goQuoted(sh.required))
	}
	if sh.closed != nil {
		parts = append(parts, "no property but "+name+"'s")
	}
	for _, p := range slices.Sorted(maps.Keys(sh.values)) {
		parts = append(parts, strconv.Quote(p)+" one of "+strings.Join(sh.values[p], ", "))
	}
	if len(parts) == 0 {
		return "nothing is checked before decoding"
	}
	return strings.Join(parts, ", ")
}

// literal is the shape as the generated code's variantShape.
func (sh goShape) literal() string {
	quoted := func(list []string) string {
		q := make([]string, len(list))
		for i, s := range list {
			q[i] = strconv.Quote(s)
		}
		return "[]string{" + strings.Join(q, ", ") + "}"
	}
	var fields []string
	if len(sh.kinds) > 0 {
		fields = append(fields, "kinds: "+quoted(sh.kinds))
	}
	if len(sh.required) > 0 {
		fields = append(fields, "required: "+quoted(sh.required))
	}
	if sh.closed != nil {
		fields = append(fields, "closed: "+quoted(sh.closed))
	}
	if len(sh.values) > 0 {
		var vs []string
		for _, p := range slices.Sorted(maps.Keys(sh.values)) {
			vs = append(vs, strconv.Quote(p)+": "+strings.TrimPrefix(quoted(sh.values[p]), "[]string"))
		}
		fields = append(fields, "values: map[string][]string{"+strings.Join(vs, ", ")+"}")
	}
	return "variantShape{" + strings.Join(fields, ", ") + "}"
}

// goQuoted is the names quoted and joined: "a", "b".
func goQuoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// allOf returns the type of an allOf: the one member with a type when the
// others only constrain it, a struct embedding the members when each is
// a struct (encoding/json flattens embedded structs, as allOf merges
// objects), and any otherwise.
func (g *goGen) allOf(s *goSchema, at goPlace) string {
	members := slices.Clone(s.AllOf)
	if len(members) == 1 && len(s.Properties) == 0 {
		return g.typeOf(members[0], at)
	}
	if len(s.Properties) > 0 {
		own, err := json.Marshal(map[string]any{
			"type": "object", "properties": s.Properties, "required": s.Required,
		})
		if err != nil {
			g.fail(err)
			return "any"
		}
		members = append(members, own)
	}
	slot := g.reserve() // the struct, when it is one, comes before its parts
	var typed []string
	for i, m := range members {
		t := g.typeOf(m, at.sub(fmt.Sprintf("Part%d", i+1), fmt.Sprintf("part %d of %s", i+1, at.where)))
		if t != "any" {
			typed = append(typed, t)
		}
	}
	switch {
	case len(typed) == 0:
		return "any"
	case len(typed) == 1:
		return typed[0]
	}
	for _, t := range typed {
		if g.under[t] != goDeclStruct || g.inProgress[t] {
			return "any"
		}
	}
	name := g.typeName(at)
	g.under[name] = goDeclStruct
	var b strings.Builder
	goWriteDoc(&b, "", name+" is "+at.where+": all of "+strings.Join(typed, ", ")+".", s.Description)
	fmt.Fprintf(&b, "type %s struct {\n", name)
	for _, t := range typed {
		fmt.Fprintf(&b, "\t%s\n", t)
	}
	b.WriteString("}\n")
	g.fill(slot, b.String())
	return name
}

// goTime is the Go type of a string of format date-time.
const goTime = "time.Time"

// basicOf returns the basic type (string, int64, float64, bool, or
// time.Time) a type is or is declared from, or "".
func (g *goGen) basicOf(t string) string {
	switch t {
	case "string", "int64", "float64", "bool", goTime:
		return t
	}
	switch u := g.under[t]; u {
	case "string", "int64", "float64", "bool", goTime:
		return u
	}
	return ""
}

// goWriteDoc writes paragraphs as a comment indented by indent, each
// wrapped at about 100 columns; empty paragraphs are left out.
func goWriteDoc(b *strings.Builder, indent string, paragraphs ...string) {
	first := true
	for _, p := range paragraphs {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !first {
			b.WriteString(indent + "//\n")
		}
		first = false
		for _, line := range strings.Split(p, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				b.WriteString(indent + "//\n")
				continue
			}
			width := 0
			b.WriteString(indent + "//")
			for _, w := range strings.Fields(line) {
				if width > 0 && width+1+len(w) > 100 {
					b.WriteString("\n" + indent + "//")
					width = 0
				}
				b.WriteString(" " + w)
				width += 1 + len(w)
			}
			b.WriteString("\n")
		}
	}
}

// goSentences joins texts into one paragraph, ending each with a period.
func goSentences(texts ...string) string {
	var out []string
	for _, t := range texts {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if !strings.HasSuffix(t, ".") && !strings.HasSuffix(t, "?") && !strings.HasSuffix(t, "!") {
			t += "."
		}
		out = append(out, t)
	}
	return strings.Join(out, " ")
}
