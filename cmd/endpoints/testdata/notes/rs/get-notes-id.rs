//! GET /api/notes/:id: one note, or 404.

use endpoints::db::{Db, DbError};
use endpoints::{endpoint, respond, Contract, Json, Request, Schema};

fn contract() -> Contract {
    Contract::new()
        .summary("Get a note")
        .tag("notes")
        .param("id", Schema::integer().minimum(1).description("The note's id."))
        .response(
            200,
            "The note",
            Some(Schema::object().property("id", Schema::integer()).property("text", Schema::string())),
        )
        .response(404, "No such note", Some(Schema::object().property("message", Schema::string())))
}

fn handle(req: &Request) -> Result<(), DbError> {
    let id = req.param_i64("id");
    match Db::new("main").query_row("SELECT id, text FROM notes WHERE id = $1", &[id.into()])? {
        Some(row) => respond(200, &Json::object().set("id", row.get_i64("id")?).set("text", row.get_str("text")?))?,
        None => respond(404, &Json::object().set("message", format!("note {} not found", id)))?,
    }
    Ok(())
}

endpoint!(contract(), handle);
