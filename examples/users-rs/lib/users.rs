//! What the users routes share: the schemas of their answers and reading
//! users from the app's database. Route sources live under server/; shared
//! code lives outside it and each route includes it with
//! `#[path = "../../../lib/users.rs"] mod users;`.

// Each route uses part of this file.
#![allow(dead_code)]

use endpoints::db::{Code, Db, DbError, Row};
use endpoints::{respond, Json, Schema};

/// The app's database: "main", which endpoints.json does not declare, so
/// the host keeps it as an SQLite file under the app, or wherever
/// ENDPOINTS_DATABASES_MAIN_* point it. server/migrations/001-users.sql
/// creates the users table and the seed users 1, 2 and 3.
pub fn db() -> Db {
    Db::new("main")
}

/// A user, as every users route answers it.
pub fn user_schema() -> Schema {
    Schema::object()
        .description("A user of the service.")
        .property("id", Schema::integer().description("The user's id.").example(1i64))
        .property("name", Schema::string().description("Full name.").example("Ada Lovelace"))
        .property("email", Schema::string().format("email").description("Contact address.").example("ada@example.com"))
        .additional_properties(false)
}

/// The body of a 404.
pub fn not_found_schema() -> Schema {
    Schema::object()
        .description("No user has the id asked for.")
        .property("message", Schema::string().description("Which id was asked for.").example("user 9 not found"))
        .additional_properties(false)
}

/// The JSON of a user.
pub fn user(id: i64, name: &str, email: &str) -> Json {
    Json::object().set("id", id).set("name", name).set("email", email)
}

/// The JSON of a row of `SELECT id, name, email FROM users`.
pub fn user_of(row: &Row) -> Result<Json, DbError> {
    Ok(user(row.get_i64("id")?, row.get_str("name")?, row.get_str("email")?))
}

/// Answers a failed database call as the Go twin does: 503 when the
/// database cannot be reached or stays busy (locked past its busy
/// timeout), 500 otherwise, each logged.
pub fn store_failure(e: &DbError) -> Result<(), DbError> {
    endpoints::log::error(&format!("the users store failed: {}", e));
    if e.code == Code::Unavailable || e.code == Code::Busy {
        respond(503, &Json::object().set("statusCode", 503).set("statusMessage", "Service Unavailable"))?;
    } else {
        respond(500, &Json::object().set("statusCode", 500).set("statusMessage", "Internal Server Error"))?;
    }
    Ok(())
}
