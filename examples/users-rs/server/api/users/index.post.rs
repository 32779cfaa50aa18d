//! POST /api/users - creates a user. The host validated the body against
//! the contract, so the handler decodes it into a NewUser without checking
//! it.

use endpoints::db::DbError;
use endpoints::{endpoint, respond, Contract, DecodeError, FromJson, Json, Request, Schema};

#[path = "../../../lib/users.rs"]
mod users;

fn contract() -> Contract {
    Contract::new()
        .summary("Create a user")
        .tag("users")
        .body_description("The user to create.")
        .body(
            Schema::object()
                .description("A user to create: the service gives the id.")
                .property("name", Schema::string().min_length(1).description("Full name.").example("Ada Lovelace"))
                .property("email", Schema::string().format("email").description("Contact address.").example("ada@example.com"))
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
    let new: NewUser = match req.body_as() {
        Some(Ok(new)) => new,
        // The contract requires a body of NewUser's schema.
        other => panic!("the body is not a NewUser: {:?}", other.map(|r| r.err())),
    };
    match create(&new.name, &new.email) {
        Ok(created) => respond(201, &created)?,
        Err(e) => users::store_failure(&e)?,
    }
    Ok(())
}

endpoint!(contract(), handle);
