//! POST /api/users - creates a user. The host validated the body against
//! the contract, so the handler decodes it into a NewUser without checking
//! it.

use endpoints::{endpoint, kv, respond, Contract, DecodeError, Errno, FromJson, Json, Request, Schema};

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

/// The body the contract declares.
struct NewUser {
    name: String,
    email: String,
}

impl FromJson for NewUser {
    fn from_json(v: &Json) -> Result<NewUser, DecodeError> {
        Ok(NewUser { name: v.field("name")?, email: v.field("email")? })
    }
}

fn handle(req: &Request) -> Result<(), Errno> {
    let new: NewUser = match req.body_as() {
        Some(Ok(new)) => new,
        // The contract requires a body of NewUser's schema.
        other => panic!("the body is not a NewUser: {:?}", other.map(|r| r.err())),
    };
    // Atomic across hosts when the store is Redis.
    let id = users::SEED_USERS + kv::incr("users/next-id", 1)?;
    let created = users::user(id, &new.name, &new.email);
    kv::set(&format!("users/{}", id), created.to_string(), 0)?;
    respond(201, &created)
}

endpoint!(contract(), handle);
