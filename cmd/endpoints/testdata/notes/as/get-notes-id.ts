// GET /api/notes/:id: one note, or 404.
import { Contract, DB, JSONValue, Request, Schema, endpoint, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract()
    .summary("Get a note")
    .tag("notes")
    .param("id", Schema.integer().minimum(1).description("The note's id."))
    .response(200, "The note", Schema.object().property("id", Schema.integer()).property("text", Schema.string()))
    .response(404, "No such note", Schema.object().property("message", Schema.string())),
  (req: Request): void => {
    const id = req.paramInt("id");
    const db = new DB("main");
    const rows = db.query("SELECT id, text FROM notes WHERE id = $1", [JSONValue.int(id)]);
    if (rows == null) throw new Error(db.error!.toString());
    if (rows.length == 0) {
      respond(404, JSONValue.object().set("message", JSONValue.str("note " + id.toString() + " not found")));
      return;
    }
    const r = rows.at(0);
    respond(200, JSONValue.object().set("id", JSONValue.int(r.getInt("id"))).set("text", JSONValue.str(r.getString("text"))));
  },
);
