package endpoints

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"
)

// Decoding plans: how a JSON value is written into a Go value, computed
// once per type when a handler is registered. Scalars (strings, numbers,
// booleans), structs, slices, arrays and maps with string keys of them,
// and pointers to all of these are decoded with the scanner of
// jsonscan.go and written in place; any other type (interfaces, types
// with their own UnmarshalJSON or UnmarshalText, []byte) goes through
// encoding/json, for that value only. The result is what
// encoding/json.Unmarshal gives, at a fraction of its cost in
// WebAssembly, with two differences: an integer field takes an integral
// number written with a fraction or an exponent ("2.0", "2e0"), and a
// value the Go type cannot hold is an [inputError] that says where it is
// in the request, which the SDK answers with a 400.

// fieldPlan decodes one JSON value into one field of a struct, or into
// one element of a slice, array or map (at offset 0).
type fieldPlan struct {
	name      string       // JSON name
	offset    uintptr      // of the field in its struct
	typ       reflect.Type // of the field
	scalar    reflect.Kind // of a scalar written in place; Invalid otherwise
	object    *objectPlan  // of a struct decoded member by member; nil otherwise
	container reflect.Kind // Slice, Array or Map decoded element by element; Invalid otherwise
	elem      *fieldPlan   // of the container's elements
	ptr       bool         // the field points at the scalar, struct or container
	skip      bool         // a File field: filled from the envelope's files, not from JSON
}

// objectPlan decodes a JSON object into a struct, member by member.
type objectPlan struct {
	ok     bool // false: use encoding/json (custom unmarshalers, ",string", embedded pointers)
	fields []fieldPlan
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fieldPlan plans the decoding of a value of type t, stored at offset in
// its struct.
func (b *builder) fieldPlan(name string, t reflect.Type, offset uintptr) fieldPlan {
	f := fieldPlan{name: name, offset: offset, typ: t}
	if _, isFile := fileKindOf(t); isFile {
		// The body holds the file's name; fillFiles sets the field.
		f.skip = true
		return f
	}
	if t.Kind() == reflect.Pointer {
		f.ptr, t = true, t.Elem()
	}
	if t.Kind() == reflect.Pointer || implements(t, jsonUnmarshalerType) || implements(t, textUnmarshalerType) {
		return f
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		f.scalar = t.Kind()
	case reflect.Struct:
		f.object = b.objectPlan(t)
	case reflect.Slice:
		// encoding/json reads a []byte from a base64 string.
		if t.Elem().Kind() != reflect.Uint8 {
			f.container, f.elem = reflect.Slice, b.elemPlan(t.Elem())
		}
	case reflect.Array:
		f.container, f.elem = reflect.Array, b.elemPlan(t.Elem())
	case reflect.Map:
		// Other keys are converted by encoding/json's rules.
		if t.Key().Kind() == reflect.String && !implements(t.Key(), textUnmarshalerType) {
			f.container, f.elem = reflect.Map, b.elemPlan(t.Elem())
		}
	}
	return f
}

// elemPlan plans the decoding of the elements of a container, of type t.
// Plans are shared per type, so recursive types (type T []T) end.
func (b *builder) elemPlan(t reflect.Type) *fieldPlan {
	if p, ok := b.elems[t]; ok {
		return p
	}
	p := &fieldPlan{}
	b.elems[t] = p
	*p = b.fieldPlan("", t, 0)
	return p
}

// objectPlan plans the decoding of struct type t. Plans are shared per
// type, so recursive types end.
func (b *builder) objectPlan(t reflect.Type) *objectPlan {
	if p, ok := b.objects[t]; ok {
		return p
	}
	p := &objectPlan{}
	b.objects[t] = p
	fields := jsonFields(t)
	for _, f := range fields {
		if f.viaPointer || f.quoted {
			return p
		}
	}
	for _, f := range fields {
		var offset uintptr
		st := t
		for _, i := range f.index {
			sf := st.Field(i)
			offset += sf.Offset
			st = sf.Type
		}
		p.fields = append(p.fields, b.fieldPlan(f.name, f.typ, offset))
	}
	p.ok = true
	return p
}

// decode writes the JSON value raw into the field of the struct at base.
// Like encoding/json, null leaves a value unchanged and clears a pointer,
// a slice or a map.
func (f *fieldPlan) decode(raw []byte, base unsafe.Pointer) error {
	if f.skip {
		return nil
	}
	p := unsafe.Add(base, f.offset)
	if f.scalar == reflect.Invalid && f.container == reflect.Invalid && (f.object == nil || !f.object.ok) {
		return unmarshal(raw, reflect.NewAt(f.typ, p).Interface())
	}
	first := skipSpace(raw, 0)
	if first == len(raw) {
		return errUnexpectedEnd
	}
	if isNull(raw) {
		switch {
		case f.ptr:
			*(*unsafe.Pointer)(p) = nil
		case f.container == reflect.Slice || f.container == reflect.Map:
			reflect.NewAt(f.typ, p).Elem().SetZero()
		}
		return nil
	}
	target, typ := p, f.typ
	if f.ptr {
		typ = typ.Elem()
		target = reflect.New(typ).UnsafePointer()
	}
	var err error
	switch {
	case (f.object != nil || f.container == reflect.Map) && raw[first] != '{':
		err = typeIssue("object", raw[first:])
	case (f.container == reflect.Slice || f.container == reflect.Array) && raw[first] != '[':
		err = typeIssue("array", raw[first:])
	case f.object != nil:
		err = f.object.decode(raw, target)
	case f.container == reflect.Slice:
		err = f.elem.decodeSlice(raw, typ, target)
	case f.container == reflect.Array:
		err = f.elem.decodeArray(raw, typ, target)
	case f.container == reflect.Map:
		err = f.elem.decodeMap(raw, typ, target)
	default:
		err = setScalar(target, f.scalar, raw)
	}
	if err == nil && f.ptr {
		*(*unsafe.Pointer)(p) = target
	}
	return err
}

// unmarshal decodes raw into v with encoding/json. A value v cannot hold
// is an inputError at the path encoding/json names; broken JSON is not.
func unmarshal(raw []byte, v any) error {
	err := json.Unmarshal(raw, v)
	if _, syntax := err.(*json.SyntaxError); err == nil || syntax {
		return err
	}
	ie := &inputError{path: []any{}, message: strings.TrimPrefix(err.Error(), "json: ")}
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		if te.Field != "" {
			for name := range strings.SplitSeq(te.Field, ".") {
				ie.path = append(ie.path, name)
			}
		}
		ie.message = fmt.Sprintf("%s does not fit a value of type %s", te.Value, te.Type)
	}
	return ie
}

// decodeSlice decodes the JSON array raw into a new slice of type t, which
// it stores at p; f is the plan of its elements.
func (f *fieldPlan) decodeSlice(raw []byte, t reflect.Type, p unsafe.Pointer) error {
	n := 0
	if err := eachElement(raw, func([]byte) error { n++; return nil }); err != nil {
		return err
	}
	s := reflect.MakeSlice(t, n, n)
	if err := f.decodeElements(raw, n, t.Elem().Size(), s.UnsafePointer()); err != nil {
		return err
	}
	reflect.NewAt(t, p).Elem().Set(s)
	return nil
}

// decodeArray decodes the JSON array raw into the array of type t at p:
// missing elements are zero, extra ones dropped, as in encoding/json.
func (f *fieldPlan) decodeArray(raw []byte, t reflect.Type, p unsafe.Pointer) error {
	reflect.NewAt(t, p).Elem().SetZero()
	return f.decodeElements(raw, t.Len(), t.Elem().Size(), p)
}

// decodeElements decodes the first n elements of the JSON array raw into
// the n elements of the given size at data.
func (f *fieldPlan) decodeElements(raw []byte, n int, size uintptr, data unsafe.Pointer) error {
	i := 0
	return eachElement(raw, func(value []byte) error {
		if i >= n {
			return nil
		}
		if err := f.decode(value, unsafe.Add(data, uintptr(i)*size)); err != nil {
			return within(err, i)
		}
		i++
		return nil
	})
}

// decodeMap decodes the JSON object raw into a new map of type t, which
// it stores at p; f is the plan of its values.
func (f *fieldPlan) decodeMap(raw []byte, t reflect.Type, p unsafe.Pointer) error {
	m := reflect.MakeMap(t)
	err := eachMember(raw, func(key string, value []byte) error {
		v := reflect.New(t.Elem())
		if err := f.decode(value, v.UnsafePointer()); err != nil {
			return within(err, key)
		}
		// key may point into the envelope buffer, which the next request
		// reuses.
		k := reflect.New(t.Key()).Elem()
		k.SetString(strings.Clone(key))
		m.SetMapIndex(k, v.Elem())
		return nil
	})
	if err != nil {
		return err
	}
	reflect.NewAt(t, p).Elem().Set(m)
	return nil
}

// decode fills the struct at base from the JSON object raw. Members match
// fields by exact name, else case-insensitively, as in encoding/json;
// unknown members are skipped.
func (o *objectPlan) decode(raw []byte, base unsafe.Pointer) error {
	m := scanMembers(raw)
	for m.next() {
		if f := o.field(m.key); f != nil {
			if err := f.decode(m.value, base); err != nil {
				return within(err, m.key)
			}
		}
	}
	return m.err
}

func (o *objectPlan) field(key string) *fieldPlan {
	for i := range o.fields {
		if o.fields[i].name == key {
			return &o.fields[i]
		}
	}
	for i := range o.fields {
		if strings.EqualFold(o.fields[i].name, key) {
			return &o.fields[i]
		}
	}
	return nil
}

func isNull(raw []byte) bool { return string(raw) == "null" }

// setScalar writes the JSON scalar raw at p, a value of the given kind.
// A value of another JSON type, or a number the kind cannot hold, is an
// inputError.
func setScalar(p unsafe.Pointer, kind reflect.Kind, raw []byte) error {
	switch kind {
	case reflect.String:
		if raw[0] != '"' {
			return typeIssue("string", raw)
		}
		s, err := decodeString(raw)
		if err != nil {
			return err
		}
		*(*string)(p) = s
		return nil
	case reflect.Bool:
		switch string(raw) {
		case "true":
			*(*bool)(p) = true
		case "false":
			*(*bool)(p) = false
		default:
			return typeIssue("boolean", raw)
		}
		return nil
	case reflect.Float32, reflect.Float64:
		if !isNumberStart(raw[0]) {
			return typeIssue("number", raw)
		}
		v, err := strconv.ParseFloat(unsafeString(raw), kindBits(kind))
		if err != nil {
			return floatIssue(raw, kind)
		}
		if kind == reflect.Float32 {
			*(*float32)(p) = float32(v)
		} else {
			*(*float64)(p) = v
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := kindBits(kind)
		v, ok := shortInt(raw)
		if !ok || v < -1<<(bits-1) || v > 1<<(bits-1)-1 {
			var err error
			v, err = strconv.ParseInt(unsafeString(raw), 10, bits)
			if err != nil || !isNumberStart(raw[0]) {
				text, ierr := integerText(raw, kind)
				if ierr != nil {
					return ierr
				}
				v, _ = strconv.ParseInt(text, 10, bits)
			}
		}
		switch kind {
		case reflect.Int:
			*(*int)(p) = int(v)
		case reflect.Int8:
			*(*int8)(p) = int8(v)
		case reflect.Int16:
			*(*int16)(p) = int16(v)
		case reflect.Int32:
			*(*int32)(p) = int32(v)
		default:
			*(*int64)(p) = v
		}
		return nil
	default: // unsigned
		v, err := strconv.ParseUint(unsafeString(raw), 10, kindBits(kind))
		if err != nil {
			text, ierr := integerText(raw, kind)
			if ierr != nil {
				return ierr
			}
			v, _ = strconv.ParseUint(text, 10, kindBits(kind))
		}
		switch kind {
		case reflect.Uint:
			*(*uint)(p) = uint(v)
		case reflect.Uint8:
			*(*uint8)(p) = uint8(v)
		case reflect.Uint16:
			*(*uint16)(p) = uint16(v)
		case reflect.Uint32:
			*(*uint32)(p) = uint32(v)
		case reflect.Uintptr:
			*(*uintptr)(p) = uintptr(v)
		default:
			*(*uint64)(p) = v
		}
		return nil
	}
}

// shortInt parses raw when it is a JSON integer of at most 18 digits,
// which always fits an int64: the form hosts hand guests integer
// parameters in. It reports false for anything else (leading zeros,
// fractions, exponents), which strconv and integerText then read. A
// request's integers take this loop rather than strconv.ParseInt's
// chain of calls, which are dear in WebAssembly.
func shortInt(raw []byte) (int64, bool) {
	digits := raw
	if len(raw) > 0 && raw[0] == '-' {
		digits = raw[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || digits[0] == '0' && len(digits) > 1 {
		return 0, false
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if len(digits) < len(raw) {
		v = -v
	}
	return v, true
}

// integerText reads the JSON number raw for an integer of the given kind,
// when the quick parse failed: an integral number written with a fraction
// or an exponent ("2.0", "2e0") gives its digits ("2"); anything else,
// the issue that keeps it from the field. Hosts hand guests integers in
// canonical form, older ones as the client wrote them.
func integerText(raw []byte, kind reflect.Kind) (string, error) {
	d, ok := parseDecimal(unsafeString(raw))
	if !ok {
		return "", typeIssue("integer", raw)
	}
	if !d.integral() {
		return "", &inputError{path: []any{}, message: "expected integer, received number"}
	}
	if err := rangeIssue(d, kindRange(kind, 0)); err != nil {
		return "", err
	}
	return d.integerText(), nil
}

// floatIssue explains why the JSON number raw does not fit a float of the
// given kind: beyond its largest value, either way.
func floatIssue(raw []byte, kind reflect.Kind) error {
	d, ok := parseDecimal(unsafeString(raw))
	if !ok {
		return typeIssue("number", raw)
	}
	r := kindRange(kind, 0)
	if r == nil { // float64
		r = &numRange{min: "-" + maxFloat64, max: maxFloat64}
	}
	if err := rangeIssue(d, r); err != nil {
		return err
	}
	return &inputError{path: []any{}, message: "must be a number of type " + kind.String()}
}

// rangeIssue returns the issue of a number d outside r, in the host's
// words for minimum and maximum, or nil.
func rangeIssue(d decimal, r *numRange) error {
	lo, _ := parseDecimal(r.min)
	hi, _ := parseDecimal(r.max)
	switch {
	case d.cmp(lo) < 0:
		return &inputError{path: []any{}, message: "must be greater than or equal to " + r.min}
	case d.cmp(hi) > 0:
		return &inputError{path: []any{}, message: "must be less than or equal to " + r.max}
	}
	return nil
}

// typeIssue is the issue of a JSON value of the wrong type, in the host's
// words: "expected integer, received string".
func typeIssue(want string, raw []byte) error {
	got := "number"
	switch raw[0] {
	case '"':
		got = "string"
	case 't', 'f':
		got = "boolean"
	case 'n':
		got = "null"
	case '{':
		got = "object"
	case '[':
		got = "array"
	}
	return &inputError{path: []any{}, message: "expected " + want + ", received " + got}
}

// isNumberStart reports whether c can start a JSON number; strconv also
// accepts "+1", "Inf" and "NaN", which JSON does not.
func isNumberStart(c byte) bool { return c == '-' || '0' <= c && c <= '9' }
