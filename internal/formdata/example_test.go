package formdata_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/wasmendpoints/endpoints/internal/formdata"
)

// A form with a text field and an uploaded file, as a browser sends it.
func ExampleReadMultipart() {
	contentType := "multipart/form-data; boundary=XyZ"
	body := "--XyZ\r\n" +
		"Content-Disposition: form-data; name=\"title\"\r\n" +
		"\r\n" +
		"Holiday\r\n" +
		"--XyZ\r\n" +
		"Content-Disposition: form-data; name=\"photo\"; filename=\"beach.png\"\r\n" +
		"Content-Type: image/png\r\n" +
		"\r\n" +
		"\x89PNG\r\n\x1a\n...\r\n" +
		"--XyZ--\r\n"

	boundary, err := formdata.Boundary(contentType)
	if err != nil {
		fmt.Println(err) // a *formdata.Error: answer 400 with its message
		return
	}
	m, err := formdata.ReadMultipart(strings.NewReader(body), boundary, formdata.DefaultLimits)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close() // removes the files that went to disk

	for _, f := range m.Fields {
		fmt.Printf("field %s = %q (%s)\n", f.Name, f.Value, f.ContentType)
	}
	for _, f := range m.Files {
		data, err := io.ReadAll(f)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("file %s: %s, %s, %d bytes, starts %q\n", f.Name, f.Filename, f.ContentType, f.Size, data[:4])
	}
	// Output:
	// field title = "Holiday" (text/plain)
	// file photo: beach.png, image/png, 11 bytes, starts "\x89PNG"
}
