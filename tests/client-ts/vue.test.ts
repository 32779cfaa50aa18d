// The Vue composable of the generated client, with vue from npm in Node
// (no browser): useEndpoint follows a reactive parameter.
import assert from "node:assert/strict";
import { test } from "node:test";

import { effectScope, ref } from "vue";

import { createClient } from "./generated/users.client.vue.js";

const baseUrl = process.env["BASE_URL"];
if (baseUrl === undefined) {
  throw new Error("set BASE_URL to where examples/users is served (run.sh does)");
}
const api = createClient({ baseUrl });

/** Waits until ok() holds, for at most 5 s. */
async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!ok()) {
    if (Date.now() > deadline) {
      throw new Error("timed out waiting until " + what);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test("useEndpoint fetches, and fetches again when a param ref changes", async () => {
  const scope = effectScope();
  const id = ref(1);
  const user = scope.run(() => api.useEndpoint("/api/users/:id", { params: { id } }));
  assert.ok(user !== undefined);
  const { data, error, pending } = user;
  assert.equal(pending.value, true, "the first request starts at once");

  await until("user 1 is loaded", () => !pending.value);
  assert.equal(error.value, undefined);
  assert.equal(data.value?.status, 200);
  assert.equal(data.value?.status === 200 && data.value.body.name, "Ada Lovelace");

  id.value = 2;
  await until("user 2 is loaded", () => data.value?.status === 200 && data.value.body.id === 2);
  assert.equal(data.value?.status === 200 && data.value.body.name, "Grace Hopper");
  assert.equal(pending.value, false);

  id.value = 999;
  await until("the 404 is the data", () => data.value?.status === 404);
  // Read afresh: TypeScript keeps data.value narrowed across the awaits above.
  const notFound = user.data.value;
  assert.equal(notFound?.status === 404 && notFound.body.message, "user 999 not found");
  assert.equal(error.value, undefined, "a declared 404 is data, not an error");

  scope.stop();
  id.value = 3;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(data.value?.status, 404, "a stopped scope stops the watch");
});

test("useEndpoint takes a getter for the query and refreshes on demand", async () => {
  const scope = effectScope();
  const q = ref("ada");
  const search = scope.run(() => api.useEndpoint("/api/users/search", { query: () => ({ q: q.value, limit: 5 }) }));
  assert.ok(search !== undefined);
  await until("the search answers", () => search.data.value !== undefined && !search.pending.value);
  assert.equal(search.data.value?.status === 200 && search.data.value.body.total, 1);

  q.value = "example.com";
  await until("the new search answers", () => search.data.value?.status === 200 && search.data.value.body.total >= 3);

  const before = search.data.value;
  await search.refresh();
  assert.notEqual(search.data.value, before, "refresh sets a new answer");
  assert.equal(search.data.value?.status, 200);
  scope.stop();
});

test("a transport failure is the error", async () => {
  const nowhere = createClient({ baseUrl: "http://127.0.0.1:1" });
  const scope = effectScope();
  const user = scope.run(() => nowhere.useEndpoint("/api/users/:id", { params: { id: 1 } }));
  assert.ok(user !== undefined);
  await until("the request fails", () => !user.pending.value);
  assert.ok(user.error.value instanceof TypeError);
  assert.equal(user.data.value, undefined);
  scope.stop();
});
