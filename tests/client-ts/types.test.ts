// Type tests of the generated client of examples/users: tsc must accept
// every correct use below, and every line after a @ts-expect-error must be
// a type error (tsc fails on an unused @ts-expect-error). Nothing here is
// run; run.sh only compiles it.
import { ref } from "vue";

import { createClient } from "./generated/users.client.js";
import type {
  ClockEvent,
  EndpointRequest,
  EndpointsIdempotencyProblem,
  EndpointsValidationError,
  GetApiUsersByIdResult,
  NotFound,
  Order,
  User,
  ValidationProblem,
} from "./generated/users.client.js";
import { createClient as createVueClient } from "./generated/users.client.vue.js";
import { createClient as createFeaturesClient } from "./generated/features.client.js";
import type { Dict, Item, Shape } from "./generated/features.client.js";

/** Equal is true when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** expectType compiles only when its type argument is true. */
function expectType<T extends true>(): T | undefined {
  return undefined;
}

const api = createClient({ baseUrl: "http://127.0.0.1:3000" });

export async function statusNarrowsBody(): Promise<void> {
  const res = await api.$endpoint("/api/users/:id", { params: { id: 1 } });
  expectType<Equal<typeof res, GetApiUsersByIdResult>>();

  // @ts-expect-error body is a union until status is checked: a User has no message.
  void res.body.message;

  if (res.status === 404) {
    expectType<Equal<typeof res.body, NotFound>>();
    const message: string = res.body.message;
    void message;
  } else if (res.status === 200) {
    expectType<Equal<typeof res.body, User>>();
    expectType<Equal<typeof res.contentType, "application/json">>();
  } else {
    expectType<Equal<typeof res.status, 400 | 500 | 503>>();
  }
  if (res.ok) {
    expectType<Equal<typeof res.body, User>>();
  }
  // @ts-expect-error 418 is not a status the endpoint declares.
  void (res.status === 418);
}

export async function requestOptions(): Promise<void> {
  // @ts-expect-error a wrong param type: id is an integer.
  void api.$endpoint("/api/users/:id", { params: { id: "one" } });

  // @ts-expect-error the path has a parameter, so options are required.
  void api.$endpoint("/api/users/:id");

  // @ts-expect-error the required query parameter q is missing.
  void api.$endpoint("/api/users/search", { query: { limit: 5 } });

  // @ts-expect-error search's query is required as a whole.
  void api.$endpoint("/api/users/search");

  // @ts-expect-error GET takes no body.
  void api.$endpoint("/api/users/:id", { params: { id: 1 }, body: { name: "Ada" } });

  // @ts-expect-error export takes no query.
  void api.$endpoint("/api/users/export", { query: { q: "a" } });

  // @ts-expect-error a typo in an option's name.
  void api.$endpoint("/api/users/export", { sginal: AbortSignal.timeout(1000) });

  // @ts-expect-error not a route of the app.
  void api.$endpoint("/api/nope");

  // @ts-expect-error PATCH is not GET: its method must be given.
  void api.$endpoint("/api/users/:id", { params: { id: 1 }, body: { name: "Ada" }, method: "PUT" });

  // @ts-expect-error an order's body needs items.
  void api.$endpoint("/api/orders", { body: { userId: 1 } });

  // @ts-expect-error a quantity is a number.
  void api.$endpoint("/api/orders", { body: { userId: 1, items: [{ sku: "ABC", quantity: "2" }] } });

  // @ts-expect-error an endpoint that requires an Idempotency-Key cannot be told to send none.
  void api.$endpoint("/api/orders", { body: { userId: 1, items: [] }, idempotencyKey: false });

  // @ts-expect-error accept is for endpoints whose 2xx answers come in several media types.
  void api.$endpoint("/api/users/:id", { params: { id: 1 }, accept: "application/json" });

  // @ts-expect-error the avatar comes as PNG or SVG only.
  void api.$endpoint("/api/users/:id/avatar", { params: { id: 1 }, accept: "image/gif" });

  // @ts-expect-error a multipart file field is a Blob, not a string.
  void api.$endpoint("/api/users/:id/photo", { params: { id: 1 }, body: { photo: "me.png" } });

  // Correct uses.
  void api.$endpoint("/api/users/export");
  void api.$endpoint("/api/clock");
  void api.$endpoint("/api/clock", { query: { count: 2 } });
  void api.$endpoint("/api/users/search", { query: { q: "ada" } });
  // Optional options take undefined too, even under exactOptionalPropertyTypes.
  const limit: number | undefined = Math.random() > 0.5 ? 5 : undefined;
  const signal: AbortSignal | undefined = undefined;
  void api.$endpoint("/api/users/search", { query: { q: "ada", limit }, signal });
  void api.$endpoint("/api/users/:id", { method: "GET", params: { id: 1 }, headers: { "x-trace": "1" } });
  void api.$endpoint("/api/users/:id", { method: "PATCH", params: { id: 1 }, body: { email: "ada@example.org" } });
  void api.$endpoint("/api/users/:id/avatar", { params: { id: 1 }, accept: "image/svg+xml" });
  void api.$endpoint("/api/users", { body: { name: "Lin", email: "lin@example.com" }, idempotencyKey: true });
  void api.$endpoint("/api/users", { body: { name: "Lin", email: "lin@example.com" }, idempotencyKey: false });
  void api.$endpoint("/api/users/:id/photo", { params: { id: 1 }, body: { photo: new Blob([]), caption: "me" } });
  void api.$endpoint("/api/users/:id/photo", { params: { id: 1 }, body: new FormData() });
}

export async function mediaAndEvents(): Promise<void> {
  const clock = await api.$endpoint("/api/clock", { query: { count: 2 } });
  if (clock.status === 200) {
    expectType<Equal<typeof clock.body, AsyncIterable<ClockEvent>>>();
    for await (const event of clock.body) {
      const tick: number = event.tick;
      void tick;
    }
  }
  const csv = await api.$endpoint("/api/users/export");
  if (csv.status === 200) {
    expectType<Equal<typeof csv.body, ReadableStream<Uint8Array>>>();
    expectType<Equal<typeof csv.contentType, "text/csv">>();
  }
  const avatar = await api.$endpoint("/api/users/:id/avatar", { params: { id: 1 } });
  if (avatar.ok) {
    expectType<Equal<typeof avatar.contentType, "image/png" | "image/svg+xml">>();
  }
  const raw: Response = await api.$endpoint("/api/users/:id", { params: { id: 1 } }).raw();
  void raw;
}

export async function idempotency(): Promise<void> {
  const order = api.$endpoint("/api/orders", { body: { userId: 1, items: [{ sku: "ABC-1", quantity: 2 }] } });
  const key: string | undefined = order.idempotencyKey;
  void key;
  const retry: EndpointRequest<Awaited<typeof order>> = order.retry();
  void retry;
  const res = await order;
  if (res.status === 201) {
    expectType<Equal<typeof res.body, Order>>();
  }
  if (res.status === 400) {
    // Validation and Idempotency-Key problems share 400; contentType tells them apart.
    if (res.contentType === "application/problem+json") {
      expectType<Equal<typeof res.body, EndpointsIdempotencyProblem>>();
    } else {
      expectType<Equal<typeof res.body, EndpointsValidationError>>();
    }
  }
  if (res.status === 409) {
    const code: EndpointsIdempotencyProblem["code"] = res.body.code;
    void code;
  }
  const search = await api.$endpoint("/api/users/search", { query: { q: "a" } });
  if (search.status === 400 && search.contentType === "application/problem+json") {
    expectType<Equal<typeof search.body, ValidationProblem>>();
  }
}

export function vueComposable(): void {
  const client = createVueClient({ baseUrl: "http://127.0.0.1:3000" });
  const id = ref(1);
  const user = client.useEndpoint("/api/users/:id", { params: { id } });
  const data = user.data.value;
  if (data?.status === 200) {
    const name: string = data.body.name;
    void name;
  }
  const pending: boolean = user.pending.value;
  void pending;
  void client.useEndpoint("/api/users/search", { query: () => ({ q: "a", limit: id.value }) });
  void client.useEndpoint("/api/users/search", () => ({ query: { q: "a" } }));
  void client.useEndpoint("/api/users/export");

  const name = ref("x");
  // @ts-expect-error id is a number, even as a ref.
  void client.useEndpoint("/api/users/:id", { params: { id: name } });
}

export async function featuresClient(): Promise<void> {
  const features = createFeaturesClient();
  // JSON is the default body media type; the others must be named.
  void features.$endpoint("/items/:id", { method: "PUT", params: { id: "a" }, body: { name: "n" } });
  void features.$endpoint("/items/:id", { method: "PUT", params: { id: "a" }, contentType: "text/plain", body: "n" });
  void features.$endpoint("/items/:id", {
    method: "PUT",
    params: { id: "a" },
    contentType: "application/x-www-form-urlencoded",
    body: new URLSearchParams({ name: "n" }),
  });
  // @ts-expect-error a text body is not JSON's Item.
  void features.$endpoint("/items/:id", { method: "PUT", params: { id: "a" }, body: "n" });
  // @ts-expect-error DELETE is not GET, so its method must be given.
  void features.$endpoint("/items/:id", { params: { id: "a" } });

  // A body that is not required may be left out.
  void features.$endpoint("/items", { method: "POST" });
  // Required headers, typed; others allowed.
  void features.$endpoint("/upload", { headers: { "x-tenant": "a", authorization: "Bearer t" }, body: { photo: new Blob([]) } });
  // @ts-expect-error x-tenant is "a" or "b".
  void features.$endpoint("/upload", { headers: { "x-tenant": "c" }, body: { photo: new Blob([]) } });

  const deleted = await features.$endpoint("/items/:id", { method: "DELETE", params: { id: "a" } });
  expectType<Equal<typeof deleted.body, undefined>>();
  const events = await features.$endpoint("/events");
  expectType<Equal<typeof events.body, AsyncIterable<string>>>();

  // Schema constructs.
  const item: Item = { name: "n", color: null, point: [1, 2], shape: { type: "circle", radius: 1 }, kind: "item" };
  void item;
  // @ts-expect-error a closed tuple of two.
  const badPoint: Item = { name: "n", point: [1, 2, 3] };
  void badPoint;
  // @ts-expect-error a circle has a radius, not a side.
  const badShape: Shape = { type: "circle", side: 1 };
  void badShape;
  const dict: Dict = { count: 1, other: "x" };
  void dict;
  // @ts-expect-error Dict's other values are strings.
  const badDict: Dict = { count: 1, other: true };
  void badDict;
}
