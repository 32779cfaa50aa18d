//! POST /api/users - creates a user. The host validated the body against
//! the contract, so the handler reads name and email without checking them.

use endpoints::{endpoint, kv, respond, Contract, Errno, Request, Schema};

#[path = "../../../lib/users.rs"]
mod users;

fn contract() -> Contract {
    Contract::new()
        .summary("Create a user")
        .tag("users")
        .body(
            Schema::object()
                .property("name", Schema::string().min_length(1))
                .property("email", Schema::string().format("email"))
                .additional_properties(false),
        )
        .response(201, "The new user", Some(Schema::reference("User")))
        .def("User", users::user_schema())
}

fn handle(req: &Request) -> Result<(), Errno> {
    let body = req.body().expect("the contract requires a body");
    // Atomic across hosts when the store is Redis.
    let id = users::SEED_USERS + kv::incr("users/next-id", 1)?;
    let created = users::user(id, body["name"].as_str().unwrap_or(""), body["email"].as_str().unwrap_or(""));
    kv::set(&format!("users/{}", id), created.to_string(), 0)?;
    respond(201, &created)
}

endpoint!(contract(), handle);
