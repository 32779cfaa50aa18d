package endpoints_test

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// uploadPhoto is the input of a multipart upload: a caption and one
// image of at most 5 MiB, whose media type the host checks.
type uploadPhoto struct {
	Album string `path:"album"`
	Body  struct {
		Caption string         `json:"caption,omitempty" maxLength:"200"`
		Photo   endpoints.File `json:"photo" accept:"image/png,image/jpeg"`
	} `content:"multipart/form-data" maxBytes:"5242880"`
}

// Stored is the answer to an upload.
type Stored struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// A File field reads its part from the host as it is consumed: here
// io.Copy streams it to a store without holding it in memory. The
// contract declares the multipart body, the file as a string with a
// contentMediaType, and the types its part may have.
func ExampleFile() {
	defer endpoints.Reset() // examples share one process; a module never calls Reset

	endpoints.Handle(endpoints.Operation{
		Summary:   "Upload a photo",
		Responses: endpoints.Responses{201: endpoints.JSON[Stored]("The stored photo")},
	}, func(in *uploadPhoto) endpoints.Reply {
		n, err := io.Copy(io.Discard, in.Body.Photo) // a store's writer in a real module
		if err != nil {
			endpoints.Logger().Warn("upload cut short", "error", err)
			return endpoints.Respond(500, nil)
		}
		return endpoints.Respond(201, Stored{Name: in.Body.Photo.Filename, Bytes: n})
	})

	var c abi.Contract
	json.Unmarshal(endpoints.ContractJSON(), &c)
	body, _ := json.MarshalIndent(c.Request.Body, "", "  ")
	fmt.Println(string(body))
	// Output:
	// {
	//   "content": {
	//     "multipart/form-data": {
	//       "schema": {
	//         "type": "object",
	//         "properties": {
	//           "caption": {
	//             "type": "string",
	//             "maxLength": 200
	//           },
	//           "photo": {
	//             "type": "string",
	//             "contentMediaType": "image/png"
	//           }
	//         },
	//         "required": [
	//           "photo"
	//         ],
	//         "additionalProperties": false
	//       },
	//       "encoding": {
	//         "photo": {
	//           "contentType": "image/png, image/jpeg"
	//         }
	//       }
	//     }
	//   },
	//   "maxBytes": 5242880
	// }
}
