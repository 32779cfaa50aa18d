// GET /api/notes?limit=: the first notes, oldest first.
import { Contract, DB, JSONValue, Request, Schema, endpoint, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract()
    .summary("List notes")
    .tag("notes")
    .query("limit", Schema.integer().minimum(1).maximum(100).defaultValue(JSONValue.int(10)).description("How many notes to answer."))
    .response(200, "The notes", Schema.object().property("notes", Schema.array(Schema.object().property("id", Schema.integer()).property("text", Schema.string())))),
  (req: Request): void => {
    const limit = req.query("limit")!.asInt();
    const db = new DB("main");
    const rows = db.query("SELECT id, text FROM notes ORDER BY id LIMIT $1", [JSONValue.int(limit)]);
    if (rows == null) throw new Error(db.error!.toString());
    const notes = JSONValue.array();
    for (let i = 0; i < rows.length; i++) {
      const r = rows.at(i);
      notes.push(JSONValue.object().set("id", JSONValue.int(r.getInt("id"))).set("text", JSONValue.str(r.getString("text"))));
    }
    respond(200, JSONValue.object().set("notes", notes));
  },
);
