//! What the users routes share: the schemas of their answers and the seed
//! users. Route sources live under server/; shared code lives outside it and
//! each route includes it with `#[path = "../../../lib/users.rs"] mod users;`.

// Each route uses part of this file.
#![allow(dead_code)]

use endpoints::{Json, Schema};

/// How many seed users there are: created users get the ids after them.
pub const SEED_USERS: i64 = 3;

/// A user, as every users route answers it.
pub fn user_schema() -> Schema {
    Schema::object()
        .property("id", Schema::integer())
        .property("name", Schema::string())
        .property("email", Schema::string().format("email"))
        .additional_properties(false)
}

/// The body of a 404.
pub fn not_found_schema() -> Schema {
    Schema::object().property("message", Schema::string()).additional_properties(false)
}

/// The JSON of a user.
pub fn user(id: i64, name: &str, email: &str) -> Json {
    Json::object().set("id", id).set("name", name).set("email", email)
}

/// The seed user id, if there is one: the same three as the Go, C and
/// AssemblyScript twins.
pub fn seed_user(id: i64) -> Option<Json> {
    match id {
        1 => Some(user(1, "Ada Lovelace", "ada@example.com")),
        2 => Some(user(2, "Grace Hopper", "grace@example.com")),
        3 => Some(user(3, "Alan Turing", "alan@example.com")),
        _ => None,
    }
}
