// Live tests: the generated client of examples/users against the app as
// the host serves it. run.sh starts the server and sets BASE_URL.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createClient, EndpointUnexpectedResponse } from "./generated/users.client.js";
import type { ClockEvent } from "./generated/users.client.js";

const baseUrl = process.env["BASE_URL"];
if (baseUrl === undefined) {
  throw new Error("set BASE_URL to where examples/users is served (run.sh does)");
}

// Writes need a bearer token with the users:write and orders:write
// scopes; run.sh mints one with `endpoints token`.
const token = process.env["TOKEN"];
if (token === undefined) {
  throw new Error("set TOKEN to a bearer token for examples/users (run.sh does)");
}
const api = createClient({ baseUrl, headers: { authorization: `Bearer ${token}` } });

test("a write without a token is the typed 401, with a challenge", async () => {
  const anonymous = createClient({ baseUrl });
  const res = await anonymous.$endpoint("/api/users", { method: "POST", body: { name: "Eve", email: "eve@example.com" } });
  assert.equal(res.status, 401);
  if (res.status !== 401) return;
  assert.deepEqual(res.body.data.schemes, ["bearer"]);
  assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer realm="bearer"/);
});

/** Reads a byte stream to text. */
async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

test("a declared 200 is parsed and typed", async () => {
  const res = await api.$endpoint("/api/users/:id", { params: { id: 1 } });
  assert.equal(res.status, 200);
  assert.equal(res.ok, true);
  assert.equal(res.contentType, "application/json");
  if (res.status !== 200) return;
  assert.deepEqual(res.body, { id: 1, name: "Ada Lovelace", email: "ada@example.com" });
});

test("a declared 404 is a result, not a throw", async () => {
  const res = await api.$endpoint("/api/users/:id", { params: { id: 999 } });
  assert.equal(res.status, 404);
  assert.equal(res.ok, false);
  if (res.status !== 404) return;
  assert.equal(res.body.message, "user 999 not found");
});

test("a validation failure is a 400 with the framework's body", async () => {
  const res = await api.$endpoint("/api/users/:id", { params: { id: 0 } });
  assert.equal(res.status, 400);
  if (res.status !== 400) return;
  assert.equal(res.body.statusMessage, "Validation Error");
  assert.deepEqual(res.body.data.params?.[0]?.path, ["id"]);
});

test("an endpoint's own 400 as Problem Details is told apart by contentType", async () => {
  const res = await api.$endpoint("/api/users/search", { query: { q: "a", limit: 500 } });
  assert.equal(res.status, 400);
  assert.equal(res.contentType, "application/problem+json");
  if (res.status !== 400 || res.contentType !== "application/problem+json") return;
  assert.deepEqual(
    res.body.errors.map((e) => e.pointer),
    ["/limit"],
  );
});

test("query parameters are sent and typed answers read", async () => {
  const res = await api.$endpoint("/api/users/search", { query: { q: "GRACE" } });
  assert.equal(res.status, 200);
  if (res.status !== 200) return;
  assert.equal(res.body.total, 1);
  assert.equal(res.body.items[0]?.email, "grace@example.com");
});

test("path parameters are encoded", async () => {
  const urls: string[] = [];
  const spy = createClient({
    baseUrl,
    fetch: (input, init) => {
      urls.push(input);
      return fetch(input, init);
    },
  });
  // A value the type forbids, to see it escaped: the host answers 400.
  const res = await spy.$endpoint("/api/users/:id", { params: { id: "1/2 x" as unknown as number } });
  assert.equal(urls[0], baseUrl + "/api/users/1%2F2%20x");
  assert.equal(res.status, 400);
});

test("raw() gives the native Response", async () => {
  const res = await api.$endpoint("/api/users/:id", { params: { id: 2 } }).raw();
  assert.ok(res instanceof Response);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.deepEqual(await res.json(), { id: 2, name: "Grace Hopper", email: "grace@example.com" });
});

test("a request is read one way: raw() after awaiting rejects, and awaiting after raw()", async () => {
  const awaited = api.$endpoint("/api/users/:id", { params: { id: 1 } });
  await awaited;
  await assert.rejects(awaited.raw(), /was awaited/);
  const raw = api.$endpoint("/api/users/:id", { params: { id: 1 } });
  await (await raw.raw()).body?.cancel();
  await assert.rejects(async () => await raw, /raw\(\) was called/);
});

test("nothing is sent until the request is awaited", async () => {
  let sent = 0;
  const counting = createClient({
    baseUrl,
    fetch: (input, init) => {
      sent++;
      return fetch(input, init);
    },
  });
  const request = counting.$endpoint("/api/users/:id", { params: { id: 1 } });
  assert.equal(sent, 0);
  await request;
  await request;
  assert.equal(sent, 1, "awaiting twice sends once");
});

test("a media answer is a byte stream: the CSV export", async () => {
  const res = await api.$endpoint("/api/users/export");
  assert.equal(res.status, 200);
  assert.equal(res.contentType, "text/csv");
  if (res.status !== 200) return;
  assert.ok(res.body instanceof ReadableStream);
  const csv = await text(res.body);
  assert.equal(csv.split("\n")[0], "id,name,email");
  assert.match(csv, /^1,Ada Lovelace,ada@example\.com$/m);
});

test("accept chooses among the 2xx media types", async () => {
  const svg = await api.$endpoint("/api/users/:id/avatar", { params: { id: 1 }, accept: "image/svg+xml" });
  assert.equal(svg.status, 200);
  assert.equal(svg.contentType, "image/svg+xml");
  if (svg.status === 200) assert.match(await text(svg.body), /<svg/);
  const png = await api.$endpoint("/api/users/:id/avatar", { params: { id: 1 }, accept: "image/png" });
  assert.equal(png.contentType, "image/png");
  if (png.status === 200) {
    const bytes = new Uint8Array(await new Response(png.body).arrayBuffer());
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
  }
});

test("a framework 406 is a typed result", async () => {
  const res = await api.$endpoint("/api/users/:id/avatar", { params: { id: 1 }, headers: { accept: "image/gif" } });
  assert.equal(res.status, 406);
  if (res.status !== 406) return;
  assert.equal(res.body.data.received, "image/gif");
  assert.deepEqual(res.body.data.supportedMediaTypes, ["image/png", "image/svg+xml"]);
});

test("Server-Sent Events are an async iterable of typed data", async () => {
  const res = await api.$endpoint("/api/clock", { query: { count: 2 } });
  assert.equal(res.status, 200);
  assert.equal(res.contentType, "text/event-stream");
  if (res.status !== 200) return;
  const events: ClockEvent[] = [];
  for await (const event of res.body) {
    events.push(event);
  }
  assert.deepEqual(
    events.map((e) => e.tick),
    [1, 2],
  );
  for (const e of events) {
    assert.ok(!Number.isNaN(Date.parse(e.time)), e.time + " is a time");
  }
});

test("leaving an event loop early cancels the stream", async () => {
  const res = await api.$endpoint("/api/clock", { query: { count: 20 } });
  if (res.status !== 200) return assert.fail("status " + res.status);
  const started = Date.now();
  for await (const event of res.body) {
    assert.equal(event.tick, 1);
    break;
  }
  assert.ok(Date.now() - started < 1500, "did not wait for the 20 events");
});

test("an idempotent POST retried with the same key replays the first answer", async () => {
  const order = api.$endpoint("/api/orders", { body: { userId: 1, items: [{ sku: "ABC-1", quantity: 2 }] } });
  assert.match(order.idempotencyKey ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-/);
  const first = await order;
  assert.equal(first.status, 201);
  assert.equal(first.headers.get("idempotent-replayed"), null);

  const retry = order.retry();
  assert.equal(retry.idempotencyKey, order.idempotencyKey);
  const second = await retry;
  assert.equal(second.status, 201);
  assert.deepEqual(second.body, first.body);
  assert.equal(second.headers.get("idempotent-replayed"), "true");

  const raw = await order.retry().raw();
  assert.equal(raw.status, 201);
  assert.equal(raw.headers.get("idempotent-replayed"), "true");
  assert.deepEqual(await raw.json(), first.body);

  // The same key for another order is refused.
  const other = await api.$endpoint("/api/orders", {
    body: { userId: 1, items: [{ sku: "XYZ-9", quantity: 1 }] },
    idempotencyKey: order.idempotencyKey ?? "",
  });
  assert.equal(other.status, 422);
  if (other.status === 422 && "code" in other.body) {
    assert.equal(other.body.code, "IDEMPOTENCY_KEY_REUSED");
  } else {
    assert.fail("422 without an Idempotency-Key problem");
  }
});

test("a key given in headers is the one sent", async () => {
  const key = "order-" + Date.now();
  const order = api.$endpoint("/api/orders", {
    headers: { "Idempotency-Key": key },
    body: { userId: 2, items: [{ sku: "ABC-2", quantity: 1 }] },
  });
  assert.equal(order.idempotencyKey, key);
  assert.equal((await order).status, 201);
  assert.equal((await order.retry()).headers.get("idempotent-replayed"), "true");
});

test("create, change and read a user", async () => {
  const created = await api.$endpoint("/api/users", { body: { name: "Lin Chen", email: "lin@example.com" } });
  assert.equal(created.status, 201);
  if (created.status !== 201) return;
  const id = created.body.id;
  const patched = await api.$endpoint("/api/users/:id", { method: "PATCH", params: { id }, body: { name: "Lin C." } });
  assert.equal(patched.status, 200);
  const read = await api.$endpoint("/api/users/:id", { params: { id } });
  assert.equal(read.status === 200 && read.body.name, "Lin C.");
});

test("a multipart upload with a Blob field", async () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  const res = await api.$endpoint("/api/users/:id/photo", {
    params: { id: 1 },
    body: { photo: new File([png], "me.png", { type: "image/png" }), caption: "Me" },
  });
  assert.equal(res.status, 201);
  if (res.status !== 201) return;
  assert.equal(res.body.filename, "me.png");
  assert.equal(res.body.caption, "Me");
  assert.equal(res.body.bytes, png.length);
});

test("an undeclared status rejects with EndpointUnexpectedResponse", async () => {
  const teapot = createClient({
    baseUrl,
    fetch: async () => new Response(JSON.stringify({ short: "and stout" }), { status: 418, headers: { "content-type": "application/json" } }),
  });
  const failure = await teapot.$endpoint("/api/users/:id", { params: { id: 1 } }).then(
    () => assert.fail("resolved"),
    (e: unknown) => e,
  );
  assert.ok(failure instanceof EndpointUnexpectedResponse);
  assert.equal(failure.status, 418);
  assert.deepEqual(failure.body, { short: "and stout" });
});

test("a transport failure rejects with fetch's error", async () => {
  const nowhere = createClient({ baseUrl: "http://127.0.0.1:1" });
  await assert.rejects(async () => await nowhere.$endpoint("/api/users/:id", { params: { id: 1 } }), TypeError);
});
