// The AssemblyScript route of TestSDKDatabaseOutage: a plain route that
// runs the statement of its x-sql header on the database main and throws
// when it fails.
import { DB, Request, plainRoute, write } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

plainRoute((req: Request): void => {
  const db = new DB("main");
  const sql = req.header("x-sql");
  const rows = db.query(sql != null ? sql! : "");
  if (rows == null) throw new Error(db.error!.toString());
  write("up");
});
