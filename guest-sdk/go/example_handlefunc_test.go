package endpoints_test

import (
	"fmt"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// Note is created from the request body and answered as it is stored.
type Note struct {
	ID   int    `json:"id" readOnly:"true"`
	Text string `json:"text" minLength:"1" maxLength:"280"`
}

// createNote is the input: the JSON body is the field named Body.
type createNote struct {
	Body struct {
		Text string `json:"text" minLength:"1" maxLength:"280"`
	}
}

var notes []Note

// HandleFunc infers the 201 response from the handler's result type;
// errors made with endpoints.Error answer their own status.
func ExampleHandleFunc() {
	defer endpoints.Reset() // examples share one process; a module never calls Reset

	endpoints.HandleFunc(endpoints.Operation{Summary: "Create a note", Status: 201},
		func(in *createNote) (Note, error) {
			if len(notes) >= 100 {
				return Note{}, endpoints.Error(409, Problem{Message: "too many notes"})
			}
			n := Note{ID: len(notes) + 1, Text: in.Body.Text}
			notes = append(notes, n)
			return n, nil
		})

	fmt.Println(string(endpoints.ContractJSON()))
	// Output:
	// {"summary":"Create a note","request":{"body":{"schema":{"type":"object","properties":{"text":{"type":"string","minLength":1,"maxLength":280}},"required":["text"],"additionalProperties":false}}},"responses":{"201":{"schema":{"$ref":"#/$defs/Note"}}},"responsesInferred":true,"$defs":{"Note":{"type":"object","properties":{"id":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807,"readOnly":true},"text":{"type":"string","minLength":1,"maxLength":280}},"required":["id","text"],"additionalProperties":false}}}
}
