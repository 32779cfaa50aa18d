package model

import (
	"encoding/json"
	"fmt"
	"time"
)

// NewOrder is the body of POST /api/orders.
type NewOrder struct {
	_      struct{}    `doc:"An order to place: who orders and what."`
	UserID int         `json:"userId" minimum:"1" doc:"The user who orders." example:"1"`
	Items  []OrderItem `json:"items" minItems:"1" maxItems:"50" doc:"What is ordered: 1 to 50 lines." example:"[{\"sku\":\"BOOK-42\",\"quantity\":2}]"`
}

// OrderItem is one line of an order.
type OrderItem struct {
	_        struct{} `doc:"One line of an order: a product and how many."`
	SKU      string   `json:"sku" pattern:"^[A-Z0-9-]{3,32}$" doc:"The stock-keeping unit: 3 to 32 capital letters, digits or dashes." example:"BOOK-42"`
	Quantity int      `json:"quantity" minimum:"1" maximum:"100" doc:"How many, 1 to 100." example:"2"`
}

// Order is an order as the API answers it.
type Order struct {
	_         struct{}    `doc:"A placed order."`
	ID        int         `json:"id" minimum:"1" doc:"The order's id." example:"1"`
	UserID    int         `json:"userId" minimum:"1" doc:"The user who ordered." example:"1"`
	Items     []OrderItem `json:"items" doc:"What was ordered." example:"[{\"sku\":\"BOOK-42\",\"quantity\":2}]"`
	CreatedAt string      `json:"createdAt" format:"date-time" doc:"When the order was taken." example:"2026-01-15T09:30:00Z"`
}

// CreateOrder stores a new order with the next order id, taken now, and
// returns it. The user must exist (the orders table refers to users): a
// handler checks with [Find] first to answer 422 rather than a constraint
// error.
//
//	o, err := model.CreateOrder(model.NewOrder{UserID: 1, Items: []model.OrderItem{{SKU: "BOOK-42", Quantity: 2}}})
func CreateOrder(no NewOrder) (Order, error) {
	id, err := nextID("orders")
	if err != nil {
		return Order{}, err
	}
	o := Order{ID: id, UserID: no.UserID, Items: no.Items, CreatedAt: time.Now().UTC().Format(time.RFC3339Nano)}
	items, err := json.Marshal(o.Items)
	if err != nil {
		return Order{}, err
	}
	if _, err := db.Exec("INSERT INTO orders (id, user_id, items, created_at) VALUES ($1, $2, $3, $4)", o.ID, o.UserID, string(items), o.CreatedAt); err != nil {
		return Order{}, fmt.Errorf("model: writing order %d: %w", o.ID, err)
	}
	return o, nil
}
