//go:build !wasip1

package endpoints

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

type (
	signupForm struct {
		Email string   `json:"email" format:"email"`
		Age   int      `json:"age,omitempty"`
		Tags  []string `json:"tags,omitempty"`
		Terms bool     `json:"terms"`
	}
	signupInput struct {
		Body signupForm `content:"application/x-www-form-urlencoded,application/json"`
	}
	uploadForm struct {
		Title  string `json:"title"`
		Avatar File   `json:"avatar" accept:"image/png"`
		Cover  *File  `json:"cover,omitempty"`
		Extras []File `json:"extras,omitempty"`
	}
	uploadInput struct {
		ID   int         `path:"id"`
		Body *uploadForm `content:"multipart/form-data"`
	}
)

// uploadEnvelope is a multipart request of uploadInput; files go where
// the test puts them.
func uploadEnvelope(body, files string) string {
	e := `{"kind":"endpoint","method":"POST","route":"/u/:id","path":"/u/1","params":{"id":1},"contentType":"multipart/form-data"`
	if files != "" && strings.HasPrefix(files, "!") {
		// Files before the body.
		e += `,"files":` + files[1:]
		files = ""
	}
	if body != "" {
		e += `,"body":` + body
	}
	if files != "" {
		e += `,"files":` + files
	}
	return e + "}"
}

func TestFormBody(t *testing.T) {
	for _, tc := range []struct {
		name            string
		envelope        string
		want            signupForm
		wantContentType string
	}{
		{
			name: "form fields, coerced by the host",
			envelope: `{"kind":"endpoint","method":"POST","contentType":"application/x-www-form-urlencoded",` +
				`"body":{"email":"ada@example.com","age":36,"tags":["math","engines"],"terms":true}}`,
			want:            signupForm{Email: "ada@example.com", Age: 36, Tags: []string{"math", "engines"}, Terms: true},
			wantContentType: "application/x-www-form-urlencoded",
		},
		{
			name:            "the same struct from JSON",
			envelope:        `{"kind":"endpoint","method":"POST","body":{"email":"b@example.com","terms":false},"contentType":"application/json"}`,
			want:            signupForm{Email: "b@example.com"},
			wantContentType: "application/json",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var got signupForm
			var gotContentType string
			Handle(Operation{}, func(in *signupInput) Reply {
				got, gotContentType = in.Body, ContentType()
				return Respond(204, nil)
			})
			if resp := serveFake(fakeRequest{envelope: tc.envelope}); resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %v", resp.code, resp.logs)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("body = %+v, want %+v", got, tc.want)
			}
			if gotContentType != tc.wantContentType {
				t.Errorf("ContentType() = %q, want %q", gotContentType, tc.wantContentType)
			}
		})
	}
}

func TestMultipartBody(t *testing.T) {
	const (
		avatar  = `{"name":"avatar","filename":"me.png","contentType":"image/png","size":3}`
		cover   = `{"name":"cover","filename":"c.jpg","contentType":"image/jpeg","size":4}`
		extraA  = `{"name":"extras","filename":"a.txt","contentType":"text/plain","size":1}`
		extraB  = `{"name":"extras","filename":"b.bin","contentType":"application/octet-stream","size":2}`
		unknown = `{"name":"other","filename":"o","contentType":"text/plain","size":0}`
	)
	for _, tc := range []struct {
		name     string
		envelope string
		want     *uploadForm
	}{
		{
			name: "every field, files after the body",
			envelope: uploadEnvelope(`{"title":"Me","avatar":"me.png","cover":"c.jpg","extras":["a.txt","b.bin"]}`,
				"["+avatar+","+cover+","+extraA+","+extraB+"]"),
			want: &uploadForm{
				Title:  "Me",
				Avatar: File{Name: "avatar", Filename: "me.png", ContentType: "image/png", Size: 3, index: 1},
				Cover:  &File{Name: "cover", Filename: "c.jpg", ContentType: "image/jpeg", Size: 4, index: 2},
				Extras: []File{
					{Name: "extras", Filename: "a.txt", ContentType: "text/plain", Size: 1, index: 3},
					{Name: "extras", Filename: "b.bin", ContentType: "application/octet-stream", Size: 2, index: 4},
				},
			},
		},
		{
			name:     "files before the body, interleaved",
			envelope: uploadEnvelope(`{"title":"Me","avatar":"me.png","extras":["a.txt"]}`, "!["+extraA+","+avatar+"]"),
			want: &uploadForm{
				Title:  "Me",
				Avatar: File{Name: "avatar", Filename: "me.png", ContentType: "image/png", Size: 3, index: 2},
				Extras: []File{{Name: "extras", Filename: "a.txt", ContentType: "text/plain", Size: 1, index: 1}},
			},
		},
		{
			name:     "optional files absent stay nil",
			envelope: uploadEnvelope(`{"title":"Me","avatar":"me.png"}`, "["+avatar+"]"),
			want: &uploadForm{
				Title:  "Me",
				Avatar: File{Name: "avatar", Filename: "me.png", ContentType: "image/png", Size: 3, index: 1},
			},
		},
		{
			name: "a file of another field is skipped, a repeated single field keeps the first",
			envelope: uploadEnvelope(`{"title":"Me","avatar":["me.png","again.png"]}`,
				"["+unknown+","+avatar+`,{"name":"avatar","filename":"again.png","contentType":"image/png","size":9}]`),
			want: &uploadForm{
				Title:  "Me",
				Avatar: File{Name: "avatar", Filename: "me.png", ContentType: "image/png", Size: 3, index: 2},
			},
		},
		{
			name:     "no body at all",
			envelope: uploadEnvelope("", ""),
			want:     nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var got *uploadForm
			Handle(Operation{}, func(in *uploadInput) Reply {
				got = in.Body
				return Respond(204, nil)
			})
			if resp := serveFake(fakeRequest{envelope: tc.envelope}); resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %v", resp.code, resp.logs)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("body:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestMultipartBadFilesList(t *testing.T) {
	fresh(t)
	Handle(Operation{}, func(in *uploadInput) Reply { return Respond(204, nil) })
	resp := serveFake(fakeRequest{envelope: uploadEnvelope(`{"title":"x","avatar":"a"}`, `[{"name":"avatar","size":"big"}]`)})
	want := "endpoints: decoding the request envelope: files[0]: size: "
	if resp.code == 0 || len(resp.logs) != 1 || !strings.HasPrefix(resp.logs[0].msg, want) {
		t.Errorf("got code %d, logs %q; want a failure logging %q", resp.code, resp.logs, want)
	}
}

func TestFileRead(t *testing.T) {
	files := []string{"PNG bytes", strings.Repeat("0123456789", 100), "b"}
	envelope := uploadEnvelope(`{"title":"Me","avatar":"me.png","extras":["a","b"]}`,
		`[{"name":"avatar","filename":"me.png","contentType":"image/png","size":9},`+
			`{"name":"extras","filename":"a","contentType":"text/plain","size":1000},`+
			`{"name":"extras","filename":"b","contentType":"text/plain","size":1}]`)
	for _, tc := range []struct {
		name    string
		read    func(in *uploadForm) (string, error)
		fail    map[string]abi.Errno
		files   []string
		want    string
		wantErr error // errors.Is
	}{
		{"a file, whole", func(in *uploadForm) (string, error) {
			b, err := io.ReadAll(in.Avatar)
			return string(b), err
		}, nil, files, "PNG bytes", nil},
		{"files in any order, in small reads", func(in *uploadForm) (string, error) {
			var out []string
			for _, f := range slices.Backward(in.Extras) {
				var b []byte
				buf := make([]byte, 7)
				for {
					n, err := f.Read(buf)
					b = append(b, buf[:n]...)
					if err == io.EOF {
						break
					}
					if err != nil {
						return "", err
					}
				}
				out = append(out, string(b))
			}
			return strings.Join(out, "|"), nil
		}, nil, files, "b|" + files[1], nil},
		{"read again after the end: EOF", func(in *uploadForm) (string, error) {
			if _, err := io.ReadAll(in.Avatar); err != nil {
				return "", err
			}
			n, err := in.Avatar.Read(make([]byte, 8))
			return strings.Repeat("x", n), err
		}, nil, files, "", io.EOF},
		{"an empty buffer reads nothing", func(in *uploadForm) (string, error) {
			n, err := in.Avatar.Read(nil)
			return strings.Repeat("x", n), err
		}, nil, files, "", nil},
		{"a zero File has nothing to read", func(in *uploadForm) (string, error) {
			_, err := File{}.Read(make([]byte, 8))
			return "", err
		}, nil, files, "", errNoFile},
		{"the host's error is returned", func(in *uploadForm) (string, error) {
			_, err := in.Avatar.Read(make([]byte, 8))
			return "", err
		}, map[string]abi.Errno{abi.ImportFileRead: abi.ErrIO}, files, "", abi.ErrIO},
		{"a file the host does not have", func(in *uploadForm) (string, error) {
			_, err := in.Extras[1].Read(make([]byte, 8))
			return "", err
		}, nil, files[:2], "", abi.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var got string
			var err error
			Handle(Operation{}, func(in *uploadInput) Reply {
				got, err = tc.read(in.Body)
				return Respond(204, nil)
			})
			if resp := serveFake(fakeRequest{envelope: envelope, files: tc.files, fail: tc.fail}); resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %v", resp.code, resp.logs)
			}
			if got != tc.want {
				t.Errorf("read %.40q, want %.40q", got, tc.want)
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error = %v, want %v", err, tc.wantErr)
			}
		})
	}
	t.Run("the error names the file", func(t *testing.T) {
		f := File{Name: "avatar", Filename: "me.png", index: 1}
		_, err := f.Read(make([]byte, 1))
		want := `endpoints: reading file "me.png" of field "avatar": host function file_read: not available outside a request (-6)`
		if err == nil || err.Error() != want {
			t.Errorf("error = %v, want %s", err, want)
		}
	})
}

func TestRawBody(t *testing.T) {
	type (
		readerInput struct {
			Body io.Reader `content:"text/csv"`
		}
		bytesInput struct {
			Dry  bool   `query:"dry"`
			Body []byte `content:"application/octet-stream,image/*"`
		}
		stringInput struct {
			Body string `content:"text/plain" required:"false"`
		}
	)
	long := strings.Repeat("row,", 1000) // several reads
	for _, tc := range []struct {
		name     string
		register func(got *string)
		req      fakeRequest
		want     string
		wantCode int32
		wantLog  string
	}{
		{"io.Reader streams the body", func(got *string) {
			Handle(Operation{}, func(in *readerInput) Reply {
				b, err := io.ReadAll(in.Body)
				*got = string(b) + "|" + ContentType()
				if err != nil {
					*got += "|" + err.Error()
				}
				return Respond(204, nil)
			})
		}, fakeRequest{envelope: `{"kind":"endpoint","method":"POST","contentType":"text/csv"}`, body: long}, long + "|text/csv", 0, ""},
		{"io.Reader sees the host's error", func(got *string) {
			Handle(Operation{}, func(in *readerInput) Reply {
				_, err := io.ReadAll(in.Body)
				*got = err.Error()
				return Respond(413, nil)
			})
		}, fakeRequest{envelope: `{"kind":"endpoint","method":"POST"}`, body: "a,b", bodyErr: abi.ErrBodyTooLarge},
			"endpoints: reading the request body: host function body_read: request body too large (-4)", 0, ""},
		{"[]byte is read whole, parameters too", func(got *string) {
			Handle(Operation{}, func(in *bytesInput) Reply {
				*got = string(in.Body)
				if in.Dry {
					*got += "|dry"
				}
				return Respond(204, nil)
			})
		}, fakeRequest{envelope: `{"kind":"endpoint","method":"PUT","query":{"dry":true},"contentType":"image/png"}`, body: long}, long + "|dry", 0, ""},
		{"string is read whole", func(got *string) {
			Handle(Operation{}, func(in *stringInput) Reply {
				*got = in.Body
				return Respond(204, nil)
			})
		}, fakeRequest{envelope: `{"kind":"endpoint","method":"PUT"}`, body: "héllo"}, "héllo", 0, ""},
		{"an absent optional body is empty", func(got *string) {
			Handle(Operation{}, func(in *stringInput) Reply {
				*got = "called:" + in.Body
				return Respond(204, nil)
			})
		}, fakeRequest{envelope: `{"kind":"endpoint","method":"PUT"}`}, "called:", 0, ""},
		{"a failed read fails the request before the handler", func(got *string) {
			Handle(Operation{}, func(in *bytesInput) Reply {
				*got = "called"
				return Respond(204, nil)
			})
		}, fakeRequest{envelope: `{"kind":"endpoint","method":"PUT"}`, body: "abc", bodyErr: abi.ErrBodyTooLarge},
			"", 1, "endpoints: reading the request body: host function body_read: request body too large (-4)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var got string
			tc.register(&got)
			resp := serveFake(tc.req)
			if resp.code != tc.wantCode {
				t.Fatalf("handle() = %d, want %d; logs %v", resp.code, tc.wantCode, resp.logs)
			}
			if got != tc.want {
				t.Errorf("handler saw %.60q, want %.60q", got, tc.want)
			}
			var wantLogs []logLine
			if tc.wantLog != "" {
				wantLogs = []logLine{{abi.LogError, tc.wantLog}}
			}
			if !slices.Equal(resp.logs, wantLogs) {
				t.Errorf("logs = %q, want %q", resp.logs, wantLogs)
			}
		})
	}
}

func TestContentType(t *testing.T) {
	testAccessor(t, "ContentType", ContentType, []accessorCase{
		{"read while filling the input", true,
			`{"kind":"endpoint","method":"POST","query":{"size":1},"contentType":"text/csv"}`, "text/csv", true},
		{"input without fields", false,
			`{"kind":"endpoint","method":"POST","contentType":"application/x-www-form-urlencoded"}`, "application/x-www-form-urlencoded", false},
		{"no body", true, `{"kind":"endpoint","method":"GET","query":{"size":1}}`, "", true},
		{"escaped", false, `{"kind":"endpoint","method":"POST","contentType":"text\/csv"}`, "text/csv", false},
		{"not a string is logged and empty", false, `{"kind":"endpoint","method":"POST","contentType":7}`, "", false},
	})
}
