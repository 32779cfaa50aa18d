// POST /api/users - creates a user. The host validated the body against the
// contract, so the handler decodes it into a NewUser without checking it.
import { Contract, JSONFields, JSONValue, Request, Schema, decode, endpoint, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

import { User, db, storeFailure, user } from "../../../lib/users";

/** The body the contract declares. */
class NewUser {
  name: string = "";
  email: string = "";
  readJSON(r: JSONFields): void {
    this.name = r.field<string>("name");
    this.email = r.field<string>("email");
  }
}

endpoint(
  new Contract()
    .summary("Create a user")
    .tag("users")
    .bodyDescription("The user to create.")
    .body(
      Schema.object()
        .description("A user to create: the service gives the id.")
        .property("name", Schema.string().minLength(1).description("Full name.").example(JSONValue.str("Ada Lovelace")))
        .property("email", Schema.string().format("email").description("Contact address.").example(JSONValue.str("ada@example.com")))
        .additionalProperties(false),
    )
    .response(201, "The new user", Schema.ref("User"))
    .def("User", User),
  (req: Request): void => {
    const body = decode<NewUser>(req.body()!);
    const name = body.name;
    const email = body.email;
    const users = db();
    // The next id from the users counter: one statement, atomic on SQLite
    // and PostgreSQL alike, so concurrent creates on any number of hosts
    // get distinct ids.
    const next = users.query("UPDATE counters SET value = value + 1 WHERE name = $1 RETURNING value", [JSONValue.str("users")]);
    if (next == null) {
      storeFailure(users.error!);
      return;
    }
    assert(next.length == 1, "001-users.sql creates the users counter");
    const id = next.at(0).getInt("value");
    if (users.exec("INSERT INTO users (id, name, email) VALUES ($1, $2, $3)", [JSONValue.int(id), JSONValue.str(name), JSONValue.str(email)]) == null) {
      storeFailure(users.error!);
      return;
    }
    respond(201, user(id, name, email));
  },
);
