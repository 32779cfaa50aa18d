package endpoints

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/mediatype"
)

// File is one uploaded file of a multipart/form-data request body. Declare
// it as a field of the input's Body struct, of type File, *File (an
// optional file) or []File (a field sent several times), and list
// multipart/form-data in the Body's content tag:
//
//	type upload struct {
//		Body struct {
//			Title  string          `json:"title" minLength:"1"`
//			Avatar endpoints.File  `json:"avatar" accept:"image/png,image/jpeg"`
//			Extras []endpoints.File `json:"extras,omitempty" maxItems:"5"`
//		} `content:"multipart/form-data" maxBytes:"5242880"`
//	}
//
// The field's schema is {"type": "string", "contentMediaType": ...}, the
// OpenAPI 3.1 way to describe a file part: the host validates the file's
// presence (the form field holds its file name) and, with an accept tag,
// its media type. Read the bytes with Read, straight from the host:
//
//	data, err := io.ReadAll(in.Body.Avatar)
//
// # Notes
//
//   - The accept tag lists the media types the part may have, ranges
//     allowed ("image/*"); the contract declares them as the multipart
//     media type's "encoding" and the host answers 400 for a part of
//     another type. Its first type, unless a range, is the schema's
//     contentMediaType; without accept it is application/octet-stream.
//   - Each file can be read once, in any order; reading it again gives
//     io.EOF. Its bytes are not in memory until read, so a large upload
//     can be streamed elsewhere with io.Copy.
//   - Filename is what the client sent: never use it as a path.
//   - A zero File (none was sent, or outside a request) reads nothing:
//     Read returns an error. A File field in a struct whose content tag
//     lacks multipart/form-data, or anywhere but a Body struct, panics at
//     registration. When the Body also lists another media type, a
//     client of that type sends no file: make the field a *File, or list
//     multipart/form-data alone.
type File struct {
	// Name is the form field the file was sent as.
	Name string
	// Filename is the file name the client gave, as sent (untrusted).
	Filename string
	// ContentType is the part's media type; application/octet-stream
	// when the client sent none.
	ContentType string
	// Size is the file's length in bytes.
	Size int64

	index int32 // position in the envelope's files list plus one; 0 for none
}

// errNoFile is the error of Read on a zero File.
var errNoFile = errors.New("endpoints: File.Read: no file: the request sent none for this field, or the File was not filled by the SDK")

// Read reads the next bytes of the file from the host into p and returns
// how many it read; io.EOF at the end of the file. It returns an error
// wrapping an [abi.Errno] when the host refuses ([abi.ErrIO] when the
// client went away).
func (f File) Read(p []byte) (int, error) {
	if f.index == 0 {
		return 0, errNoFile
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := fileRead(f.index-1, p)
	if err := check(abi.ImportFileRead, n); err != nil {
		return 0, fmt.Errorf("endpoints: reading file %q of field %q: %w", f.Filename, f.Name, err)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return int(n), nil
}

// fileKind says how a Body struct field holds files.
type fileKind uint8

const (
	fileOne     fileKind = iota + 1 // File
	filePointer                     // *File: nil when none was sent
	fileSlice                       // []File: every file sent with the field's name
)

var (
	fileType        = reflect.TypeFor[File]()
	filePointerType = reflect.TypeFor[*File]()
	fileSliceType   = reflect.TypeFor[[]File]()
)

// errFileField is the schema error of a File met anywhere but as a field
// of a multipart body struct.
var errFileField = errors.New("endpoints.File is only for the fields of a Body struct whose content tag lists multipart/form-data, typed File, *File or []File")

// fileKindOf reports whether fields of type t hold files, and how.
func fileKindOf(t reflect.Type) (fileKind, bool) {
	switch t {
	case fileType:
		return fileOne, true
	case filePointerType:
		return filePointer, true
	case fileSliceType:
		return fileSlice, true
	}
	return 0, false
}

// defaultFileType is the contentMediaType of a file field without a
// concrete accepted type.
const defaultFileType = "application/octet-stream"

// fileSchema is the schema of a File, *File or []File field with the
// given tags: a string with a contentMediaType, or an array of them.
func fileSchema(t reflect.Type, tag reflect.StructTag) (*schema, error) {
	types, err := acceptTypes(tag)
	if err != nil {
		return nil, err
	}
	item := &schema{Type: "string", ContentMediaType: defaultFileType}
	if len(types) > 0 {
		if _, wildcard, _ := mediatype.Parse(types[0]); !wildcard {
			item.ContentMediaType = types[0]
		}
	}
	if kind, _ := fileKindOf(t); kind == fileSlice {
		return &schema{Type: "array", Items: item}, nil
	}
	return item, nil
}

// acceptTypes returns the media types of a File field's accept tag, nil
// without one.
func acceptTypes(tag reflect.StructTag) ([]string, error) {
	value, ok := tag.Lookup("accept")
	if !ok {
		return nil, nil
	}
	var types []string
	seen := map[string]string{}
	for t := range strings.SplitSeq(value, ",") {
		t = strings.TrimSpace(t)
		canon, _, err := mediatype.Parse(t)
		if err != nil {
			return nil, tagError("accept", value, "%q is not a media type: %v", t, err)
		}
		if first, dup := seen[canon]; dup {
			return nil, tagError("accept", value, "%q is the same media type as %q", t, first)
		}
		seen[canon] = t
		types = append(types, t)
	}
	return types, nil
}

// fileField is a File, *File or []File field of a multipart body struct.
type fileField struct {
	name   string // the form field: the JSON name
	offset uintptr
	kind   fileKind
}

// File members of the envelope's files list, from the json tags of
// abi.File.
var (
	keyFileName        = jsonKey[abi.File]("Name")
	keyFileFilename    = jsonKey[abi.File]("Filename")
	keyFileContentType = jsonKey[abi.File]("ContentType")
	keyFileSize        = jsonKey[abi.File]("Size")
)

// fillFiles sets the File fields of the body struct at body from the
// envelope's files list: a File or *File field gets the first file sent
// with its name, a []File field every one, in the order received.
func fillFiles(fields []fileField, list []byte, body unsafe.Pointer) error {
	var index int32
	return eachElement(list, func(raw []byte) error {
		index++
		f := File{index: index}
		err := eachMember(raw, func(key string, value []byte) error {
			var err error
			switch key {
			case keyFileName:
				f.Name, err = decodeString(value)
			case keyFileFilename:
				f.Filename, err = decodeString(value)
			case keyFileContentType:
				f.ContentType, err = decodeString(value)
			case keyFileSize:
				f.Size, err = strconv.ParseInt(unsafeString(value), 10, 64)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", keyFiles, index-1, err)
		}
		for _, ff := range fields {
			if ff.name != f.Name {
				continue
			}
			p := unsafe.Add(body, ff.offset)
			switch ff.kind {
			case fileOne:
				if fp := (*File)(p); fp.index == 0 {
					*fp = f
				}
			case filePointer:
				if pp := (**File)(p); *pp == nil {
					*pp = &f
				}
			case fileSlice:
				sp := (*[]File)(p)
				*sp = append(*sp, f)
			}
			break
		}
		return nil
	})
}
