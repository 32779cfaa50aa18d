//! POST /api/users - creates a user. The host validated the body against
//! the contract, so the handler reads name and email without checking them.

use endpoints::db::DbError;
use endpoints::{endpoint, respond, Contract, Json, Request, Schema};

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

/// Takes the next id from the users counter (atomic on SQLite and
/// PostgreSQL alike, so concurrent creates on any number of hosts get
/// distinct ids) and stores the user under it.
fn create(name: &str, email: &str) -> Result<Json, DbError> {
    let db = users::db();
    let id = db
        .query_row("UPDATE counters SET value = value + 1 WHERE name = $1 RETURNING value", &["users".into()])?
        .map(|row| row.get_i64(0))
        .transpose()?
        .expect("001-users.sql creates the users counter");
    db.exec("INSERT INTO users (id, name, email) VALUES ($1, $2, $3)", &[id.into(), name.into(), email.into()])?;
    Ok(users::user(id, name, email))
}

fn handle(req: &Request) -> Result<(), DbError> {
    let body = req.body().expect("the contract requires a body");
    match create(body["name"].as_str().unwrap_or(""), body["email"].as_str().unwrap_or("")) {
        Ok(created) => respond(201, &created)?,
        Err(e) => users::store_failure(&e)?,
    }
    Ok(())
}

endpoint!(contract(), handle);
