package endpoints

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/wasmendpoints/endpoints/abi"
)

// inputPlan says how a request envelope fills an input struct. It is
// computed once, when the handler is registered: for each part, the fields
// by parameter name with their offsets in the struct (see decode.go), and
// how the body arrives (see body.go).
type inputPlan struct {
	parts     [3][]fieldPlan // params, query, headers, indexed by abi.Part
	body      *fieldPlan     // a body decoded from the envelope
	files     []fileField    // File fields of a multipart body struct
	raw       rawKind        // a body read with body_read instead
	rawOffset uintptr        // of the raw Body field
}

// fill decodes the envelope into the input struct at base: each part
// member fills the fields of that part by name; members the input does not
// declare are skipped. On its way it keeps the mediaType and contentType
// members for [MediaType] and [ContentType]. A raw body is read last.
// A value the input cannot hold is an *inputError, for refuseInput.
func (p *inputPlan) fill(envelope []byte, base unsafe.Pointer) error {
	if p.body != nil || len(p.parts[0])+len(p.parts[1])+len(p.parts[2]) > 0 {
		err := p.decode(envelope, base)
		if _, invalid := err.(*inputError); invalid {
			return err
		}
		if err != nil {
			return fmt.Errorf("decoding the request envelope: %w", err)
		}
	}
	if p.raw != rawNone {
		return fillRaw(p.raw, unsafe.Add(base, p.rawOffset))
	}
	return nil
}

// decode fills the parameters and the decoded body from the envelope.
// It runs on every request, so it reads the members in a loop rather than
// through callbacks (see members), and the parts in place (a lazy scan:
// an object is read once, not skipped and then read).
func (p *inputPlan) decode(envelope []byte, base unsafe.Pointer) error {
	var files []byte
	var err error
	m := scanMembers(envelope)
	m.lazy = true
	for err == nil && m.next() {
		// A part without fields is not even called for (next skips
		// it): most inputs have one or two of the three, and a call is
		// dear in a Go WebAssembly module.
		switch key := m.key; key {
		case keyParams:
			if len(p.parts[abi.PartParams]) != 0 {
				err = p.decodeParams(abi.PartParams, &m, base)
			}
		case keyQuery:
			if len(p.parts[abi.PartQuery]) != 0 {
				err = p.decodeParams(abi.PartQuery, &m, base)
			}
		case keyHeaders:
			if len(p.parts[abi.PartHeaders]) != 0 {
				err = p.decodeParams(abi.PartHeaders, &m, base)
			}
		default:
			// Any other open value (a body, the files, auth) is made
			// whole, which costs what next's skip would.
			if m.open && !m.whole() {
				break // next reports the error
			}
			switch key {
			case keyBody:
				if p.body != nil {
					if err = p.body.decode(m.value, base); err != nil {
						err = inPart(key, err)
					}
				}
			case keyFiles:
				files = m.value
			default:
				request.note(key, m.value) // kept for MediaType, Auth and the like
			}
		}
	}
	if err == nil {
		err = m.err
	}
	// Scanned to the end: an absent mediaType is known absent too. (Only
	// during a request: tests may fill outside one.)
	request.scanned = err == nil && request.envelope != nil
	if err != nil || len(p.files) == 0 || files == nil || isNull(files) {
		return err
	}
	// Files may come before or after the body; the body is decoded now.
	body := unsafe.Add(base, p.body.offset)
	if p.body.ptr {
		if body = *(*unsafe.Pointer)(body); body == nil {
			return nil
		}
	}
	return fillFiles(p.files, files, body)
}

// decodeParams fills the fields of one part from the envelope's member
// pm, an object of parameters, read in place when it is open; parameters
// without a field are skipped.
func (p *inputPlan) decodeParams(part abi.Part, pm *members, base unsafe.Pointer) error {
	fields := p.parts[part]
	if len(fields) == 0 || isNull(pm.value) {
		return nil
	}
	m := pm.object()
	for m.next() {
		for i := range fields {
			if fields[i].name == m.key {
				if err := fields[i].decode(m.value, base); err != nil {
					return inPart(part.String(), within(err, m.key))
				}
				break
			}
		}
	}
	if m.err == nil && pm.open {
		pm.resume(pm.i + m.i)
	}
	return m.err
}

// inputField is a parameter field of an input struct.
type inputField struct {
	part   abi.Part
	name   string
	offset uintptr // in the input struct, through embedded structs
	field  reflect.StructField
}

// partTags are the struct tags that make a field a parameter.
var partTags = []struct {
	tag  string
	part abi.Part
}{{"path", abi.PartParams}, {"query", abi.PartQuery}, {"header", abi.PartHeaders}}

// planInput derives the request schemas and the decoding plan of input
// struct type t. Schemas given in raw replace the derived ones.
func (b *builder) planInput(t reflect.Type, raw RequestSchemas) (*inputPlan, *abi.Request, error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("input type %s is a %s, not a struct: use struct{} for an operation without input", t, t.Kind())
	}
	var fields []inputField
	var body *reflect.StructField
	var bodyOffset uintptr
	var walk func(t reflect.Type, base uintptr, depth int) error
	walk = func(t reflect.Type, base uintptr, depth int) error {
		for i := range t.NumField() {
			sf := t.Field(i)
			offset := base + sf.Offset
			var found []inputField
			for _, pt := range partTags {
				if name, ok := sf.Tag.Lookup(pt.tag); ok {
					found = append(found, inputField{part: pt.part, name: name, offset: offset, field: sf})
				}
			}
			switch {
			case sf.Anonymous && sf.Type.Kind() == reflect.Struct && len(found) == 0:
				// Embedded parameters, shared between inputs. The exported
				// fields of an unexported embedded struct can be set, as
				// encoding/json does.
				if err := walk(sf.Type, offset, depth+1); err != nil {
					return err
				}
			case !sf.IsExported():
				if len(found) > 0 || sf.Name == "Body" {
					return fmt.Errorf("%s field %s: unexported fields cannot be filled: export it", t, sf.Name)
				}
			case len(found) > 1:
				return fmt.Errorf("%s field %s: has both %s and %s tags: a field is one parameter",
					t, sf.Name, partTags[found[0].part].tag, partTags[found[1].part].tag)
			case len(found) == 1:
				f := found[0]
				if f.part == abi.PartHeaders {
					f.name = strings.ToLower(f.name)
				}
				if !validName(f.name) {
					return fmt.Errorf("%s field %s: tag %s:%q: a parameter name must be non-empty and use letters, digits and punctuation other than quotes, backslash and comma",
						t, sf.Name, partTags[f.part].tag, f.name)
				}
				fields = append(fields, f)
			case sf.Name == "Body" && depth == 0:
				body, bodyOffset = &sf, offset
			default:
				return fmt.Errorf("%s field %s: has no path, query or header tag and is not named Body: tag it, or move it out of the input struct", t, sf.Name)
			}
		}
		return nil
	}
	if err := walk(t, 0, 0); err != nil {
		return nil, nil, err
	}

	req := &abi.Request{}
	plan := &inputPlan{}
	for _, pt := range partTags {
		var props properties
		var required []string
		for _, f := range fields {
			if f.part != pt.part {
				continue
			}
			for _, p := range props {
				if p.name == f.name {
					return nil, nil, fmt.Errorf("%s field %s: tag %s:%q: another field already has this name", t, f.field.Name, pt.tag, f.name)
				}
			}
			s, isRequired, err := b.paramSchema(f)
			if err != nil {
				return nil, nil, fmt.Errorf("%s field %s: %w", t, f.field.Name, err)
			}
			style, err := queryStyle(f, s)
			if err != nil {
				return nil, nil, fmt.Errorf("%s field %s: %w", t, f.field.Name, err)
			}
			if style != nil && raw.Query == nil {
				if req.QueryStyles == nil {
					req.QueryStyles = map[string]*abi.QueryStyle{}
				}
				req.QueryStyles[f.name] = style
			}
			props = append(props, property{name: f.name, schema: s})
			if isRequired {
				required = append(required, f.name)
			}
			plan.parts[pt.part] = append(plan.parts[pt.part], b.fieldPlan(f.name, f.field.Type, f.offset))
		}
		var derived json.RawMessage
		if len(props) > 0 {
			s, err := (&schema{Type: "object", Properties: props, Required: required}).json()
			if err != nil {
				return nil, nil, err
			}
			derived = s
		}
		override := map[abi.Part]json.RawMessage{abi.PartParams: raw.Params, abi.PartQuery: raw.Query, abi.PartHeaders: raw.Headers}[pt.part]
		s, err := pick(derived, override, pt.part.String())
		if err != nil {
			return nil, nil, err
		}
		switch pt.part {
		case abi.PartParams:
			req.Params = s
		case abi.PartQuery:
			req.Query = s
		case abi.PartHeaders:
			req.Headers = s
		}
	}

	switch {
	case body != nil:
		bd, err := b.planBody(t, *body, bodyOffset, raw.Body, plan)
		if err != nil {
			return nil, nil, err
		}
		req.Body = bd
	case raw.Body != nil:
		s, err := pick(nil, raw.Body, "body")
		if err != nil {
			return nil, nil, err
		}
		req.Body = &abi.Body{Schema: s}
	}
	if req.Params == nil && req.Query == nil && req.Headers == nil && req.Body == nil {
		req = nil
	}
	return plan, req, nil
}

// paramSchema derives the schema of a path, query or header field and says
// whether the parameter is required: path parameters always are, query and
// header parameters only with `required:"true"`.
func (b *builder) paramSchema(f inputField) (*schema, bool, error) {
	s, err := b.schemaOf(f.field.Type)
	if t := derefType(f.field.Type); err == nil && f.part == abi.PartQuery && s.Ref != "" && t.Kind() == reflect.Struct {
		// A named struct is written whole, not as a $defs entry: the
		// host reads an object parameter's members from its schema.
		s, err = b.structSchema(t)
	}
	if err != nil {
		return nil, false, err
	}
	required := false
	if err := applyTags(s, f.field.Tag, &required); err != nil {
		return nil, false, err
	}
	scalar := func(s *schema) bool {
		switch s.Type {
		case "string", "integer", "number", "boolean":
			return s.ContentEncoding == ""
		}
		return false
	}
	tag := partTags[f.part].tag
	switch {
	case f.part == abi.PartParams:
		if _, ok := f.field.Tag.Lookup("required"); ok {
			return nil, false, fmt.Errorf("tag required: path parameters are always required")
		}
		if f.field.Type.Kind() == reflect.Pointer || !scalar(s) {
			return nil, false, fmt.Errorf("a path parameter must be a string, integer, number or boolean, not %s", f.field.Type)
		}
		return s, true, nil
	case f.part == abi.PartQuery && s.Type == "object" && len(s.Properties) > 0:
		// An object query parameter (OpenAPI's style form or
		// deepObject): each member a value a query string can spell.
		for _, p := range s.Properties {
			if !scalar(p.schema) && !(p.schema.Type == "array" && scalar(p.schema.Items)) {
				return nil, false, fmt.Errorf("an object query parameter's members must be strings, integers, numbers or booleans, or slices of them; member %q is %s", p.name, describeType(p.schema))
			}
		}
		return s, required, nil
	}
	if !scalar(s) && !(s.Type == "array" && scalar(s.Items)) {
		objects := ""
		if f.part == abi.PartQuery {
			objects = ", or a struct of them (an object parameter)"
		}
		return nil, false, fmt.Errorf("a %s parameter must be a string, integer, number or boolean, or a slice of them%s, not %s", tag, objects, f.field.Type)
	}
	return s, required, nil
}

// derefType is t, or its element when t is a pointer.
func derefType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// queryStyle reads the style and explode tags of an object query
// parameter's field f, whose schema is s: how the query string spells it
// (OpenAPI's style form, the default, with explode true unless
// explode:"false", or style deepObject). Nil when the field has neither
// tag: form with explode, OpenAPI's default.
//
//	Filter Filter `query:"filter" style:"deepObject"` // ?filter[color]=red&filter[size]=2
//	Pick   Pick   `query:"pick" explode:"false"`     // ?pick=color,red,size,2
//	Shape  Shape  `query:"shape"`                     // ?color=red&size=2
func queryStyle(f inputField, s *schema) (*abi.QueryStyle, error) {
	style, hasStyle := f.field.Tag.Lookup("style")
	explode, hasExplode := f.field.Tag.Lookup("explode")
	if !hasStyle && !hasExplode {
		return nil, nil
	}
	if f.part != abi.PartQuery || s.Type != "object" {
		return nil, fmt.Errorf("tags style and explode apply to object query parameters (a struct field tagged query), not to %s", f.field.Type)
	}
	st := &abi.QueryStyle{Style: cmp.Or(style, "form")}
	switch st.Style {
	case "form", "deepObject":
	default:
		return nil, tagError("style", style, `want "form" (the default) or "deepObject"`)
	}
	if hasExplode {
		b, err := strconv.ParseBool(explode)
		if err != nil {
			return nil, tagError("explode", explode, "not a valid boolean")
		}
		if st.Style == "deepObject" && !b {
			return nil, tagError("explode", explode, "deepObject is always exploded (?filter[color]=red)")
		}
		if !b {
			st.Explode = &b
		}
	}
	return st, nil
}

// pick returns the raw schema when one is given, compacted, else the
// derived one.
func pick(derived, raw json.RawMessage, part string) (json.RawMessage, error) {
	if raw == nil {
		return derived, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("Request.%s%s: not valid JSON: %w", strings.ToUpper(part[:1]), part[1:], err)
	}
	return buf.Bytes(), nil
}

// validName reports whether name can be a parameter name: what
// encoding/json accepts as a member name in a struct tag, so that inputs
// and their documentation agree with Go's JSON conventions.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c > 127:
		default:
			return false
		}
	}
	return true
}
