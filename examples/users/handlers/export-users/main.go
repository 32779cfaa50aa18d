//go:build wasip1

// GET /api/users/export — every user as CSV, streamed one row per chunk.
//
//endpoints:route GET /api/users/export
package main

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct{}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "Export users",
		Description: "Every user as CSV (id, name, email), streamed as it is written.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			200: endpoints.Media("The users as CSV", "text/csv"),
		},
	}, func(*input) endpoints.Reply {
		return endpoints.Stream(200, "text/csv; charset=utf-8", func(w io.Writer) error {
			out := csv.NewWriter(w)
			rows := [][]string{{"id", "name", "email"}}
			for _, u := range model.All() {
				rows = append(rows, []string{strconv.Itoa(u.ID), u.Name, u.Email})
			}
			for _, row := range rows {
				if err := out.Write(row); err != nil {
					return err
				}
				out.Flush() // one chunk per row
				if err := out.Error(); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func main() {}
