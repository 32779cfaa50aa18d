//go:build wasip1

// GET /api/users/export — every user as CSV, streamed one row per chunk as
// it is read from the store.
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
		Description: "Every user as CSV (id, name, email), in id order, streamed as it is read from the store.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			200: endpoints.Media("The users as CSV", "text/csv"),
		},
	}, func(*input) endpoints.Reply {
		// A database that is down is a 503 before the first byte; once
		// rows are sent, a failure can only cut the response short.
		if err := model.Ping(); err != nil {
			return model.StoreFailure(err)
		}
		return endpoints.Stream(200, "text/csv; charset=utf-8", func(w io.Writer) error {
			out := csv.NewWriter(w)
			write := func(row ...string) error {
				if err := out.Write(row); err != nil {
					return err
				}
				out.Flush() // one chunk per row
				return out.Error()
			}
			if err := write("id", "name", "email"); err != nil {
				return err
			}
			for u, err := range model.All() {
				if err != nil {
					return err
				}
				if err := write(strconv.Itoa(u.ID), u.Name, u.Email); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func main() {}
