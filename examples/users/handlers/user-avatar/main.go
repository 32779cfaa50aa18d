//go:build wasip1

// GET /api/users/:id/avatar — a generated avatar, as PNG or SVG as the
// client's Accept header prefers; a 404 as RFC 9457 Problem Details.
//
//endpoints:route GET /api/users/:id/avatar
package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"

	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	model.ByID
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "A user's avatar",
		Description: "A square in the user's colour with their initials: image/png or image/svg+xml, negotiated with Accept.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			200: endpoints.Media("The avatar", "image/png", "image/svg+xml"),
			404: endpoints.JSONAs[model.Problem]("No such user", "application/problem+json"),
		},
	}, func(in *input) endpoints.Reply {
		u, ok, err := model.Find(in.ID)
		if err != nil {
			return model.StoreFailure(err)
		}
		if !ok {
			return endpoints.Respond(404, model.Problem{
				Type: "https://example.com/problems/no-such-user", Title: "No such user", Status: 404,
				Detail: fmt.Sprintf("user %d not found", in.ID),
			})
		}
		c := colour(u.ID)
		if endpoints.MediaType() == "image/svg+xml" {
			svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#%02x%02x%02x"/><text x="32" y="40" font-size="24" text-anchor="middle" fill="#fff">%s</text></svg>`,
				c.R, c.G, c.B, initials(u.Name))
			return endpoints.Bytes(200, "image/svg+xml", []byte(svg))
		}
		img := image.NewRGBA(image.Rect(0, 0, 64, 64))
		for y := 0; y < 64; y++ {
			for x := 0; x < 64; x++ {
				img.Set(x, y, c)
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return endpoints.Respond(500, nil)
		}
		return endpoints.Bytes(200, "image/png", buf.Bytes())
	})
}

func colour(id int) color.RGBA {
	return color.RGBA{R: uint8(60 + 70*id%190), G: uint8(90 + 40*id%160), B: uint8(140 + 30*id%110), A: 255}
}

func initials(name string) string {
	var out string
	for _, w := range strings.Fields(name) {
		out += w[:1]
	}
	return out
}

func main() {}
