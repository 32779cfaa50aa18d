// Package formdata reads the form bodies a contract may accept:
// application/x-www-form-urlencoded and multipart/form-data (RFC 7578).
// It only decodes; coercion and validation against the contract's schema
// are the host's.
package formdata

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"os"
	"strings"
)

// Limits bound what one multipart body may cost the host. The body's size
// is bounded by its reader (http.MaxBytesReader).
type Limits struct {
	// MaxParts is the largest number of parts accepted.
	MaxParts int
	// MemoryBytes is how much of the file contents stays in memory; the
	// rest goes to temporary files, removed by [Multipart.Close].
	MemoryBytes int64
}

// DefaultLimits are the limits the host uses.
var DefaultLimits = Limits{MaxParts: 1000, MemoryBytes: 1 << 20}

// Field is one part without a file name: a form value.
type Field struct {
	Name        string
	Value       string
	ContentType string // "text/plain" when the part had none
}

// File is one part with a file name.
type File struct {
	Name        string // the form field
	Filename    string
	ContentType string // "application/octet-stream" when the part had none
	Size        int64

	data []byte   // the contents, when in memory
	disk *os.File // the contents, when spilled
	pos  int64    // read position
}

// Read reads the file's contents from where the last Read stopped.
func (f *File) Read(p []byte) (int, error) {
	if f.disk != nil {
		n, err := f.disk.ReadAt(p, f.pos)
		f.pos += int64(n)
		if errors.Is(err, io.EOF) && n > 0 {
			err = nil
		}
		return n, err
	}
	if f.pos >= int64(len(f.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.data[f.pos:])
	f.pos += int64(n)
	return n, nil
}

// Rewind makes the next Read start from the beginning of the file again.
func (f *File) Rewind() { f.pos = 0 }

// Multipart is a decoded multipart/form-data body.
type Multipart struct {
	Fields []Field
	Files  []*File
}

// Close removes the temporary files of the body's spilled files.
func (m *Multipart) Close() error {
	var errs []error
	for _, f := range m.Files {
		if f.disk != nil {
			errs = append(errs, f.disk.Close(), os.Remove(f.disk.Name()))
			f.disk = nil
		}
	}
	return errors.Join(errs...)
}

// ErrStorage marks a failure to keep an uploaded file on the host (the
// temporary directory is full or missing): the host's fault, not the
// client's.
var ErrStorage = errors.New("storing an uploaded file")

// Error is a body that is not what its Content-Type says. Its message is
// meant for the client.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func malformed(format string, args ...any) error { return &Error{msg: fmt.Sprintf(format, args...)} }

// Boundary returns the boundary parameter of a multipart/form-data
// Content-Type.
func Boundary(contentType string) (string, error) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", malformed("the Content-Type %q does not parse: %v", contentType, err)
	}
	b := params["boundary"]
	if b == "" {
		return "", malformed("the Content-Type %q has no boundary parameter (RFC 7578 §4.1)", contentType)
	}
	return b, nil
}

// ReadMultipart decodes a multipart/form-data body. A body that is not
// well-formed gives an *Error; an error of r (such as
// *http.MaxBytesError) is returned as is. On any error nothing needs
// closing.
func ReadMultipart(r io.Reader, boundary string, limits Limits) (*Multipart, error) {
	m := &Multipart{}
	ok := false
	defer func() {
		if !ok {
			_ = m.Close()
		}
	}()
	// The closing delimiter starts a line; the start of the body counts as
	// one.
	src := &sourceReader{r: r, close: []byte("\n--" + boundary + "--"), tail: []byte("\n")}
	mr := multipart.NewReader(src, boundary)
	budget := limits.MemoryBytes
	for parts := 0; ; parts++ {
		p, err := mr.NextRawPart()
		if err == io.EOF && src.sawClose {
			break
		}
		if err == io.EOF {
			// mime/multipart also ends with a bare io.EOF when the body
			// stops inside a part's headers.
			return nil, malformed("the multipart body ends before its closing boundary")
		}
		if err != nil {
			return nil, readError(src, err)
		}
		if parts == limits.MaxParts {
			return nil, malformed("more than %d parts", limits.MaxParts)
		}
		name, filename, isFile, err := disposition(p.Header.Get("Content-Disposition"))
		if err != nil {
			return nil, err
		}
		ct := p.Header.Get("Content-Type")
		if ct != "" {
			mt, _, err := mime.ParseMediaType(ct)
			if err != nil {
				return nil, malformed("part %q: the Content-Type %q does not parse: %v", name, ct, err)
			}
			ct = mt
		}
		if !isFile {
			var v bytes.Buffer
			if _, err := v.ReadFrom(p); err != nil {
				return nil, readError(src, err)
			}
			if ct == "" {
				ct = "text/plain"
			}
			m.Fields = append(m.Fields, Field{Name: name, Value: v.String(), ContentType: ct})
			continue
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		f := &File{Name: name, Filename: filename, ContentType: ct}
		m.Files = append(m.Files, f)
		if err := f.fill(p, &budget); errors.Is(err, ErrStorage) {
			return nil, err
		} else if err != nil {
			return nil, readError(src, err)
		}
		if f.Filename == "" && f.Size == 0 {
			// A browser sends an empty file part for a file input left
			// empty: the field is absent.
			m.Files = m.Files[:len(m.Files)-1]
		}
	}
	ok = true
	return m, nil
}

// fill reads a file part, in memory while budget lasts, then on disk.
func (f *File) fill(p io.Reader, budget *int64) error {
	var mem bytes.Buffer
	n, err := mem.ReadFrom(io.LimitReader(p, *budget+1))
	if err != nil {
		return err
	}
	if n <= *budget {
		*budget -= n
		f.data, f.Size = mem.Bytes(), n
		return nil
	}
	*budget = 0
	tmp, err := os.CreateTemp("", "endpoints-upload-*")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	f.disk = tmp
	if _, err := tmp.Write(mem.Bytes()); err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	rest, err := io.Copy(onlyWrites{tmp}, p)
	f.Size = n + rest
	var we writeError
	if errors.As(err, &we) {
		return fmt.Errorf("%w: %w", ErrStorage, we.err)
	}
	return err
}

// onlyWrites tells the errors of writing the temporary file from those of
// reading the part, which io.Copy returns alike.
type onlyWrites struct{ f *os.File }

func (o onlyWrites) Write(p []byte) (int, error) {
	n, err := o.f.Write(p)
	if err != nil {
		return n, writeError{err}
	}
	return n, nil
}

type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }

// disposition reads a part's Content-Disposition: form-data with a name
// (RFC 7578 §4.2). A filename parameter, even empty, makes the part a
// file.
func disposition(header string) (name, filename string, isFile bool, err error) {
	if header == "" {
		return "", "", false, malformed("a part has no Content-Disposition header; each part needs Content-Disposition: form-data; name=\"...\" (RFC 7578 §4.2)")
	}
	d, params, err := mime.ParseMediaType(header)
	if err != nil {
		return "", "", false, malformed("a part's Content-Disposition %q does not parse: %v", header, err)
	}
	if d != "form-data" {
		return "", "", false, malformed("a part's Content-Disposition is %q; want form-data (RFC 7578 §4.2)", d)
	}
	name, ok := params["name"]
	if !ok || name == "" {
		return "", "", false, malformed("a part's Content-Disposition has no name parameter (RFC 7578 §4.2)")
	}
	filename, isFile = params["filename"]
	return name, filename, isFile, nil
}

// sourceReader remembers the first error of the body's own reader, so a
// size limit or a client gone is not reported as malformed syntax, and
// whether the closing delimiter went by: mime/multipart ends with the same
// io.EOF for a complete body and for one cut inside a part's headers.
type sourceReader struct {
	r        io.Reader
	err      error
	close    []byte // "\n--boundary--"
	tail     []byte // the last len(close) bytes read, for a match across reads
	sawClose bool
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && s.err == nil {
		s.err = err
	}
	if n > 0 && !s.sawClose {
		window := append(s.tail, p[:n]...)
		s.sawClose = bytes.Contains(window, s.close)
		keep := min(len(window), len(s.close))
		s.tail = append(s.tail[:0], window[len(window)-keep:]...)
	}
	return n, err
}

// readError keeps an error of the body's reader and phrases any other as a
// malformed body.
func readError(src *sourceReader, err error) error {
	var fe *Error
	switch {
	case src.err != nil:
		return src.err
	case errors.As(err, &fe):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return malformed("the multipart body ends before its closing boundary")
	}
	return malformed("the multipart body is malformed: %s", strings.TrimPrefix(err.Error(), "multipart: "))
}

// ParseForm decodes an application/x-www-form-urlencoded body into its
// fields in order. A bad escape or a ';' separator gives an *Error naming
// it.
func ParseForm(body []byte) (url.Values, error) {
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, malformed("the form body is malformed: %v", err)
	}
	return v, nil
}
