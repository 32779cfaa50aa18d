//! GET /api/users/:id - the Rust twin of the Go example's endpoint
//! (examples/users): the same contract, seed users and answers.

use endpoints::{endpoint, kv, respond, write, Contract, Errno, Json, Request, Schema};

#[path = "../../../lib/users.rs"]
mod users;

fn contract() -> Contract {
    Contract::new()
        .summary("Get a user")
        .tag("users")
        .param("id", Schema::integer().minimum(1).description("The user's id."))
        .response(200, "The user", Some(Schema::reference("User")))
        .response(404, "No such user", Some(Schema::reference("NotFound")))
        .def("User", users::user_schema())
        .def("NotFound", users::not_found_schema())
}

fn handle(req: &Request) -> Result<(), Errno> {
    // The host validated and coerced the id: an integer ≥ 1.
    let id = req.param_i64("id");
    if let Some(seed) = users::seed_user(id) {
        return respond(200, &seed);
    }
    // Users created with POST /api/users live in the app's store.
    if let Some(stored) = kv::get(&format!("users/{}", id))? {
        return write(stored); // stored as the JSON of a User; 200 is the default status
    }
    respond(404, &Json::object().set("message", format!("user {} not found", id)))
}

endpoint!(contract(), handle);
