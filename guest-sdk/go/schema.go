package endpoints

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// schema is one JSON Schema (draft 2020-12) derived from a Go type. Its
// fields are in the order they appear in the contract, so the same Go code
// always gives byte-identical JSON. The zero schema is {} (any value).
// [schema.appendJSON] writes it; its json tags, with properties written
// as one object in order, are the encoding that writer is held to
// (TestSchemaJSON).
type schema struct {
	Ref                  string            `json:"$ref,omitempty"`
	AnyOf                []*schema         `json:"anyOf,omitempty"`
	Type                 string            `json:"type,omitempty"`
	Description          string            `json:"description,omitempty"`
	Format               string            `json:"format,omitempty"`
	ContentEncoding      string            `json:"contentEncoding,omitempty"`
	ContentMediaType     string            `json:"contentMediaType,omitempty"`
	Enum                 []json.RawMessage `json:"enum,omitempty"`
	Default              json.RawMessage   `json:"default,omitempty"`
	Minimum              json.RawMessage   `json:"minimum,omitempty"`
	ExclusiveMinimum     json.RawMessage   `json:"exclusiveMinimum,omitempty"`
	Maximum              json.RawMessage   `json:"maximum,omitempty"`
	ExclusiveMaximum     json.RawMessage   `json:"exclusiveMaximum,omitempty"`
	MultipleOf           json.RawMessage   `json:"multipleOf,omitempty"`
	MinLength            *uint64           `json:"minLength,omitempty"`
	MaxLength            *uint64           `json:"maxLength,omitempty"`
	Pattern              string            `json:"pattern,omitempty"`
	Items                *schema           `json:"items,omitempty"`
	MinItems             *uint64           `json:"minItems,omitempty"`
	MaxItems             *uint64           `json:"maxItems,omitempty"`
	UniqueItems          bool              `json:"uniqueItems,omitempty"`
	Properties           properties        `json:"properties,omitempty"`
	Required             []string          `json:"required,omitempty"`
	AdditionalProperties any               `json:"additionalProperties,omitempty"` // false or *schema
	MinProperties        *uint64           `json:"minProperties,omitempty"`
	MaxProperties        *uint64           `json:"maxProperties,omitempty"`
	Examples             []json.RawMessage `json:"examples,omitempty"`
	Deprecated           bool              `json:"deprecated,omitempty"`
	ReadOnly             bool              `json:"readOnly,omitempty"`
	WriteOnly            bool              `json:"writeOnly,omitempty"`

	// bounds is the range of the Go type the schema was derived from,
	// stated by Minimum and Maximum; the number tags must stay within
	// it. Nil for other types.
	bounds *numRange
}

// property is one member of an object schema.
type property struct {
	name   string
	schema *schema
}

// properties keeps object members in Go field order, which reads better in
// generated documents than sorted names and is just as deterministic.
type properties []property

// marshalJSON is json.Marshal without HTML escaping and without the
// encoder's trailing newline: contracts are read by people.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// typeName returns s's JSON Schema type, treating a reference as an object:
// every $defs entry this package writes is a struct.
func (s *schema) typeName() string {
	if s.Ref != "" {
		return "object"
	}
	return s.Type
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// implements reports whether t or *t implements iface, which is what
// encoding/json checks for addressable values.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}

// builder derives schemas from Go types for one module. Named struct types
// become $defs entries shared by every operation of the module, so one Go
// type has one name in the whole contract.
//
// A builder is used during package initialisation only (Handle and its
// siblings run in init functions) and is not safe for concurrent use.
type builder struct {
	defs  map[string]*schema         // derived $defs by name
	raw   map[string]json.RawMessage // $defs given by Operation.Defs
	names map[reflect.Type]string    // named struct type → its $defs name
	deps  map[string]map[string]bool // $defs name → names it references
	refs  map[string]bool            // collects references while deriving

	objects map[reflect.Type]*objectPlan // decoding plans of struct types
	elems   map[reflect.Type]*fieldPlan  // decoding plans of container elements, by element type

	// fileStruct is the multipart body struct whose schema is being
	// derived: the one type whose fields may be [File] (see body.go).
	fileStruct reflect.Type
	// fileTypes are the named body structs that hold File fields; any
	// other use of them is an error.
	fileTypes map[reflect.Type]bool
}

func newBuilder() *builder {
	return &builder{
		defs:  map[string]*schema{},
		raw:   map[string]json.RawMessage{},
		names: map[reflect.Type]string{},
		deps:  map[string]map[string]bool{},

		objects:   map[reflect.Type]*objectPlan{},
		elems:     map[reflect.Type]*fieldPlan{},
		fileTypes: map[reflect.Type]bool{},
	}
}

// collect starts recording the $defs names that schemas derived from now on
// reference; stop returns them.
func (b *builder) collect() (stop func() map[string]bool) {
	saved := b.refs
	b.refs = map[string]bool{}
	return func() map[string]bool {
		got := b.refs
		b.refs = saved
		return got
	}
}

// closure returns the names in roots and every name they reference,
// transitively, sorted.
func (b *builder) closure(roots map[string]bool) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		for dep := range b.deps[name] {
			visit(dep)
		}
	}
	for name := range roots {
		visit(name)
	}
	return seen
}

// defName returns a $defs name for the named struct type t: its Go name
// with type arguments folded in (Page[main.User] → PageUser), with a
// numeric suffix when another type of the module already has that name.
// Types get names in the order they are first met, which is fixed by the
// order of Handle calls and of struct fields, so names are deterministic.
func (b *builder) defName(t reflect.Type) string {
	base := sanitizeName(t.Name())
	name := base
	for i := 2; b.taken(name); i++ {
		name = base + strconv.Itoa(i)
	}
	return name
}

func (b *builder) taken(name string) bool {
	if _, ok := b.defs[name]; ok {
		return true
	}
	_, ok := b.raw[name]
	return ok
}

// sanitizeName turns a Go type name into a name that OpenAPI accepts as a
// component key (^[a-zA-Z0-9._-]+$): package paths of type arguments are
// dropped and each argument is capitalised and appended.
func sanitizeName(goName string) string {
	var out strings.Builder
	for tok := range strings.FieldsFuncSeq(goName, func(r rune) bool {
		return !(r == '_' || r == '.' || r == '/' || r == '-' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		if i := strings.LastIndexAny(tok, "./"); i >= 0 {
			tok = tok[i+1:]
		}
		if tok == "" {
			continue
		}
		if out.Len() > 0 {
			tok = strings.ToUpper(tok[:1]) + tok[1:]
		}
		out.WriteString(tok)
	}
	if out.Len() == 0 {
		return "Object"
	}
	return out.String()
}

// schemaOf derives the schema of values of type t as encoding/json writes
// and reads them.
func (b *builder) schemaOf(t reflect.Type) (*schema, error) {
	switch t {
	case fileType:
		return nil, errFileField
	case timeType:
		return &schema{Type: "string", Format: "date-time"}, nil
	case rawMessageType:
		return &schema{}, nil
	case numberType:
		return &schema{Type: "number"}, nil
	}
	if t.Kind() == reflect.Pointer {
		return b.schemaOf(t.Elem())
	}
	if implements(t, marshalerType) {
		// The type writes JSON of its own making: nothing can be said.
		return &schema{}, nil
	}
	if implements(t, textMarshalerType) {
		return &schema{Type: "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return boundedSchema("integer", t), nil
	case reflect.Float32:
		return boundedSchema("number", t), nil
	case reflect.Float64:
		return &schema{Type: "number"}, nil
	case reflect.String:
		return &schema{Type: "string"}, nil
	case reflect.Interface:
		return &schema{}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), marshalerType) && !implements(t.Elem(), textMarshalerType) {
			return &schema{Type: "string", ContentEncoding: "base64"}, nil
		}
		items, err := b.schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		return &schema{Type: "array", Items: items}, nil
	case reflect.Array:
		items, err := b.schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		n := uint64(t.Len())
		return &schema{Type: "array", Items: items, MinItems: &n, MaxItems: &n}, nil
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			if !implements(t.Key(), textMarshalerType) {
				return nil, fmt.Errorf("%s: map keys must be strings or integers for JSON, not %s", t, t.Key())
			}
		}
		values, err := b.schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		return &schema{Type: "object", AdditionalProperties: values}, nil
	case reflect.Struct:
		if t.Name() == "" {
			return b.structSchema(t)
		}
		return b.ref(t)
	}
	return nil, fmt.Errorf("%s: a %s cannot be encoded as JSON", t, t.Kind())
}

// boundedSchema is the schema of numeric type t: its JSON type, and the
// range of t as minimum and maximum (see numbers.go).
func boundedSchema(typ string, t reflect.Type) *schema {
	r := rangeOf(t)
	return &schema{Type: typ, Minimum: json.RawMessage(r.min), Maximum: json.RawMessage(r.max), bounds: r}
}

// ref returns a reference to the $defs entry of the named struct type t,
// deriving the entry the first time.
func (b *builder) ref(t reflect.Type) (*schema, error) {
	name, ok := b.names[t]
	if ok && b.fileTypes[t] && b.fileStruct != t {
		return nil, fmt.Errorf("%s holds endpoints.File fields: it can only be the Body of a multipart/form-data request", t)
	}
	if !ok {
		name = b.defName(t)
		b.names[t] = name
		b.defs[name] = nil // reserve the name; recursive types refer to it
		stop := b.collect()
		s, err := b.structSchema(t)
		b.deps[name] = stop()
		if err != nil {
			delete(b.names, t)
			delete(b.defs, name)
			return nil, err
		}
		b.defs[name] = s
	}
	if b.refs != nil {
		b.refs[name] = true
	}
	return &schema{Ref: "#/$defs/" + name}, nil
}

// inline returns s with every reference to a $defs entry replaced by a
// copy of the entry, for a schema that must stand alone. within names the
// entries being inlined: a type that contains itself cannot be written
// whole, and fails.
func (b *builder) inline(s *schema, within []string) (*schema, error) {
	if s == nil {
		return nil, nil
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
		if slices.Contains(within, name) {
			return nil, fmt.Errorf("%s contains itself, which a schema without $defs cannot describe: declare the response with RawJSON", name)
		}
		return b.inline(b.defs[name], append(within, name))
	}
	out := *s
	var err error
	if out.Items, err = b.inline(s.Items, within); err != nil {
		return nil, err
	}
	if values, ok := s.AdditionalProperties.(*schema); ok {
		if out.AdditionalProperties, err = b.inline(values, within); err != nil {
			return nil, err
		}
	}
	out.Properties = make(properties, len(s.Properties))
	for i, p := range s.Properties {
		ps, err := b.inline(p.schema, within)
		if err != nil {
			return nil, err
		}
		out.Properties[i] = property{name: p.name, schema: ps}
	}
	if len(out.Properties) == 0 {
		out.Properties = nil
	}
	return &out, nil
}

// structSchema derives the object schema of a struct type from its JSON
// fields.
//
// Every object schema derived from a Go struct is closed
// ("additionalProperties": false). A request body with a member the struct
// does not have is then a 400 that names the member, instead of a value the
// handler silently never sees: a client's typo ("emial") is reported, not
// ignored. Responses are encoded from the same struct and never carry extra
// members, so closing them costs nothing. Maps, any and json.RawMessage stay
// open.
//
// A blank field `_ struct{}` describes the type itself: its doc tag is the
// schema's description and each example tag (JSON) one of its examples,
// which the host copies into the document's media types.
func (b *builder) structSchema(t reflect.Type) (*schema, error) {
	s := &schema{Type: "object", AdditionalProperties: false}
	if err := typeTags(s, t); err != nil {
		return nil, err
	}
	for _, f := range jsonFields(t) {
		var fs *schema
		var err error
		if _, isFile := fileKindOf(f.typ); isFile && t == b.fileStruct {
			fs, err = fileSchema(f.typ, f.tag)
		} else {
			fs, err = b.schemaOf(f.typ)
		}
		if err != nil {
			return nil, fmt.Errorf("%s field %s: %w", t, f.goName, err)
		}
		if f.quoted {
			fs = quotedSchema(fs)
		}
		required := !f.omit && f.typ.Kind() != reflect.Pointer && !f.viaPointer
		if err := applyTags(fs, f.tag, &required); err != nil {
			return nil, fmt.Errorf("%s field %s: %w", t, f.goName, err)
		}
		if fs, err = nullableTag(fs, f.typ, f.tag); err != nil {
			return nil, fmt.Errorf("%s field %s: %w", t, f.goName, err)
		}
		s.Properties = append(s.Properties, property{name: f.name, schema: fs})
		if required {
			s.Required = append(s.Required, f.name)
		}
	}
	return s, nil
}

// nullableTag applies the `nullable:"true"` tag of a field of type t to
// its schema s: the field's value may also be null, as encoding/json
// writes a nil pointer, slice or map (a NULLable column's *string field
// answered as JSON). The schema becomes {"anyOf": [s, {"type": "null"}]},
// the description, default, examples and annotations moved to the outer
// schema, where documents and generated clients look for them. A type
// that cannot be nil cannot be null: that is an error saying to use a
// pointer.
func nullableTag(s *schema, t reflect.Type, tag reflect.StructTag) (*schema, error) {
	value, ok := tag.Lookup("nullable")
	if !ok {
		return s, nil
	}
	null, err := strconv.ParseBool(value)
	if err != nil {
		return nil, tagError("nullable", value, "want true or false")
	}
	if !null {
		return s, nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
	default:
		return nil, tagError("nullable", value, "%s values are never null in JSON: make the field a pointer (*%s)", t, t)
	}
	if t.Kind() == reflect.Interface || reflect.DeepEqual(*s, schema{}) {
		return s, nil // any value, null included
	}
	outer := &schema{
		AnyOf:       []*schema{s, {Type: "null"}},
		Description: s.Description, Default: s.Default, Examples: s.Examples,
		Deprecated: s.Deprecated, ReadOnly: s.ReadOnly, WriteOnly: s.WriteOnly,
	}
	inner := *s
	inner.Description, inner.Default, inner.Examples = "", nil, nil
	inner.Deprecated, inner.ReadOnly, inner.WriteOnly = false, false, false
	outer.AnyOf[0] = &inner
	return outer, nil
}

// typeTags applies the doc and example tags of the blank fields (named _)
// of struct type t to its schema s. encoding/json skips blank fields, and
// a zero-size one written first takes no room in values:
//
//	type User struct {
//		_    struct{} `doc:"A user." example:"{\"id\":1,\"name\":\"Ada\"}"`
//		ID   int      `json:"id"`
//		Name string   `json:"name"`
//	}
func typeTags(s *schema, t reflect.Type) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Name != "_" {
			continue
		}
		for _, key := range []string{"doc", "example"} {
			value, ok := sf.Tag.Lookup(key)
			if !ok {
				continue
			}
			if key == "doc" {
				s.Description = value
				continue
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, []byte(value)); err != nil {
				return fmt.Errorf("%s field _: %w", t, tagError(key, value, "not valid JSON: write the whole example value, such as {\"id\":1}"))
			}
			s.Examples = append(s.Examples, buf.Bytes())
		}
	}
	return nil
}

// quotedSchema is the schema of a field with the ",string" json option:
// encoding/json writes its number or boolean inside a JSON string.
func quotedSchema(s *schema) *schema {
	switch s.Type {
	case "integer", "number", "boolean":
		return &schema{Type: "string"}
	}
	return s
}

// jsonField is one member of a struct's JSON object.
type jsonField struct {
	name       string // JSON member name
	goName     string // Go field name, for messages
	index      []int
	typ        reflect.Type
	tag        reflect.StructTag
	tagged     bool // the name comes from a json tag
	omit       bool // omitempty or omitzero
	quoted     bool // the ",string" option on a scalar
	viaPointer bool // promoted through an embedded pointer: may be absent
}

// jsonFields lists the JSON members of struct type t the way encoding/json
// does: exported fields, json tags honoured ("-" skips, options after the
// comma), embedded structs flattened with Go's visibility rules (the
// shallowest field wins; at equal depth a tagged field wins; otherwise the
// name is dropped). Members are in field order.
func jsonFields(t reflect.Type) []jsonField {
	type level struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var fields []jsonField
	visited := map[reflect.Type]bool{}
	next := []level{{typ: t}}
	for len(next) > 0 {
		current := next
		next = nil
		count := map[reflect.Type]int{}
		for _, l := range current {
			count[l.typ]++
		}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if sf.Anonymous {
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(l.index[:len(l.index):len(l.index)], i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, level{ft, index, l.viaPointer || sf.Type.Kind() == reflect.Pointer})
					continue
				}
				f := jsonField{
					name: name, goName: sf.Name, index: index, typ: sf.Type, tag: sf.Tag,
					tagged: name != "", viaPointer: l.viaPointer,
				}
				if name == "" {
					f.name = sf.Name
				}
				for opt := range strings.SplitSeq(opts, ",") {
					switch opt {
					case "omitempty", "omitzero":
						f.omit = true
					case "string":
						switch ft.Kind() {
						case reflect.Bool, reflect.Float32, reflect.Float64,
							reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.String:
							f.quoted = true
						}
					}
				}
				fields = append(fields, f)
				if count[l.typ] > 1 {
					// The same struct embedded twice at one depth: its
					// fields annihilate each other, as in encoding/json.
					fields = append(fields, f)
				}
			}
		}
	}
	// Keep, for each name, the dominant field.
	byName := map[string][]jsonField{}
	var order []string
	for _, f := range fields {
		if _, ok := byName[f.name]; !ok {
			order = append(order, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	var out []jsonField
	for _, name := range order {
		if f, ok := dominantField(byName[name]); ok {
			out = append(out, f)
		}
	}
	// Field order: by index path, as encoding/json writes them.
	sortFields(out)
	return out
}

// dominantField picks the field that encoding/json keeps among fields of one
// name: the shallowest, then the only tagged one; none when ambiguous.
func dominantField(fields []jsonField) (jsonField, bool) {
	depth := len(fields[0].index)
	for _, f := range fields[1:] {
		depth = min(depth, len(f.index))
	}
	var top []jsonField
	for _, f := range fields {
		if len(f.index) == depth {
			top = append(top, f)
		}
	}
	if len(top) == 1 {
		return top[0], true
	}
	var tagged []jsonField
	for _, f := range top {
		if f.tagged {
			tagged = append(tagged, f)
		}
	}
	if len(tagged) == 1 {
		return tagged[0], true
	}
	return jsonField{}, false
}

// sortFields orders fields by their index paths (insertion sort: structs
// are small).
func sortFields(fs []jsonField) {
	less := func(a, b []int) bool {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				return a[i] < b[i]
			}
		}
		return len(a) < len(b)
	}
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && less(fs[j].index, fs[j-1].index); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}
