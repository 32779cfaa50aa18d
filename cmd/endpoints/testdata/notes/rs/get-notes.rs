//! GET /api/notes?limit=: the first notes, oldest first.

use endpoints::db::{Db, DbError};
use endpoints::{endpoint, respond, Contract, Json, Request, Schema};

fn note_schema() -> Schema {
    Schema::object().property("id", Schema::integer()).property("text", Schema::string())
}

fn contract() -> Contract {
    Contract::new()
        .summary("List notes")
        .tag("notes")
        .query(
            "limit",
            Schema::integer().minimum(1).maximum(100).default_value(10).description("How many notes to answer."),
            false,
        )
        .response(200, "The notes", Some(Schema::object().property("notes", Schema::array(note_schema()))))
}

fn handle(req: &Request) -> Result<(), DbError> {
    let limit = req.query_i64("limit").expect("the contract gives limit a default");
    let rows = Db::new("main").query("SELECT id, text FROM notes ORDER BY id LIMIT $1", &[limit.into()])?;
    let mut notes = Json::array();
    for row in rows.iter() {
        notes.push(Json::object().set("id", row.get_i64("id")?).set("text", row.get_str("text")?));
    }
    respond(200, &Json::object().set("notes", notes))?;
    Ok(())
}

endpoint!(contract(), handle);
