// POST /api/notes: stores a note. It needs a bearer token and an
// Idempotency-Key.
import { Contract, DB, JSONValue, Request, Schema, endpoint, respond, setHeader } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract()
    .summary("Create a note")
    .tag("notes")
    .body(Schema.object().property("text", Schema.string().minLength(1).maxLength(200).description("The note.")).additionalProperties(false))
    .response(201, "The new note", Schema.object().property("id", Schema.integer()).property("text", Schema.string()))
    .responseHeader(201, "Location", Schema.string().description("The new note's URL"))
    .idempotent(true)
    .security("bearer"),
  (req: Request): void => {
    const text = req.body()!.get("text")!.asString();
    const db = new DB("main");
    const rows = db.query("INSERT INTO notes (text) VALUES ($1) RETURNING id", [JSONValue.str(text)]);
    if (rows == null) throw new Error(db.error!.toString());
    const id = rows.at(0).getInt("id");
    setHeader("Location", "/api/notes/" + id.toString());
    respond(201, JSONValue.object().set("id", JSONValue.int(id)).set("text", JSONValue.str(text)));
  },
);
