//! GET /api/users/:id - the Rust twin of the Go example's endpoint
//! (examples/users): the same contract, users and answers, read from the
//! app's database.

use endpoints::db::DbError;
use endpoints::{endpoint, respond, Contract, Json, Request, Schema};

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

fn handle(req: &Request) -> Result<(), DbError> {
    // The host validated and coerced the id: an integer ≥ 1.
    let id = req.param_i64("id");
    let found = users::db()
        .query_row("SELECT id, name, email FROM users WHERE id = $1", &[id.into()])
        .and_then(|row| row.as_ref().map(users::user_of).transpose());
    match found {
        Ok(Some(user)) => respond(200, &user)?,
        Ok(None) => respond(404, &Json::object().set("message", format!("user {} not found", id)))?,
        Err(e) => users::store_failure(&e)?,
    }
    Ok(())
}

endpoint!(contract(), handle);
