package formdata_test

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/wasmendpoints/endpoints/internal/formdata"
)

// parseFormCases are the table of TestParseForm and the seeds of
// FuzzParseForm.
var parseFormCases = []struct {
	name    string
	body    string
	want    url.Values
	wantErr string // the *formdata.Error message; empty when the body is valid
}{
	{name: "fields in order", body: "name=pen&qty=2", want: url.Values{"name": {"pen"}, "qty": {"2"}}},
	{name: "percent escapes are decoded", body: "name=pen%20case%2Fblue&%C3%A9=%E2%82%AC", want: url.Values{"name": {"pen case/blue"}, "é": {"€"}}},
	{name: "plus is a space", body: "q=a+b+%2B", want: url.Values{"q": {"a b +"}}},
	{name: "repeated keys keep every value in order", body: "tag=a&tag=b&tag=a", want: url.Values{"tag": {"a", "b", "a"}}},
	{name: "a key without = has an empty value", body: "flag&x=", want: url.Values{"flag": {""}, "x": {""}}},
	{name: "empty pairs are skipped", body: "a=1&&b=2&", want: url.Values{"a": {"1"}, "b": {"2"}}},
	{name: "an empty body has no fields", body: "", want: url.Values{}},
	{name: "a bad escape is named", body: "name=%zz", wantErr: `the form body is malformed: invalid URL escape "%zz"`},
	{name: "a truncated escape is named", body: "a=1&b=%4", wantErr: `the form body is malformed: invalid URL escape "%4"`},
	{name: "a bad escape in a key is named", body: "n%g=1", wantErr: `the form body is malformed: invalid URL escape "%g"`},
	{name: "a semicolon separator is refused", body: "a=1;b=2", wantErr: "the form body is malformed: invalid semicolon separator in query"},
}

func TestParseForm(t *testing.T) {
	for _, tt := range parseFormCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := formdata.ParseForm([]byte(tt.body))
			if tt.wantErr != "" {
				var fe *formdata.Error
				if !errors.As(err, &fe) {
					t.Fatalf("ParseForm(%q) error = %v (%T), want *formdata.Error %q", tt.body, err, err, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("ParseForm(%q) error = %q, want %q", tt.body, err, tt.wantErr)
				}
				if got != nil {
					t.Errorf("ParseForm(%q) = %v with an error, want nil", tt.body, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseForm(%q) error = %v, want none", tt.body, err)
			}
			if !maps.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("ParseForm(%q) = %v, want %v", tt.body, got, tt.want)
			}
		})
	}
}

func TestBoundary(t *testing.T) {
	tests := []struct {
		name, contentType string
		want              string
		wantErr           string
	}{
		{name: "a token", contentType: "multipart/form-data; boundary=b0undary", want: "b0undary"},
		{name: "a quoted boundary with a space", contentType: `multipart/form-data; boundary="a b'c"`, want: "a b'c"},
		{name: "the parameter name is case-insensitive", contentType: "Multipart/Form-Data; BOUNDARY=XyZ", want: "XyZ"},
		{name: "a browser's boundary", contentType: "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW", want: "----WebKitFormBoundary7MA4YWxkTrZu0gW"},
		{name: "no boundary parameter", contentType: "multipart/form-data",
			wantErr: `the Content-Type "multipart/form-data" has no boundary parameter (RFC 7578 §4.1)`},
		{name: "an empty boundary", contentType: `multipart/form-data; boundary=""`,
			wantErr: `the Content-Type "multipart/form-data; boundary=\"\"" has no boundary parameter (RFC 7578 §4.1)`},
		{name: "a boundary parameter without a value", contentType: "multipart/form-data; boundary",
			wantErr: `the Content-Type "multipart/form-data; boundary" does not parse: mime: invalid media parameter`},
		{name: "an empty Content-Type", contentType: "",
			wantErr: `the Content-Type "" does not parse: mime: no media type`},
		{name: "a duplicate boundary", contentType: "multipart/form-data; boundary=a; boundary=b",
			wantErr: `the Content-Type "multipart/form-data; boundary=a; boundary=b" does not parse: mime: duplicate parameter name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := formdata.Boundary(tt.contentType)
			if tt.wantErr != "" {
				var fe *formdata.Error
				if !errors.As(err, &fe) || err.Error() != tt.wantErr {
					t.Errorf("Boundary(%q) error = %v (%T), want *formdata.Error %q", tt.contentType, err, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Boundary(%q) = %q, %v; want %q, nil", tt.contentType, got, err, tt.want)
			}
		})
	}
}

// crlf joins the lines of a multipart body with CRLF.
func crlf(lines ...string) string { return strings.Join(lines, "\r\n") }

// wantFile is a decoded file with its contents.
type wantFile struct{ Name, Filename, ContentType, Content string }

// contents reads every file of m whole and checks that it holds Size bytes.
func contents(t *testing.T, m *formdata.Multipart) []wantFile {
	t.Helper()
	var out []wantFile
	for _, f := range m.Files {
		b, err := io.ReadAll(f)
		if err != nil {
			t.Fatalf("reading file %q: %v", f.Filename, err)
		}
		if int64(len(b)) != f.Size {
			t.Errorf("file %q: read %d bytes, Size says %d", f.Filename, len(b), f.Size)
		}
		out = append(out, wantFile{f.Name, f.Filename, f.ContentType, string(b)})
	}
	return out
}

const png = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\r\n--b0undar"

// multipartCases are the table of TestReadMultipart and the seeds of
// FuzzReadMultipart. The boundary is "b0undary" and the limits are
// formdata.DefaultLimits unless a case says otherwise.
var multipartCases = []struct {
	name       string
	body       string
	limits     formdata.Limits
	wantFields []formdata.Field
	wantFiles  []wantFile
	wantErr    string // the *formdata.Error message; empty when the body is valid
}{
	{
		name:       "a field without Content-Type is text/plain",
		body:       crlf("--b0undary", `Content-Disposition: form-data; name="name"`, "", "Ada Lovelace", "--b0undary--", ""),
		wantFields: []formdata.Field{{Name: "name", Value: "Ada Lovelace", ContentType: "text/plain"}},
	},
	{
		name:       "a field's Content-Type loses its parameters and case",
		body:       crlf("--b0undary", `Content-Disposition: form-data; name="meta"`, "Content-Type: Application/JSON; charset=utf-8", "", `{"a":1}`, "--b0undary--", ""),
		wantFields: []formdata.Field{{Name: "meta", Value: `{"a":1}`, ContentType: "application/json"}},
	},
	{
		name:       "a multi-line field value keeps its line breaks",
		body:       crlf("--b0undary", `Content-Disposition: form-data; name="note"`, "", "line 1", "line 2", "", "--b0undary--", ""),
		wantFields: []formdata.Field{{Name: "note", Value: "line 1\r\nline 2\r\n", ContentType: "text/plain"}},
	},
	{
		name:      "a file without Content-Type is application/octet-stream",
		body:      crlf("--b0undary", `Content-Disposition: form-data; name="doc"; filename="notes.bin"`, "", "\x00\x01\x02", "--b0undary--", ""),
		wantFiles: []wantFile{{"doc", "notes.bin", "application/octet-stream", "\x00\x01\x02"}},
	},
	{
		name:      "a file keeps its Content-Type and binary contents",
		body:      crlf("--b0undary", `Content-Disposition: form-data; name="photo"; filename="me.png"`, "Content-Type: image/png", "", png, "--b0undary--", ""),
		wantFiles: []wantFile{{"photo", "me.png", "image/png", png}},
	},
	{
		name: "a file input left empty is dropped",
		body: crlf("--b0undary", `Content-Disposition: form-data; name="name"`, "", "Ada",
			"--b0undary", `Content-Disposition: form-data; name="photo"; filename=""`, "Content-Type: application/octet-stream", "", "",
			"--b0undary--", ""),
		wantFields: []formdata.Field{{Name: "name", Value: "Ada", ContentType: "text/plain"}},
	},
	{
		name:      "an empty filename with contents is kept",
		body:      crlf("--b0undary", `Content-Disposition: form-data; name="blob"; filename=""`, "", "data", "--b0undary--", ""),
		wantFiles: []wantFile{{"blob", "", "application/octet-stream", "data"}},
	},
	{
		name:      "a named file with no contents is kept",
		body:      crlf("--b0undary", `Content-Disposition: form-data; name="doc"; filename="empty.txt"`, "Content-Type: text/plain", "", "", "--b0undary--", ""),
		wantFiles: []wantFile{{"doc", "empty.txt", "text/plain", ""}},
	},
	{
		name: "repeated names keep their order",
		body: crlf("--b0undary", `Content-Disposition: form-data; name="tag"`, "", "a",
			"--b0undary", `Content-Disposition: form-data; name="f"; filename="1.txt"`, "", "one",
			"--b0undary", `Content-Disposition: form-data; name="tag"`, "", "b",
			"--b0undary", `Content-Disposition: form-data; name="f"; filename="2.txt"`, "", "two",
			"--b0undary--", ""),
		wantFields: []formdata.Field{{Name: "tag", Value: "a", ContentType: "text/plain"}, {Name: "tag", Value: "b", ContentType: "text/plain"}},
		wantFiles:  []wantFile{{"f", "1.txt", "application/octet-stream", "one"}, {"f", "2.txt", "application/octet-stream", "two"}},
	},
	{
		name:       "an unquoted name and a case-insensitive disposition",
		body:       crlf("--b0undary", `content-disposition: Form-Data; name=qty`, "", "2", "--b0undary--", ""),
		wantFields: []formdata.Field{{Name: "qty", Value: "2", ContentType: "text/plain"}},
	},
	{
		name: "a preamble and an epilogue are ignored",
		body: crlf("This is a preamble.", "It spans lines.", "--b0undary", `Content-Disposition: form-data; name="a"`, "", "1",
			"--b0undary--", "This is an epilogue.", ""),
		wantFields: []formdata.Field{{Name: "a", Value: "1", ContentType: "text/plain"}},
	},
	{
		name:       "LF line endings are accepted",
		body:       "--b0undary\nContent-Disposition: form-data; name=\"a\"\n\n1\n--b0undary\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\n\nx\n--b0undary--\n",
		wantFields: []formdata.Field{{Name: "a", Value: "1", ContentType: "text/plain"}},
		wantFiles:  []wantFile{{"f", "x.txt", "application/octet-stream", "x"}},
	},
	{
		name:       "a closing boundary without a final CRLF",
		body:       crlf("--b0undary", `Content-Disposition: form-data; name="a"`, "", "1", "--b0undary--"),
		wantFields: []formdata.Field{{Name: "a", Value: "1", ContentType: "text/plain"}},
	},
	{
		name: "an empty form is only the closing boundary",
		body: crlf("--b0undary--", ""),
	},
	{
		name:   "MaxParts parts are accepted",
		limits: formdata.Limits{MaxParts: 2, MemoryBytes: 1 << 10},
		body: crlf("--b0undary", `Content-Disposition: form-data; name="a"`, "", "1",
			"--b0undary", `Content-Disposition: form-data; name="b"`, "", "2", "--b0undary--", ""),
		wantFields: []formdata.Field{{Name: "a", Value: "1", ContentType: "text/plain"}, {Name: "b", Value: "2", ContentType: "text/plain"}},
	},
	{
		name:   "one part more than MaxParts is refused",
		limits: formdata.Limits{MaxParts: 2, MemoryBytes: 1 << 10},
		body: crlf("--b0undary", `Content-Disposition: form-data; name="a"`, "", "1",
			"--b0undary", `Content-Disposition: form-data; name="b"`, "", "2",
			"--b0undary", `Content-Disposition: form-data; name="c"`, "", "3", "--b0undary--", ""),
		wantErr: "more than 2 parts",
	},
	{
		name:   "an empty file input counts against MaxParts",
		limits: formdata.Limits{MaxParts: 1, MemoryBytes: 1 << 10},
		body: crlf("--b0undary", `Content-Disposition: form-data; name="f"; filename=""`, "", "",
			"--b0undary", `Content-Disposition: form-data; name="a"`, "", "1", "--b0undary--", ""),
		wantErr: "more than 1 parts",
	},
	{
		name:    "a part without Content-Disposition",
		body:    crlf("--b0undary", "Content-Type: text/plain", "", "1", "--b0undary--", ""),
		wantErr: `a part has no Content-Disposition header; each part needs Content-Disposition: form-data; name="..." (RFC 7578 §4.2)`,
	},
	{
		name:    "a part with no headers at all",
		body:    crlf("--b0undary", "", "1", "--b0undary--", ""),
		wantErr: `a part has no Content-Disposition header; each part needs Content-Disposition: form-data; name="..." (RFC 7578 §4.2)`,
	},
	{
		name:    "a Content-Disposition other than form-data",
		body:    crlf("--b0undary", `Content-Disposition: attachment; name="a"`, "", "1", "--b0undary--", ""),
		wantErr: `a part's Content-Disposition is "attachment"; want form-data (RFC 7578 §4.2)`,
	},
	{
		name:    "a Content-Disposition that does not parse",
		body:    crlf("--b0undary", `Content-Disposition: form-data; name`, "", "1", "--b0undary--", ""),
		wantErr: `a part's Content-Disposition "form-data; name" does not parse: mime: invalid media parameter`,
	},
	{
		name:    "a part without a name",
		body:    crlf("--b0undary", `Content-Disposition: form-data; filename="a.txt"`, "", "1", "--b0undary--", ""),
		wantErr: "a part's Content-Disposition has no name parameter (RFC 7578 §4.2)",
	},
	{
		name:    "a part with an empty name",
		body:    crlf("--b0undary", `Content-Disposition: form-data; name=""`, "", "1", "--b0undary--", ""),
		wantErr: "a part's Content-Disposition has no name parameter (RFC 7578 §4.2)",
	},
	{
		name:    "a part Content-Type that does not parse",
		body:    crlf("--b0undary", `Content-Disposition: form-data; name="a"`, "Content-Type: text/", "", "1", "--b0undary--", ""),
		wantErr: `part "a": the Content-Type "text/" does not parse: mime: expected token after slash`,
	},
	{
		name:    "a part header without a colon",
		body:    crlf("--b0undary", "bad header", "", "1", "--b0undary--", ""),
		wantErr: `the multipart body is malformed: malformed MIME header: missing colon: "bad header"`,
	},
	{
		// Regression (a bug once): mime/multipart's NextRawPart returns a bare io.EOF when
		// the body ends inside a part's header block (the EOF of
		// textproto.ReadMIMEHeader), which ReadMultipart takes for the
		// end of the form: the cut part is silently dropped.
		name:    "a body cut short in a part's headers",
		body:    crlf("--b0undary", `Content-Disposition: form-da`),
		wantErr: "the multipart body ends before its closing boundary",
	},
	{
		name:    "a body cut short in a field",
		body:    crlf("--b0undary", `Content-Disposition: form-data; name="name"`, "", "Ada"),
		wantErr: "the multipart body ends before its closing boundary",
	},
	{
		name:    "a body cut short in a file",
		body:    crlf("--b0undary", `Content-Disposition: form-data; name="f"; filename="a.bin"`, "", "abc"),
		wantErr: "the multipart body ends before its closing boundary",
	},
	{
		name:    "no closing boundary after the last part",
		body:    crlf("--b0undary", `Content-Disposition: form-data; name="name"`, "", "Ada", ""),
		wantErr: "the multipart body ends before its closing boundary",
	},
	{
		// Regression (a bug once): ReadMultipart treats the "multipart: NextPart: EOF" that
		// mime/multipart wraps around io.EOF like the bare io.EOF it
		// gives after a closing boundary (errors.Is instead of ==), so
		// it returns the part and no error.
		name:    "a last part closed by a delimiter that is not the closing one",
		body:    crlf("--b0undary", `Content-Disposition: form-data; name="name"`, "", "Ada", "--b0undary"),
		wantErr: "the multipart body ends before its closing boundary",
	},
	{
		// Regression (a bug once): same cause; an opening delimiter and nothing else is an
		// empty form instead of an error.
		name:    "an opening boundary and nothing else",
		body:    crlf("--b0undary", ""),
		wantErr: "the multipart body ends before its closing boundary",
	},
	{
		// Regression (a bug once): same cause; a body without any boundary line is an empty
		// form instead of an error.
		name:    "a body without any boundary",
		body:    crlf("name=Ada&qty=2", ""),
		wantErr: "the multipart body ends before its closing boundary",
	},
	{
		// Regression (a bug once): same cause; RFC 2046 §5.1.1 requires at least the closing
		// delimiter, and mime/multipart's own ReadForm refuses an empty
		// body, but ReadMultipart returns an empty form.
		name:    "an empty body",
		body:    "",
		wantErr: "the multipart body ends before its closing boundary",
	},
}

func TestReadMultipart(t *testing.T) {
	for _, tt := range multipartCases {
		t.Run(tt.name, func(t *testing.T) {
			limits := tt.limits
			if limits == (formdata.Limits{}) {
				limits = formdata.DefaultLimits
			}
			m, err := formdata.ReadMultipart(strings.NewReader(tt.body), "b0undary", limits)
			if tt.wantErr != "" {
				var fe *formdata.Error
				if !errors.As(err, &fe) {
					if err == nil {
						t.Fatalf("no error, fields %+v, %d files; want *formdata.Error %q", m.Fields, len(m.Files), tt.wantErr)
					}
					t.Fatalf("error = %v (%T), want *formdata.Error %q", err, err, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("error = %q\nwant    %q", err, tt.wantErr)
				}
				if m != nil {
					t.Errorf("got a *Multipart with the error, want nil")
				}
				return
			}
			if err != nil {
				t.Fatalf("error = %v, want none", err)
			}
			defer m.Close()
			if !slices.Equal(m.Fields, tt.wantFields) {
				t.Errorf("fields = %+v\nwant     %+v", m.Fields, tt.wantFields)
			}
			if got := contents(t, m); !slices.Equal(got, tt.wantFiles) {
				t.Errorf("files = %+v\nwant    %+v", got, tt.wantFiles)
			}
		})
	}
}

// validBody is a body with a field and a file, ending in its closing
// boundary and nothing after it.
var validBody = crlf("--b0undary", `Content-Disposition: form-data; name="name"`, "", "Ada",
	"--b0undary", `Content-Disposition: form-data; name="photo"; filename="me.png"`, "Content-Type: image/png", "", png,
	"--b0undary--", "")

// TestReadMultipartEveryCutIsMalformed: a body that ends (cleanly) anywhere
// before its closing boundary is a *formdata.Error, never a shorter form.
//
// Regression (a bug once): fails for 99 of the 209 cuts: those at or before the first
// delimiter line, those inside a part's header block once a header name
// and its colon are read, and those right after a delimiter line (e.g.
// "", "--b0undary\r\nContent-Disposition:", and validBody cut after its
// last "--b0undary"): see the BUG cases of TestReadMultipart.
func TestReadMultipartEveryCutIsMalformed(t *testing.T) {
	end := strings.LastIndex(validBody, "--b0undary--") + len("--b0undary--")
	var accepted []string
	for n := range end {
		m, err := formdata.ReadMultipart(strings.NewReader(validBody[:n]), "b0undary", formdata.DefaultLimits)
		var fe *formdata.Error
		switch {
		case err == nil:
			accepted = append(accepted, validBody[:n])
			m.Close()
		case !errors.As(err, &fe):
			t.Errorf("cut at %d: error %v (%T), want *formdata.Error", n, err, err)
		}
	}
	if len(accepted) > 0 {
		t.Errorf("%d of %d cuts before the closing boundary were accepted as forms, want none; shortest and longest:\n%q\n%q",
			len(accepted), end, accepted[0], accepted[len(accepted)-1])
	}
}

// TestReadMultipartReaderErrors: an error of the body's reader comes back
// as is, wherever in the body it happens.
func TestReadMultipartReaderErrors(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	limits := formdata.Limits{MaxParts: 10, MemoryBytes: 8} // the file spills
	t.Run("http.MaxBytesReader", func(t *testing.T) {
		for _, limit := range []int64{0, 1, 20, 60, 100, int64(len(validBody)) - 1} {
			r := http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(strings.NewReader(validBody)), limit)
			m, err := formdata.ReadMultipart(r, "b0undary", limits)
			mbe, ok := err.(*http.MaxBytesError)
			if !ok {
				t.Errorf("limit %d: error = %v (%T), want the *http.MaxBytesError itself", limit, err, err)
				continue
			}
			if mbe.Limit != limit || m != nil {
				t.Errorf("limit %d: MaxBytesError.Limit = %d, multipart %v; want %d, nil", limit, mbe.Limit, m, limit)
			}
		}
		r := http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(strings.NewReader(validBody)), int64(len(validBody)))
		m, err := formdata.ReadMultipart(r, "b0undary", limits)
		if err != nil {
			t.Fatalf("a body of exactly the limit: error %v, want none", err)
		}
		m.Close()
	})
	t.Run("an error at every offset", func(t *testing.T) {
		errGone := errors.New("connection reset by peer")
		for n := range len(validBody) {
			r := io.MultiReader(strings.NewReader(validBody[:n]), iotest.ErrReader(errGone))
			if _, err := formdata.ReadMultipart(r, "b0undary", limits); err != errGone {
				t.Errorf("reader failing after %d bytes: error = %v (%T), want %v as is", n, err, err, errGone)
			}
		}
	})
	if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) > 0 {
		t.Errorf("temporary files left after failed reads: %v", left)
	}
}

// tempFiles lists the files in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// filesBody is a multipart body of one file per content.
func filesBody(contents ...string) string {
	var lines []string
	for i, c := range contents {
		lines = append(lines, "--b0undary", `Content-Disposition: form-data; name="f"; filename="`+string(rune('a'+i))+`.bin"`, "", c)
	}
	return crlf(append(lines, "--b0undary--", "")...)
}

// TestReadMultipartMemoryBudget: files stay in memory while the budget,
// shared by all the files of a body, lasts; the rest go to temporary
// files that read back whole and that Close removes.
func TestReadMultipartMemoryBudget(t *testing.T) {
	tests := []struct {
		name        string
		sizes       []int
		wantSpilled int
	}{
		{"a file of exactly the budget stays in memory", []int{16}, 0},
		{"a file one byte over the budget spills", []int{17}, 1},
		{"an empty file stays in memory", []int{0}, 0},
		{"the budget is shared by the files of a body", []int{10, 6, 1}, 1},
		{"every file after one that spilled spills", []int{40, 3, 2000}, 3},
		{"files past the budget are kept apart", []int{8, 100, 100}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			var want []string
			for i, n := range tt.sizes {
				want = append(want, strings.Repeat(string(rune('A'+i)), n/2)+strings.Repeat("\r\n", n/4)+strings.Repeat("z", n-n/2-n/4*2))
			}
			m, err := formdata.ReadMultipart(strings.NewReader(filesBody(want...)), "b0undary", formdata.Limits{MaxParts: 10, MemoryBytes: 16})
			if err != nil {
				t.Fatal(err)
			}
			if got := tempFiles(t, dir); len(got) != tt.wantSpilled {
				t.Errorf("%d temporary files %v, want %d", len(got), got, tt.wantSpilled)
			}
			if len(m.Files) != len(want) {
				t.Fatalf("%d files, want %d", len(m.Files), len(want))
			}
			for i, f := range m.Files {
				got, err := io.ReadAll(f)
				if err != nil {
					t.Fatalf("file %d: %v", i, err)
				}
				if !bytes.Equal(got, []byte(want[i])) || f.Size != int64(len(want[i])) {
					t.Errorf("file %d: read %q (Size %d), want %q (%d bytes)", i, got, f.Size, want[i], len(want[i]))
				}
			}
			if err := m.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if got := tempFiles(t, dir); len(got) != 0 {
				t.Errorf("temporary files after Close: %v, want none", got)
			}
			if err := m.Close(); err != nil {
				t.Errorf("a second Close: %v, want nil", err)
			}
		})
	}
}

// TestFileReadInChunks: a file reads back the same in reads of any size,
// from memory and from disk, and ends with 0, io.EOF.
func TestFileReadInChunks(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	content := strings.Repeat("0123456789abcdef\r\n", 50)
	for _, tt := range []struct {
		name   string
		memory int64
	}{{"in memory", 1 << 20}, {"on disk", 64}} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := formdata.ReadMultipart(strings.NewReader(filesBody(content)), "b0undary", formdata.Limits{MaxParts: 1, MemoryBytes: tt.memory})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if err := iotest.TestReader(m.Files[0], []byte(content)); err != nil {
				t.Error(err)
			}
			m2, err := formdata.ReadMultipart(strings.NewReader(filesBody(content)), "b0undary", formdata.Limits{MaxParts: 1, MemoryBytes: tt.memory})
			if err != nil {
				t.Fatal(err)
			}
			defer m2.Close()
			var got []byte
			buf := make([]byte, 7)
			for {
				n, err := m2.Files[0].Read(buf)
				got = append(got, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					t.Fatal("Read returned 0, nil")
				}
			}
			if string(got) != content {
				t.Errorf("7-byte reads gave %d bytes, want the %d sent", len(got), len(content))
			}
		})
	}
}

// TestReadMultipartRemovesSpilledFilesOnError: a body that fails after a
// file went to disk leaves no temporary file.
func TestReadMultipartRemovesSpilledFilesOnError(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	body := filesBody(strings.Repeat("x", 100), "y")
	body = body[:len(body)-len("y\r\n--b0undary--\r\n")] // cut inside the second file
	_, err := formdata.ReadMultipart(strings.NewReader(body), "b0undary", formdata.Limits{MaxParts: 10, MemoryBytes: 16})
	var fe *formdata.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error = %v (%T), want *formdata.Error", err, err)
	}
	if got := tempFiles(t, dir); len(got) != 0 {
		t.Errorf("temporary files after the error: %v, want none", got)
	}
}

// TestReadMultipartTempDirFailure: when the host cannot store a file, the
// failure is the host's, not a malformed body.
//
// Regression (a bug once): ReadMultipart passes fill's error through readError, which phrases
// it as a *formdata.Error, "the multipart body is malformed: storing an
// uploaded file: open /…/endpoints-upload-…: no such file or directory":
// the host then answers 400 with the server's temporary path in the
// message, instead of treating it as its own failure.
func TestReadMultipartTempDirFailure(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	_, err := formdata.ReadMultipart(strings.NewReader(filesBody(strings.Repeat("x", 100))), "b0undary", formdata.Limits{MaxParts: 10, MemoryBytes: 16})
	var fe *formdata.Error
	if err == nil || errors.As(err, &fe) || !errors.Is(err, formdata.ErrStorage) {
		t.Errorf("error = %v (%T), want ErrStorage and not a *formdata.Error", err, err)
	}
}

// FuzzParseForm: any body decodes or gives a *formdata.Error, and what
// decodes survives being encoded and decoded again.
func FuzzParseForm(f *testing.F) {
	for _, tt := range parseFormCases {
		f.Add([]byte(tt.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := formdata.ParseForm(body)
		if err != nil {
			var fe *formdata.Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want *formdata.Error", err, err)
			}
			if v != nil || !utf8.ValidString(err.Error()) {
				t.Fatalf("error %q with values %v: want nil values and a UTF-8 message", err, v)
			}
			return
		}
		again, err := formdata.ParseForm([]byte(v.Encode()))
		if err != nil || !maps.EqualFunc(again, v, slices.Equal) {
			t.Fatalf("%q decoded to %v; encoded again it decodes to %v, %v", body, v, again, err)
		}
	})
}

// FuzzReadMultipart: any body and boundary decode or give a
// *formdata.Error, never a panic; a decoded body honours the limits, its
// files read back Size bytes, and Close leaves no temporary file.
func FuzzReadMultipart(f *testing.F) {
	for _, tt := range multipartCases {
		f.Add([]byte(tt.body), "b0undary")
	}
	f.Add([]byte(validBody), "b0undary")
	f.Add([]byte(filesBody(strings.Repeat("x", 100), "", "y")), "b0undary")
	f.Add([]byte(strings.ReplaceAll(validBody, "b0undary", "a b")), "a b")
	f.Add([]byte(validBody), "")
	dir := f.TempDir()
	f.Setenv("TMPDIR", dir)
	limits := formdata.Limits{MaxParts: 8, MemoryBytes: 64}
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		m, err := formdata.ReadMultipart(bytes.NewReader(body), boundary, limits)
		if err != nil {
			var fe *formdata.Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want *formdata.Error", err, err)
			}
			if m != nil || err.Error() == "" || !utf8.ValidString(err.Error()) {
				t.Fatalf("error %q with %v: want a non-empty UTF-8 message and no *Multipart", err, m)
			}
		} else {
			if n := len(m.Fields) + len(m.Files); n > limits.MaxParts {
				t.Errorf("%d parts decoded, MaxParts is %d", n, limits.MaxParts)
			}
			for _, fd := range m.Fields {
				if fd.Name == "" || fd.ContentType == "" {
					t.Errorf("field %+v: want a name and a Content-Type", fd)
				}
			}
			for i, file := range m.Files {
				data, err := io.ReadAll(file)
				if err != nil || int64(len(data)) != file.Size {
					t.Errorf("file %d: read %d bytes, %v; Size is %d", i, len(data), err, file.Size)
				}
				if file.Name == "" || file.ContentType == "" {
					t.Errorf("file %d %+v: want a name and a Content-Type", i, file)
				}
			}
			if err := m.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			for _, e := range left {
				os.Remove(filepath.Join(dir, e.Name()))
			}
			t.Fatalf("temporary files left: %v", left)
		}
	})
}
