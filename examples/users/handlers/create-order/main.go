//go:build wasip1

// POST /api/orders — place an order for a user. The Idempotency-Key header
// is required: the host runs the handler once per key, and a retry with
// the same key and body gets the first answer again, so an order is never
// placed twice. A new order is posted to the webhook of the variable
// webhookUrl, when it is set (package webhook); a webhook that fails is
// logged, and the order stands.
//
//endpoints:route POST /api/orders
package main

import (
	"fmt"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/examples/users/model"
	"github.com/wasmendpoints/endpoints/examples/users/webhook"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	Body model.NewOrder `doc:"The order to place."`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "Place an order",
		Description: "Stores an order of 1 to 50 items for an existing user and answers it with its id and a Location header. Needs an Idempotency-Key: a retry with the same key and body answers the first order again.",
		Tags:        []string{"orders"},
		Responses: endpoints.Responses{
			201: endpoints.JSON[model.Order]("The new order").DeclareHeader("Location", "The new order's URL"),
			422: endpoints.JSONAs[model.Problem]("No such user, or the Idempotency-Key was used for a different request", "application/problem+json"),
		},
		Idempotency: &abi.Idempotency{Required: true},
	}, func(in *input) endpoints.Reply {
		_, ok, err := model.Find(in.Body.UserID)
		if err != nil {
			return model.StoreFailure(err)
		}
		if !ok {
			return endpoints.Respond(422, model.Problem{
				Type: "https://example.com/problems/no-such-user", Title: "No such user", Status: 422,
				Detail: fmt.Sprintf("user %d not found", in.Body.UserID),
			})
		}
		o, err := model.CreateOrder(in.Body)
		if err != nil {
			return model.StoreFailure(err)
		}
		if _, err := webhook.Send("order.created", o); err != nil {
			endpoints.Logger().Warn("the order.created webhook failed; the order stands", "order", o.ID, "error", err.Error())
		}
		return endpoints.Respond(201, o).WithHeader("Location", "/api/orders/"+strconv.Itoa(o.ID))
	})
}

func main() {}
