//! DELETE /api/notes/:id: removes a note (204), or 404. It needs a bearer
//! token.

use endpoints::db::{Db, DbError};
use endpoints::{endpoint, respond, set_status, Contract, Json, Request, Schema};

fn contract() -> Contract {
    Contract::new()
        .summary("Delete a note")
        .tag("notes")
        .param("id", Schema::integer().minimum(1).description("The note's id."))
        .response(204, "Deleted", None)
        .response(404, "No such note", Some(Schema::object().property("message", Schema::string())))
        .security("bearer", &[])
}

fn handle(req: &Request) -> Result<(), DbError> {
    let id = req.param_i64("id");
    if Db::new("main").exec("DELETE FROM notes WHERE id = $1", &[id.into()])?.rows_affected == 0 {
        respond(404, &Json::object().set("message", format!("note {} not found", id)))?;
    } else {
        set_status(204)?;
    }
    Ok(())
}

endpoint!(contract(), handle);
