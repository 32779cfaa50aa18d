-- The orders, each line of an order as JSON text: an order is read whole.
CREATE TABLE orders (
  id BIGINT PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users (id),
  items TEXT NOT NULL,
  created_at TEXT NOT NULL
);

INSERT INTO counters (name, value) VALUES ('orders', 0);
