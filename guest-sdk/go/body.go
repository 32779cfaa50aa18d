package endpoints

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/mediatype"
)

// Request media types. The Body field of an input struct lists the media
// types it accepts in its content tag; how the host delivers each
// (abi.MediaType) decides how the SDK fills the field:
//
//   - JSON (application/json, +json), form and multipart bodies arrive
//     decoded and validated in the envelope's "body" member, an object for
//     the last two; the Body is decoded from it like a JSON body. File
//     fields of a multipart body come from the envelope's "files" list.
//   - Any other type, ranges included, arrives raw through body_read; the
//     Body is an io.Reader, []byte or string.

// bodyClass says how the host delivers a request media type.
type bodyClass uint8

const (
	classJSON      bodyClass = iota // parsed JSON in the envelope's body
	classForm                       // application/x-www-form-urlencoded, decoded to an object
	classMultipart                  // multipart/form-data: fields decoded, files listed
	classRaw                        // anything else: read with body_read
)

// Media types with a class of their own.
const (
	defaultBodyType = "application/json"
	formBodyType    = "application/x-www-form-urlencoded"
	multipartType   = "multipart/form-data"
)

// bodyType is one media type of a content tag.
type bodyType struct {
	key   string // as written in the tag, trimmed: the key in the contract
	class bodyClass
	text  bool // a text/* type, documented as a string
}

// parseContent parses a content tag: media types separated by commas.
func parseContent(value string) ([]bodyType, error) {
	var out []bodyType
	seen := map[string]string{}
	for t := range strings.SplitSeq(value, ",") {
		t = strings.TrimSpace(t)
		canon, wildcard, err := mediatype.Parse(t)
		if err != nil {
			return nil, tagError("content", value, "%q is not a media type: %v", t, err)
		}
		if first, dup := seen[canon]; dup {
			return nil, tagError("content", value, "%q is the same media type as %q (media types are case-insensitive)", t, first)
		}
		seen[canon] = t
		base, _, _ := strings.Cut(canon, ";")
		bt := bodyType{key: t, class: classRaw, text: strings.HasPrefix(base, "text/")}
		switch {
		case wildcard:
		case mediatype.IsJSON(t):
			bt.class = classJSON
		case base == formBodyType:
			bt.class = classForm
		case base == multipartType:
			bt.class = classMultipart
		}
		out = append(out, bt)
	}
	return out, nil
}

// rawKind is the Go type of a Body delivered raw.
type rawKind uint8

const (
	rawNone   rawKind = iota
	rawReader         // io.Reader: streamed with body_read
	rawBytes          // []byte: read whole before the handler runs
	rawString         // string: the same
)

var (
	readerType = reflect.TypeFor[io.Reader]()
	bytesType  = reflect.TypeFor[[]byte]()
	stringType = reflect.TypeFor[string]()
)

func rawKindOf(t reflect.Type) rawKind {
	switch t {
	case readerType:
		return rawReader
	case bytesType:
		return rawBytes
	case stringType:
		return rawString
	}
	return rawNone
}

// planBody derives the body declaration of input type in from its Body
// field sf, at offset in the input, and sets the body's decoding plan.
// override, when not nil, replaces the derived schema under every media
// type.
func (b *builder) planBody(in reflect.Type, sf reflect.StructField, offset uintptr, override json.RawMessage, plan *inputPlan) (*abi.Body, error) {
	fail := func(err error) (*abi.Body, error) { return nil, fmt.Errorf("%s field Body: %w", in, err) }
	out := &abi.Body{}
	content, listed := sf.Tag.Lookup("content")
	types := []bodyType{{key: defaultBodyType, class: classJSON}}
	if listed {
		var err error
		if types, err = parseContent(content); err != nil {
			return fail(err)
		}
	}
	if v, ok := sf.Tag.Lookup("maxBytes"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 {
			return fail(tagError("maxBytes", v, "want a positive number of bytes"))
		}
		out.MaxBytes = n
	}
	var overrideSchema json.RawMessage
	if override != nil {
		var err error
		if overrideSchema, err = pick(nil, override, "body"); err != nil {
			return nil, err
		}
	}

	raw := slices.IndexFunc(types, func(t bodyType) bool { return t.class == classRaw })
	decoded := slices.IndexFunc(types, func(t bodyType) bool { return t.class != classRaw })
	kind := rawKindOf(sf.Type)
	switch {
	case raw >= 0 && decoded >= 0:
		return fail(tagError("content", content, "%s is delivered raw and %s decoded by the host: list either kind, not both",
			types[raw].key, types[decoded].key))
	case raw >= 0 && kind == rawNone:
		return fail(fmt.Errorf("tag content:%q: %s is delivered raw: make Body an io.Reader, []byte or string, not %s", content, types[raw].key, sf.Type))
	case raw >= 0:
		return b.planRawBody(in, sf, offset, types, overrideSchema, out, plan)
	case kind == rawReader:
		return fail(fmt.Errorf("an io.Reader Body is read raw: list its media types in a content tag, such as content:%q", "text/csv"))
	}

	// A decoded body: JSON, form or multipart.
	multipart := slices.ContainsFunc(types, func(t bodyType) bool { return t.class == classMultipart })
	form := slices.IndexFunc(types, func(t bodyType) bool { return t.class == classForm || t.class == classMultipart })
	st := sf.Type
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	var files []fileField
	encoding := map[string]*abi.Encoding{}
	if st.Kind() == reflect.Struct {
		for _, f := range jsonFields(st) {
			fk, isFile := fileKindOf(f.typ)
			if accept, ok := f.tag.Lookup("accept"); ok && !isFile {
				return fail(fmt.Errorf("%s field %s: tag accept:%q: applies to endpoints.File fields only", st, f.goName, accept))
			}
			if !isFile {
				continue
			}
			if !multipart {
				has := "has no content tag: it is JSON"
				if listed {
					has = fmt.Sprintf("has content:%q", content)
				}
				return fail(fmt.Errorf("%s field %s is an endpoints.File: list multipart/form-data in the content tag of Body (it %s)", st, f.goName, has))
			}
			if f.viaPointer {
				return fail(fmt.Errorf("%s field %s: an endpoints.File field promoted through an embedded pointer cannot be filled: embed the struct by value", st, f.goName))
			}
			accept, err := acceptTypes(f.tag)
			if err != nil {
				return fail(fmt.Errorf("%s field %s: %w", st, f.goName, err))
			}
			if len(accept) > 0 {
				encoding[f.name] = &abi.Encoding{ContentType: strings.Join(accept, ", ")}
			}
			var at uintptr
			ft := st
			for _, i := range f.index {
				field := ft.Field(i)
				at += field.Offset
				ft = field.Type
			}
			files = append(files, fileField{name: f.name, offset: at, kind: fk})
		}
	}
	if len(files) > 0 {
		b.fileStruct = st
		b.fileTypes[st] = true
		defer func() { b.fileStruct = nil }()
	}
	s, err := b.schemaOf(sf.Type)
	if err != nil {
		return fail(err)
	}
	if form >= 0 && s.typeName() != "object" && s.typeName() != "" && overrideSchema == nil {
		return fail(fmt.Errorf("tag content:%q: a body of %s is an object of fields: make Body a struct or a map, not %s", content, types[form].key, sf.Type))
	}
	required := sf.Type.Kind() != reflect.Pointer
	if err := applyTags(s, sf.Tag, &required); err != nil {
		return fail(err)
	}
	// doc describes the body, not its schema (which may be a shared $defs
	// entry).
	out.Description, s.Description = s.Description, ""
	if !required {
		out.Required = new(bool)
	}
	derived, err := s.json()
	if err != nil {
		return nil, err
	}
	if overrideSchema != nil {
		derived = overrideSchema
	}
	if !listed {
		out.Schema = derived
	} else {
		out.Content = make(map[string]*abi.MediaType, len(types))
		for _, t := range types {
			mt := &abi.MediaType{Schema: derived}
			if t.class == classMultipart && len(encoding) > 0 {
				mt.Encoding = encoding
			}
			out.Content[t.key] = mt
		}
	}

	fp := b.fieldPlan(abi.PartBody.String(), sf.Type, offset)
	if len(files) > 0 && (fp.object == nil || !fp.object.ok) {
		return fail(fmt.Errorf("%s has endpoints.File fields, which the SDK fills itself: drop its \",string\" options, embedded pointers and UnmarshalJSON or UnmarshalText methods", st))
	}
	plan.body = &fp
	plan.files = files
	return out, nil
}

// planRawBody declares a body of media types delivered raw: io.Reader,
// []byte or string. Only the doc and required tags apply: the host does
// not validate such a body.
func (b *builder) planRawBody(in reflect.Type, sf reflect.StructField, offset uintptr, types []bodyType, override json.RawMessage, out *abi.Body, plan *inputPlan) (*abi.Body, error) {
	for _, key := range constraintTags {
		if v, ok := sf.Tag.Lookup(key); ok && key != "doc" && key != "required" {
			return nil, fmt.Errorf("%s field Body: %w", in, tagError(key, v, "a body delivered raw is not validated: only doc and required apply"))
		}
	}
	required := true
	scratch := &schema{Type: "string"}
	if err := applyTags(scratch, sf.Tag, &required); err != nil {
		return nil, fmt.Errorf("%s field Body: %w", in, err)
	}
	out.Description = scratch.Description
	if !required {
		out.Required = new(bool)
	}
	out.Content = make(map[string]*abi.MediaType, len(types))
	for _, t := range types {
		mt := &abi.MediaType{Schema: override}
		if override == nil && t.text {
			mt.Schema = json.RawMessage(`{"type":"string"}`)
		}
		out.Content[t.key] = mt
	}
	plan.raw, plan.rawOffset = rawKindOf(sf.Type), offset
	return out, nil
}

// fillRaw sets a raw Body field at p: the body reader, or the whole body
// read from the host.
func fillRaw(kind rawKind, p unsafe.Pointer) error {
	if kind == rawReader {
		*(*io.Reader)(p) = bodyReader{}
		return nil
	}
	body, err := readBody()
	if err != nil {
		return err
	}
	if kind == rawBytes {
		*(*[]byte)(p) = body
	} else {
		*(*string)(p) = string(body)
	}
	return nil
}

// readBody reads the whole raw request body from the host.
func readBody() ([]byte, error) {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n := bodyRead(buf[len(buf):cap(buf)])
		if err := check(abi.ImportBodyRead, n); err != nil {
			return nil, fmt.Errorf("reading the request body: %w", err)
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+int(n)]
	}
}
