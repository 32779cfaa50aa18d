// What the users routes share: the schemas of their answers and the seed
// users. Route sources live under server/; shared code lives outside it.
import { JSONValue, Schema } from "@wasmendpoints/assemblyscript";

/** A user, as every users route answers it. */
export const User = Schema.object()
  .property("id", Schema.integer())
  .property("name", Schema.string())
  .property("email", Schema.string().format("email"))
  .additionalProperties(false);

/** The body of a 404. */
export const NotFound = Schema.object().property("message", Schema.string()).additionalProperties(false);

/** The JSON of a user. */
export function user(id: i64, name: string, email: string): JSONValue {
  return JSONValue.object().set("id", JSONValue.int(id)).set("name", JSONValue.str(name)).set("email", JSONValue.str(email));
}

/** The seed user id, or null: the same three as the Go and C twins. */
export function seedUser(id: i64): JSONValue | null {
  if (id == 1) return user(1, "Ada Lovelace", "ada@example.com");
  if (id == 2) return user(2, "Grace Hopper", "grace@example.com");
  if (id == 3) return user(3, "Alan Turing", "alan@example.com");
  return null;
}

/** How many seed users there are: created users get the ids after them. */
export const SEED_USERS: i64 = 3;
