// What the users routes share: the schemas of their answers and reading
// users from the app's database. Route sources live under server/; shared
// code lives outside it.
import { DB, DBError, JSONValue, Row, Schema, log, respond } from "@wasmendpoints/assemblyscript";

/** The app's database: "main", which endpoints.json does not declare, so
 * the host keeps it as an SQLite file under the app, or wherever
 * ENDPOINTS_DATABASES_MAIN_* point it. server/migrations/001-users.sql
 * creates the users table and the seed users 1, 2 and 3. */
export function db(): DB {
  return new DB("main");
}

/** A user, as every users route answers it. */
export const User = Schema.object()
  .description("A user of the service.")
  .property("id", Schema.integer().description("The user's id.").example(JSONValue.int(1)))
  .property("name", Schema.string().description("Full name.").example(JSONValue.str("Ada Lovelace")))
  .property("email", Schema.string().format("email").description("Contact address.").example(JSONValue.str("ada@example.com")))
  .additionalProperties(false);

/** The body of a 404. */
export const NotFound = Schema.object()
  .description("No user has the id asked for.")
  .property("message", Schema.string().description("Which id was asked for.").example(JSONValue.str("user 9 not found")))
  .additionalProperties(false);

/** The JSON of a user. */
export function user(id: i64, name: string, email: string): JSONValue {
  return JSONValue.object().set("id", JSONValue.int(id)).set("name", JSONValue.str(name)).set("email", JSONValue.str(email));
}

/** The JSON of a row of SELECT id, name, email FROM users. */
export function userOf(row: Row): JSONValue {
  return user(row.getInt("id"), row.getString("name"), row.getString("email"));
}

/** Answers a failed database call as the Go twin does: 503 when the
 * database cannot be reached or stays busy (locked past its busy
 * timeout), 500 otherwise, and logs why. */
export function storeFailure(e: DBError): void {
  log.error("the users store failed: " + e.toString());
  if (e.code == "unavailable" || e.code == "busy") {
    respond(503, JSONValue.object().set("statusCode", JSONValue.int(503)).set("statusMessage", JSONValue.str("Service Unavailable")));
  } else {
    respond(500, JSONValue.object().set("statusCode", JSONValue.int(500)).set("statusMessage", JSONValue.str("Internal Server Error")));
  }
}
