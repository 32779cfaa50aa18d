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
// booleans), structs made of them and pointers to both are decoded with
// the scanner of jsonscan.go and written in place; any other type (slices,
// maps, interfaces, types with their own UnmarshalJSON or UnmarshalText)
// goes through encoding/json, for that value only. The result is what
// encoding/json.Unmarshal gives, at a fraction of its cost in WebAssembly.

// fieldPlan decodes one JSON value into one field of a struct.
type fieldPlan struct {
	name   string       // JSON name
	offset uintptr      // of the field in its struct
	typ    reflect.Type // of the field
	scalar reflect.Kind // of a scalar written in place; Invalid otherwise
	object *objectPlan  // of a struct decoded member by member; nil otherwise
	ptr    bool         // the field points at the scalar or struct
	skip   bool         // a File field: filled from the envelope's files, not from JSON
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
	}
	return f
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
// Like encoding/json, null leaves a value unchanged and clears a pointer.
func (f *fieldPlan) decode(raw []byte, base unsafe.Pointer) error {
	if f.skip {
		return nil
	}
	p := unsafe.Add(base, f.offset)
	if f.scalar == reflect.Invalid && (f.object == nil || !f.object.ok) {
		return json.Unmarshal(raw, reflect.NewAt(f.typ, p).Interface())
	}
	if isNull(raw) {
		if f.ptr {
			*(*unsafe.Pointer)(p) = nil
		}
		return nil
	}
	target := p
	if f.ptr {
		target = reflect.New(f.typ.Elem()).UnsafePointer()
	}
	var err error
	if f.object != nil {
		err = f.object.decode(raw, target)
	} else {
		err = setScalar(target, f.scalar, raw)
	}
	if err == nil && f.ptr {
		*(*unsafe.Pointer)(p) = target
	}
	return err
}

// decode fills the struct at base from the JSON object raw. Members match
// fields by exact name, else case-insensitively, as in encoding/json;
// unknown members are skipped.
func (o *objectPlan) decode(raw []byte, base unsafe.Pointer) error {
	return eachMember(raw, func(key string, value []byte) error {
		f := o.field(key)
		if f == nil {
			return nil
		}
		if err := f.decode(value, base); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	})
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
func setScalar(p unsafe.Pointer, kind reflect.Kind, raw []byte) error {
	switch kind {
	case reflect.String:
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
			return fmt.Errorf("got %.20s, want a boolean", raw)
		}
		return nil
	case reflect.Float32, reflect.Float64:
		bits := 64
		if kind == reflect.Float32 {
			bits = 32
		}
		v, err := strconv.ParseFloat(unsafeString(raw), bits)
		if err != nil || !isNumberStart(raw[0]) {
			return fmt.Errorf("got %.20s, want a number", raw)
		}
		if kind == reflect.Float32 {
			*(*float32)(p) = float32(v)
		} else {
			*(*float64)(p) = v
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v, err := strconv.ParseInt(unsafeString(raw), 10, intBits(kind))
		if err != nil || !isNumberStart(raw[0]) {
			return fmt.Errorf("got %.20s, want an integer that fits a %s", raw, kind)
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
		v, err := strconv.ParseUint(unsafeString(raw), 10, intBits(kind))
		if err != nil {
			return fmt.Errorf("got %.20s, want an integer that fits a %s", raw, kind)
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

// isNumberStart reports whether c can start a JSON number; strconv also
// accepts "+1", "Inf" and "NaN", which JSON does not.
func isNumberStart(c byte) bool { return c == '-' || '0' <= c && c <= '9' }

// intBits is the size of an integer kind in bits.
func intBits(kind reflect.Kind) int {
	switch kind {
	case reflect.Int8, reflect.Uint8:
		return 8
	case reflect.Int16, reflect.Uint16:
		return 16
	case reflect.Int32, reflect.Uint32:
		return 32
	case reflect.Int64, reflect.Uint64:
		return 64
	}
	return strconv.IntSize
}
