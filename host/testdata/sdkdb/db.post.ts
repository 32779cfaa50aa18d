// The AssemblyScript half of TestSDKDatabases: a plain route that runs the
// database operation its x-op header names with the SDK's DB class.
import { DB, DBError, Isolation, JSONValue, Request, TxOptions, base64Decode, blob, plainRoute, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

function hex(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += (b[i] < 16 ? "0" : "") + b[i].toString(16);
  return s;
}

function failure(e: DBError): JSONValue {
  return JSONValue.object().set("code", JSONValue.str(e.code))
    .set("constraint", e.constraint == "" ? JSONValue.null() : JSONValue.str(e.constraint))
    .set("kind", e.kind == "" ? JSONValue.null() : JSONValue.str(e.kind))
    .set("detail", e.detail == "" ? JSONValue.null() : JSONValue.str(e.detail));
}

// refused answers a constraint error by its kind: 409 for a unique
// violation, 422 for another (a foreign key naming a missing row).
function refused(e: DBError): void {
  assert(e.code == "constraint", e.toString());
  respond(e.kind == "unique" ? 409 : 422, failure(e));
}

// What the transaction's function reads and fills: AssemblyScript functions
// capture no locals, so transactionWith passes it.
class Tx {
  constructor(public name: string, public fail: bool, public score: f64 = 0) {}
}

function inTxWith(tx: DB, t: Tx): bool {
  const p = [JSONValue.str(t.name)];
  if (tx.exec("INSERT INTO users (name) VALUES ($1)", p) == null) return false;
  if (tx.exec("UPDATE users SET score = (SELECT count(*) FROM users) WHERE name = $1", p) == null) return false;
  if (t.fail) return false;
  const rows = tx.query("SELECT score FROM users WHERE name = $1", p);
  if (rows == null || rows.length != 1) return false;
  t.score = rows.at(0).getFloat("score");
  return true;
}

// transaction's function, which reads a global instead.
let failing = new Tx("", true);

function inTx(tx: DB): bool {
  return inTxWith(tx, failing);
}

// What the read-only transaction's function counts.
class Count {
  users: i64 = -1;
}

// inReadOnly counts the users, then tries a write, which the read-only
// transaction refuses.
function inReadOnly(tx: DB, c: Count): bool {
  const row = tx.queryRow("SELECT count(*) AS n FROM users");
  if (row == null) return false;
  c.users = row.getInt("n");
  return tx.exec("INSERT INTO users (name) VALUES ('Nobody')") != null;
}

// What the serializable transaction's function reads.
class Level {
  name: string = "";
}

function inSerializable(tx: DB, l: Level): bool {
  const row = tx.queryRow("SELECT current_setting('transaction_isolation') AS l");
  if (row == null) return false;
  l.name = row.getString("l");
  return true;
}

plainRoute((req: Request): void => {
  const db = new DB("main");
  const op = req.header("x-op");
  const nameHeader = req.header("x-name");
  const name = nameHeader == null ? "" : nameHeader!;
  let answer = JSONValue.object();
  if (op == "list") {
    const rows = db.query("SELECT id, name, score, avatar FROM users WHERE id >= $1 ORDER BY id", [JSONValue.int(1)]);
    assert(rows != null, db.error != null ? db.error!.toString() : "");
    answer = JSONValue.array();
    for (let i = 0; i < rows!.length; i++) {
      const r = rows!.at(i);
      answer.push(JSONValue.object()
        .set("id", JSONValue.int(r.getInt("id")))
        .set("name", JSONValue.str(r.getString("name")))
        .set("score", r.isNull("score") ? JSONValue.null() : JSONValue.float(r.getFloat("score")))
        .set("avatar", r.isNull("avatar") ? JSONValue.null() : JSONValue.str(hex(r.getBlob("avatar")))));
    }
  } else if (op == "add") {
    // The avatar arrives as base64 text, as a JSON body carries bytes; it
    // is bound as a blob.
    const header = req.header("x-avatar");
    const avatar = base64Decode(header == null ? "" : header!);
    if (avatar == null) {
      respond(400, JSONValue.object().set("message", JSONValue.str("avatar is not base64")));
      return;
    }
    const res = db.exec("INSERT INTO users (name, score, avatar) VALUES ($1, $2, $3)", [JSONValue.str(name), JSONValue.float(2.25), blob(avatar!)]);
    if (res == null) {
      refused(db.error!);
      return;
    }
    answer.set("rowsAffected", JSONValue.int(res.rowsAffected)).set("lastInsertId", JSONValue.int(res.lastInsertId));
  } else if (op == "tx") {
    // A commit through transactionWith, a rollback through transaction.
    const t = new Tx(name, false);
    failing = new Tx(name, true);
    if (req.header("x-fail") == null ? db.transactionWith<Tx>(t, inTxWith) : db.transaction(inTx)) {
      answer.set("committed", JSONValue.boolean(true)).set("score", JSONValue.float(t.score));
    } else {
      answer.set("committed", JSONValue.boolean(false)).set("why", JSONValue.str(db.error == null ? "host" : db.error!.code));
    }
  } else if (op == "half") {
    const row = db.queryRow("SELECT $1 / 2 AS h", [JSONValue.float(3.0)]);
    assert(row != null, db.error != null ? db.error!.toString() : "no row");
    answer.set("h", JSONValue.float(row!.getFloat("h")));
  } else if (op == "one") {
    // queryRow: the first row, or null with error null when there is none,
    // or null with the error when the statement failed.
    const first = db.queryRow("SELECT name FROM users WHERE id >= $1 ORDER BY id", [JSONValue.int(2)]);
    const none = db.queryRow("SELECT name FROM users WHERE id < 0");
    const noneError = db.error;
    const failed = db.queryRow("SELECT nope FROM users");
    answer.set("first", JSONValue.str(first!.getString("name")))
      .set("none", JSONValue.boolean(none == null && noneError == null))
      .set("failed", JSONValue.str(failed == null && db.error != null ? db.error!.code : "?"));
  } else if (op == "numeric") {
    // PostgreSQL's numeric (sum(), avg()) arrives as its exact decimal's
    // text, as these do.
    const rows = db.query("SELECT CAST(9007199254740993 AS TEXT) AS total, '12.50' AS mean");
    assert(rows != null && rows.length == 1, db.error != null ? db.error!.toString() : "no row");
    answer.set("total", JSONValue.int(rows!.at(0).getInt("total"))).set("mean", JSONValue.float(rows!.at(0).getFloat("mean")));
  } else if (op == "orphan") {
    // A tag of a user that does not exist: the foreign key refuses it.
    const res = db.exec("INSERT INTO tags (user_id) VALUES ($1)", [JSONValue.int(99)]);
    if (res == null) {
      refused(db.error!);
      return;
    }
    answer.set("rowsAffected", JSONValue.int(res.rowsAffected));
  } else if (op == "bad") {
    if (db.query("SELEC name FROM users") == null) answer = failure(db.error!);
  } else if (op == "readonly") {
    const c = new Count();
    const ok = db.transactionWith<Count>(c, inReadOnly, new TxOptions(Isolation.DEFAULT, true));
    answer.set("users", JSONValue.int(c.users)).set("write", JSONValue.str(ok ? "committed" : db.error!.code));
  } else if (op == "isolation") {
    const l = new Level();
    assert(db.transactionWith<Level>(l, inSerializable, new TxOptions(Isolation.SERIALIZABLE)), db.error != null ? db.error!.toString() : "");
    answer.set("isolation", JSONValue.str(l.name));
  } else if (op == "badopts") {
    const ok = db.begin(new TxOptions("snapshot"));
    // The host's message says which option it refused.
    answer.set("errno", JSONValue.int(ok ? 0 : db.error!.errno)).set("says", JSONValue.boolean(!ok && db.error!.message.includes("isolation \"snapshot\" is not a level")));
  } else if (op == "badparams") {
    // More parameters than any statement takes: the host refuses them
    // with its reason, and the SDK sends them at once (linear, not
    // quadratic, in their number).
    const many = new Array<JSONValue>();
    const nul = JSONValue.null();
    for (let i = 0; i < 65536; i++) many.push(nul);
    const ok = db.query("SELECT 1", many) != null;
    answer.set("errno", JSONValue.int(ok ? 0 : db.error!.errno)).set("says", JSONValue.boolean(!ok && db.error!.message.includes("more than 65535 parameters")));
  } else if (op == "many") {
    // An ordinary statement of 16000 parameters (SQLite takes 32766).
    const n = 16000;
    const params = new Array<JSONValue>();
    for (let i = 0; i < n; i++) params.push(JSONValue.int(i));
    const rows = db.query("SELECT count(*) AS n, sum(column1) AS s FROM (VALUES " + "(?),".repeat(n - 1) + "(?))", params);
    assert(rows != null, db.error != null ? db.error!.toString() : "");
    answer.set("n", JSONValue.int(rows!.at(0).getInt("n"))).set("sum", JSONValue.int(rows!.at(0).getInt("s")));
  } else if (op == "nodb") {
    const other = new DB("other");
    if (other.query("SELECT 1") == null) answer = failure(other.error!);
  }
  respond(200, answer);
});
