// Interop: openapi-typescript's types of the document the host serves, and
// openapi-fetch calling the app with them. Proof that the document works
// with tools Endpoints did not write. run.sh generates
// generated/users.openapi.ts from BASE_URL/_endpoints/schema.
import assert from "node:assert/strict";
import { test } from "node:test";

import createFetchClient from "openapi-fetch";

import type { paths } from "./generated/users.openapi.js";

const baseUrl = process.env["BASE_URL"];
if (baseUrl === undefined) {
  throw new Error("set BASE_URL to where examples/users is served (run.sh does)");
}
// Writes need a bearer token; run.sh mints one with `endpoints token`.
const client = createFetchClient<paths>({ baseUrl, headers: { authorization: `Bearer ${process.env["TOKEN"] ?? ""}` } });

test("openapi-fetch reads a user", async () => {
  const { data, error, response } = await client.GET("/api/users/{id}", { params: { path: { id: 1 } } });
  assert.equal(response.status, 200);
  assert.equal(error, undefined);
  assert.equal(data?.name, "Ada Lovelace");
});

test("openapi-fetch gets a declared 404 as a typed error", async () => {
  const { data, error, response } = await client.GET("/api/users/{id}", { params: { path: { id: 999 } } });
  assert.equal(response.status, 404);
  assert.equal(data, undefined);
  assert.ok(error !== undefined && "message" in error);
  assert.equal(error.message, "user 999 not found");
});

test("openapi-fetch searches with a required query", async () => {
  const { data } = await client.GET("/api/users/search", { params: { query: { q: "turing", limit: 1 } } });
  assert.equal(data?.total, 1);
  assert.equal(data?.items[0]?.name, "Alan Turing");
});

test("openapi-fetch places an order with an Idempotency-Key", async () => {
  const key = "interop-" + Date.now();
  const { data, response } = await client.POST("/api/orders", {
    params: { header: { "Idempotency-Key": key } },
    body: { userId: 3, items: [{ sku: "INT-1", quantity: 1 }] },
  });
  assert.equal(response.status, 201);
  assert.equal(data?.userId, 3);
});
