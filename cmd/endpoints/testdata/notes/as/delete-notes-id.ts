// DELETE /api/notes/:id: removes a note (204), or 404. It needs a bearer
// token.
import { Contract, DB, JSONValue, Request, Schema, endpoint, respond, setStatus } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract()
    .summary("Delete a note")
    .tag("notes")
    .param("id", Schema.integer().minimum(1).description("The note's id."))
    .response(204, "Deleted")
    .response(404, "No such note", Schema.object().property("message", Schema.string()))
    .security("bearer"),
  (req: Request): void => {
    const id = req.paramInt("id");
    const db = new DB("main");
    const res = db.exec("DELETE FROM notes WHERE id = $1", [JSONValue.int(id)]);
    if (res == null) throw new Error(db.error!.toString());
    if (res.rowsAffected == 0) {
      respond(404, JSONValue.object().set("message", JSONValue.str("note " + id.toString() + " not found")));
      return;
    }
    setStatus(204);
  },
);
