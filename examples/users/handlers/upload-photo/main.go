//go:build wasip1

// POST /api/users/:id/photo — a multipart upload: a caption field and a
// PNG or JPEG photo of at most 1 MiB. The host checks the part's declared
// type and the size before the handler runs; the handler checks the bytes
// are what they claim and answers their SHA-256.
//
//endpoints:route POST /api/users/:id/photo
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	model.ByID
	Body struct {
		Caption string         `json:"caption,omitempty" maxLength:"200" doc:"A caption for the photo." example:"At the lake"`
		Photo   endpoints.File `json:"photo" accept:"image/png,image/jpeg" doc:"The photo, PNG or JPEG."`
	} `content:"multipart/form-data" maxBytes:"1048576" doc:"The photo, and a caption if you like."`
}

// magic are the first bytes of each accepted type.
var magic = map[string][]byte{
	"image/png":  []byte("\x89PNG\r\n\x1a\n"),
	"image/jpeg": []byte("\xff\xd8\xff"),
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "Upload a user's photo",
		Description: "Takes a PNG or JPEG photo of at most 1 MiB, with an optional caption, as multipart/form-data; answers what it received.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			201: endpoints.JSON[model.Photo]("The photo was received"),
			404: endpoints.JSONAs[model.Problem]("No such user", "application/problem+json"),
			422: endpoints.JSONAs[model.Problem]("The file is not the image its type says", "application/problem+json"),
		},
	}, func(in *input) endpoints.Reply {
		_, ok, err := model.Find(in.ID)
		if err != nil {
			return model.StoreFailure(err)
		}
		if !ok {
			return endpoints.Respond(404, model.Problem{
				Type: "https://example.com/problems/no-such-user", Title: "No such user", Status: 404,
				Detail: fmt.Sprintf("user %d not found", in.ID),
			})
		}
		photo := in.Body.Photo
		sum := sha256.New()
		head := make([]byte, 8)
		n, err := io.ReadFull(photo, head)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			endpoints.Logger().Error("reading the upload failed", "error", err)
			return endpoints.Respond(500, nil)
		}
		if !bytes.HasPrefix(head[:n], magic[photo.ContentType]) {
			return endpoints.Respond(422, model.Problem{
				Type: "https://example.com/problems/not-an-image", Title: "Not an image", Status: 422,
				Detail: fmt.Sprintf("%s does not start like %s", photo.Filename, photo.ContentType),
			})
		}
		sum.Write(head[:n])
		size, err := io.Copy(sum, photo)
		if err != nil {
			endpoints.Logger().Error("reading the upload failed", "error", err)
			return endpoints.Respond(500, nil)
		}
		return endpoints.Respond(201, model.Photo{
			UserID: in.ID, Caption: in.Body.Caption, Filename: photo.Filename, ContentType: photo.ContentType,
			Bytes: int64(n) + size, SHA256: hex.EncodeToString(sum.Sum(nil)),
		})
	})
}

func main() {}
