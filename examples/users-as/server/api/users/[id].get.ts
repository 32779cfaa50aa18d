// GET /api/users/:id - the AssemblyScript twin of the Go example's endpoint
// (examples/users): the same contract, seed users and answers.
import { Contract, JSONValue, Request, Schema, endpoint, kv, respond, write } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

import { NotFound, seedUser, User } from "../../../lib/users";

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
    const seed = seedUser(id);
    if (seed != null) {
      respond(200, seed);
      return;
    }
    // Users created with POST /api/users live in the app's store.
    const stored = kv.get("users/" + id.toString());
    if (stored != null) {
      write(stored); // stored as the JSON of a User; 200 is the default status
      return;
    }
    respond(404, JSONValue.object().set("message", JSONValue.str("user " + id.toString() + " not found")));
  },
);
