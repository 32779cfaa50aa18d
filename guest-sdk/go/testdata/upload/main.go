//go:build wasip1

// Command upload is the guest of TestWasmGuestUpload: a multipart upload
// (POST), a raw CSV body (PUT) and a validation-error hook. The test
// builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o upload.wasm ./testdata/upload/main.go
package main

import (
	"bytes"
	"io"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type uploadInput struct {
	Body struct {
		Title  string           `json:"title" minLength:"1"`
		Avatar endpoints.File   `json:"avatar" accept:"image/png"`
		Extras []endpoints.File `json:"extras,omitempty"`
	} `content:"multipart/form-data" maxBytes:"65536"`
}

// Stored is the answer to an upload: what the guest read.
type Stored struct {
	Title       string   `json:"title"`
	ContentType string   `json:"contentType"`
	Files       []string `json:"files"` // name:filename:size:content
}

type importInput struct {
	Body io.Reader `content:"text/csv"`
}

// Imported is the answer to a CSV import.
type Imported struct {
	Lines int `json:"lines"`
}

// Problem is the hook's answer to a schema failure.
type Problem struct {
	Title  string `json:"title"`
	Status int    `json:"status"`
}

func init() {
	endpoints.Handle(endpoints.Operation{Method: "POST", Summary: "Upload an avatar"}, func(in *uploadInput) endpoints.Reply {
		out := Stored{Title: in.Body.Title, ContentType: endpoints.ContentType(), Files: []string{}}
		for _, f := range append([]endpoints.File{in.Body.Avatar}, in.Body.Extras...) {
			data, err := io.ReadAll(f)
			if err != nil {
				return endpoints.Respond(500, Problem{Title: err.Error(), Status: 500})
			}
			out.Files = append(out.Files, f.Name+":"+f.Filename+":"+f.ContentType+":"+string(data))
		}
		return endpoints.Respond(201, out)
	})
	endpoints.HandleFunc(endpoints.Operation{Method: "PUT", Summary: "Import rows"}, func(in *importInput) (Imported, error) {
		data, err := io.ReadAll(in.Body)
		if err != nil {
			return Imported{}, err
		}
		return Imported{Lines: bytes.Count(data, []byte("\n"))}, nil
	})
	endpoints.OnValidationError(func(f *endpoints.ValidationFailure) (endpoints.Reply, bool) {
		if f.Kind != abi.FailureSchema {
			return endpoints.Reply{}, false
		}
		return endpoints.Respond(422, Problem{Title: "Invalid " + f.Part, Status: 422}).
			WithHeader("Content-Type", "application/problem+json"), true
	})
}

func main() {}
