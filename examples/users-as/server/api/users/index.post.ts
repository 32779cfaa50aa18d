// POST /api/users - creates a user. The host validated the body against the
// contract, so the handler decodes it into a NewUser without checking it.
import { Contract, JSONFields, Request, Schema, decode, endpoint, kv, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

import { SEED_USERS, User, user } from "../../../lib/users";

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
    .body(
      Schema.object()
        .property("name", Schema.string().minLength(1))
        .property("email", Schema.string().format("email"))
        .additionalProperties(false),
    )
    .response(201, "The new user", Schema.ref("User"))
    .def("User", User),
  (req: Request): void => {
    const body = decode<NewUser>(req.body()!);
    // Atomic across hosts when the store is Redis.
    const id = SEED_USERS + kv.incr("users/next-id");
    const created = user(id, body.name, body.email);
    kv.set("users/" + id.toString(), created.toString());
    respond(201, created);
  },
);
