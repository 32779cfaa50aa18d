//! POST /api/notes: stores a note. It needs a bearer token and an
//! Idempotency-Key.

use endpoints::db::{Db, DbError};
use endpoints::{endpoint, respond, set_header, Contract, Json, Request, Schema};

fn contract() -> Contract {
    Contract::new()
        .summary("Create a note")
        .tag("notes")
        .body(
            Schema::object()
                .property("text", Schema::string().min_length(1).max_length(200).description("The note."))
                .additional_properties(false),
        )
        .response(
            201,
            "The new note",
            Some(Schema::object().property("id", Schema::integer()).property("text", Schema::string())),
        )
        .response_header(201, "Location", Schema::string().description("The new note's URL"))
        .idempotent(true)
        .security("bearer", &[])
}

fn handle(req: &Request) -> Result<(), DbError> {
    let body = req.body().expect("the contract requires a body");
    let text = body.get("text").and_then(|t| t.as_str()).expect("the contract requires a text");
    let id = Db::new("main")
        .query_row("INSERT INTO notes (text) VALUES ($1) RETURNING id", &[text.into()])?
        .expect("INSERT ... RETURNING answers one row")
        .get_i64("id")?;
    set_header("Location", &format!("/api/notes/{}", id))?;
    respond(201, &Json::object().set("id", id).set("text", text))?;
    Ok(())
}

endpoint!(contract(), handle);
