// GET /api/users/:id - the AssemblyScript twin of the Go example's endpoint
// (examples/users): the same contract, users and answers, read from the
// app's database.
import { Contract, JSONValue, Request, Schema, endpoint, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

import { NotFound, User, db, storeFailure, userOf } from "../../../lib/users";

endpoint(
  new Contract()
    .summary("Get a user")
    .tag("users")
    .param("id", Schema.integer().minimum(1).description("The user's id."))
    .response(200, "The user", Schema.ref("User"))
    .response(404, "No such user", Schema.ref("NotFound"))
    .def("User", User)
    .def("NotFound", NotFound),
  (req: Request): void => {
    // The host validated and coerced the id: an integer ≥ 1.
    const id = req.paramInt("id");
    const users = db();
    const rows = users.query("SELECT id, name, email FROM users WHERE id = $1", [JSONValue.int(id)]);
    if (rows == null) {
      storeFailure(users.error!);
      return;
    }
    if (rows.length == 0) {
      respond(404, JSONValue.object().set("message", JSONValue.str("user " + id.toString() + " not found")));
      return;
    }
    respond(200, userOf(rows.at(0)));
  },
);
