// The app's databases (ABI §3 "Databases"): SQLite embedded by default,
// PostgreSQL when endpoints.json says so. Statements take bound parameters
// (JSONValues; blob() for bytes) and return typed rows:
//
//     const db = new DB("main");
//     const rows = db.query("SELECT id, name FROM users WHERE id = $1", [JSONValue.int(id)]);
//     if (rows == null) { ... db.error!.code ... }
//     else if (rows.length == 0) { ... 404 ... }
//     else respond(200, JSONValue.object().set("name", JSONValue.str(rows.at(0).getString("name"))));
//
// AssemblyScript has no exceptions a handler can catch, so a failed
// statement returns null and leaves its DBError in db.error; a handler
// answers 503 for an "unavailable" code, and for a "constraint" code what
// its kind says: 409 for "unique", 404 or 422 for "foreign_key" (a row
// naming one that does not exist), 422 for "check" and "not_null".

import * as host from "./host";
import { Value, Kind, Writer, parse, parseError } from "./json";

@external("endpoints", "db_query")
declare function db_query(db: usize, dbLen: i32, sql: usize, sqlLen: i32, params: usize, paramsLen: i32): i32;

@external("endpoints", "db_exec")
declare function db_exec(db: usize, dbLen: i32, sql: usize, sqlLen: i32, params: usize, paramsLen: i32): i32;

@external("endpoints", "db_result")
declare function db_result(buf: usize, bufLen: i32): i32;

@external("endpoints", "db_begin")
declare function db_begin(db: usize, dbLen: i32): i32;

@external("endpoints", "db_begin_with")
declare function db_begin_with(db: usize, dbLen: i32, opts: usize, optsLen: i32): i32;

@external("endpoints", "db_commit")
declare function db_commit(db: usize, dbLen: i32): i32;

@external("endpoints", "db_rollback")
declare function db_rollback(db: usize, dbLen: i32): i32;

@external("endpoints", "db_timeout")
declare function db_timeout(timeoutMs: i32): i32;

/**
 * Bounds each later statement of the call, on any database (a query, an
 * exec, a begin or a commit), to timeoutMs milliseconds from its start,
 * below the call's deadline (ABI §4.5, db_timeout); 0 lifts it. A
 * statement past it is stopped in the database and fails with the code
 * "timeout", and the handler goes on. Returns 0, or -2 for a timeout below
 * 0 or past 3600000.
 *
 *     statementTimeout(300);
 *     const rows = main.query("SELECT month, total FROM monthly_report", []);
 *     statementTimeout(0);
 *     if (rows == null && main.error!.code == "timeout") { ... a fallback ... }
 */
export function statementTimeout(timeoutMs: i32): i32 {
  return db_timeout(timeoutMs);
}

/** ErrDatabase (-8): the database refused or failed the statement. */
const ERR_DATABASE: i32 = -8;

/**
 * Why a database call failed. code is the ABI's: "constraint" (a unique,
 * foreign key, check or not-null constraint; kind says which), "syntax", "busy",
 * "unavailable" (answer 503), "too_large", "denied", "transaction",
 * "timeout" (past statementTimeout; the handler goes on), "other"; or
 * "host" when the host refused the call before any database saw it (errno
 * says why: -1 the app declares no such database, -2 parameters that are
 * not a JSON array of values or transaction options the host does not
 * know, the message then the host's reason, -6 outside a request).
 * Members the host adds to errors come last, with a default (as detail
 * did), so that new DBError(database, code, message) keeps compiling.
 */
export class DBError {
  constructor(
    /** The database the call named. */
    public database: string,
    /** What kind of failure it is (see the class). */
    public code: string,
    /** What the database (or the host) said. */
    public message: string,
    /** The constraint that refused the change, when the database names
     * it (PostgreSQL: users_email_key; SQLite: users.email); "" when not. */
    public constraint: string = "",
    /** The host function's errno: -8 for a database failure. */
    public errno: i32 = ERR_DATABASE,
    /** Which constraint refused the change, when the database says:
     * "unique" (a primary key too: answer 409), "foreign_key" (a row
     * naming one that does not exist: 404 or 422), "check" or "not_null"
     * (422), "exclusion" (PostgreSQL only: 409); "" when it does not. */
    public kind: string = "",
    /** The database's detail of the failure, as the server sent it:
     * PostgreSQL's DETAIL ("Key (email)=(ada@example.com) already
     * exists."), for any code; "" when there is none (SQLite never gives
     * one). For a person (a log line, a 409's message), in the server's
     * words and language: act on code, kind and constraint. toString
     * leaves it out; the host never logs it (abi/README.md §4.5). */
    public detail: string = "",
  ) {}

  /** database "main": constraint: UNIQUE constraint failed: users.name (users.name) */
  toString(): string {
    const s = "database \"" + this.database + "\": " + this.code + ": " + this.message;
    return this.constraint == "" ? s : s + " (" + this.constraint + ")";
  }
}

/** What DB.exec changed. */
export class ExecResult {
  /** The rows inserted, updated or deleted. */
  rowsAffected: i64 = 0;
  /** The rowid of the last insert on SQLite (hasLastInsertId); PostgreSQL
   * has none: say INSERT ... RETURNING id and use DB.query. */
  lastInsertId: i64 = 0;
  hasLastInsertId: bool = false;
}

/**
 * One row of a result. Its getters name a column and abort (the host
 * answers 500 and logs why) when the result has no such column or it holds
 * a value of another type, NULL included: test isNull first for a column
 * that may be NULL.
 */
export class Row {
  constructor(
    /** The result's column names, in order. */
    public columns: Array<string>,
    /** The values as the host sent them: integers exact, reals numbers,
     * text and blobs (base64) strings, NULL null. */
    public values: Array<Value>,
  ) {}

  /** Column name's value as JSON. */
  value(name: string): Value {
    const i = this.columns.indexOf(name);
    assert(i >= 0, "database: the result has no column \"" + name + "\"; its columns are " + this.columns.join(", "));
    return this.values[i];
  }

  /** Whether column name is NULL. */
  isNull(name: string): bool {
    return this.value(name).isNull;
  }

  /** Column name as an integer, exact (beyond 2^53 too); text holding
   * one reads too (PostgreSQL's numeric, which sum() of a bigint column
   * returns, arrives as its exact decimal's text). */
  getInt(name: string): i64 {
    const v = this.value(name);
    const n = numberText(v);
    assert(n != null && isInteger(n) && fitsI64(n), "database: column \"" + name + "\" holds " + v.toString() + ", not an integer that fits i64");
    const num = new Value();
    num.kind = Kind.Number;
    num.number = n!;
    return num.asInt();
  }

  /** Column name as a number (an integer or a real); text holding one
   * reads too (PostgreSQL's numeric: "12.50", avg() of integers). */
  getFloat(name: string): f64 {
    const v = this.value(name);
    const n = numberText(v);
    assert(n != null, "database: column \"" + name + "\" holds " + v.toString() + ", not a number");
    return parseFloat(n!);
  }

  /** Column name as a boolean: PostgreSQL's true/false, SQLite's 1/0. */
  getBool(name: string): bool {
    const v = this.value(name);
    if (v.kind == Kind.Bool) return v.bool;
    assert(v.kind == Kind.Number && (v.number == "0" || v.number == "1"), "database: column \"" + name + "\" holds " + v.toString() + ", not a boolean");
    return v.number == "1";
  }

  /** Column name as text. */
  getString(name: string): string {
    const v = this.value(name);
    assert(v.kind == Kind.String, "database: column \"" + name + "\" holds " + v.toString() + ", not text");
    return v.str;
  }

  /** Column name as a blob's bytes (base64 on the wire). */
  getBlob(name: string): Uint8Array {
    const b = base64Decode(this.getString(name));
    assert(b != null, "database: column \"" + name + "\" is not a blob (base64 text)");
    return b!;
  }
}

/** The rows of DB.query, read whole. */
export class Rows {
  constructor(
    /** The column names, in order. */
    public columns: Array<string>,
    /** The rows, in order. */
    public rows: Array<Row>,
  ) {}

  /** The number of rows. */
  get length(): i32 {
    return this.rows.length;
  }

  /** Row i. */
  at(i: i32): Row {
    return this.rows[i];
  }
}

/** A blob parameter ({"$blob": base64}), for DB.query and DB.exec. */
export function blob(b: Uint8Array): Value {
  const v = Value.object().set("$blob", Value.str(base64Encode(b)));
  v.bytes = true;
  return v;
}

/**
 * One of the app's databases, by the name endpoints.json's "databases"
 * gives it ("main" when the app declares none: an SQLite file the host
 * keeps under the app). Statements are one SQL statement each; parameters
 * are bound, never interpolated ($1, $2... on SQLite and PostgreSQL; ? on
 * SQLite).
 */
export class DB {
  /** The failure of the last call that returned null or false; null after
   * one that worked. */
  error: DBError | null = null;

  constructor(public name: string) {}

  /** Runs a statement that returns rows; null when it failed (see error). */
  query(sql: string, params: Array<Value> = []): Rows | null {
    const r = this.run(sql, params, false);
    if (r == null) return null;
    const columns = r.get("columns");
    const rows = r.get("rows");
    if (columns == null || columns.kind != Kind.Array || rows == null || rows.kind != Kind.Array) {
      return this.fail<Rows>("the host's result has no columns or rows");
    }
    const names = new Array<string>();
    for (let i = 0; i < columns.items.length; i++) {
      if (columns.items[i].kind != Kind.String) return this.fail<Rows>("a column name is not a string");
      names.push(columns.items[i].str);
    }
    const out = new Array<Row>();
    for (let i = 0; i < rows.items.length; i++) {
      const row = rows.items[i];
      if (row.kind != Kind.Array || row.items.length != names.length) return this.fail<Rows>("a row does not have one value per column");
      out.push(new Row(names, row.items));
    }
    return new Rows(names, out);
  }

  /**
   * Runs a statement that returns at most one row that matters (as Rust's
   * query_row and Go's QueryRow do): its first row, or null when it has
   * none (error null: answer 404) or failed (error says why).
   *
   *     const r = db.queryRow("SELECT name FROM users WHERE id = $1", [JSONValue.int(id)]);
   *     if (r == null) {
   *       if (db.error != null) throw new Error(db.error!.toString());
   *       respond(404, JSONValue.object().set("message", JSONValue.str("no such user")));
   *       return;
   *     }
   */
  queryRow(sql: string, params: Array<Value> = []): Row | null {
    const rows = this.query(sql, params);
    if (rows == null || rows.length == 0) return null;
    return rows.at(0);
  }

  /** Runs a statement for its effect; null when it failed (see error). */
  exec(sql: string, params: Array<Value> = []): ExecResult | null {
    const r = this.run(sql, params, true);
    if (r == null) return null;
    const affected = r.get("rowsAffected");
    if (affected == null || affected.kind != Kind.Number) return this.fail<ExecResult>("the host's result has no rowsAffected");
    const res = new ExecResult();
    res.rowsAffected = affected.asInt();
    const id = r.get("lastInsertId");
    if (id != null && id.kind == Kind.Number) {
      res.lastInsertId = id.asInt();
      res.hasLastInsertId = true;
    }
    return res;
  }

  /**
   * Runs fn in a transaction: the statements fn runs on this database run
   * in it. It commits when fn returns true and rolls back when fn returns
   * false; it returns whether it committed (error says why not, when a
   * database call failed). A throw or a handler that returns without a
   * commit rolls back too: the host does it. fn captures nothing
   * (AssemblyScript has no closures): pass it the request's values with
   * transactionWith.
   *
   *     const ok = db.transaction((tx: DB): bool => {
   *       if (tx.exec("UPDATE accounts SET balance = balance - 10 WHERE id = 1") == null) return false;
   *       return tx.exec("UPDATE accounts SET balance = balance + 10 WHERE id = 2") != null;
   *     });
   */
  transaction(fn: (tx: DB) => bool, opts: TxOptions | null = null): bool {
    return this.transactionWith<(tx: DB) => bool>(fn, (tx: DB, f: (tx: DB) => bool): bool => f(tx), opts);
  }

  /**
   * Runs fn(tx, arg) in a transaction, as transaction does: arg carries
   * what fn needs from the handler (a value, or an object of several, which
   * fn may also fill with results), since fn cannot capture the handler's
   * locals.
   *
   *     class Transfer { constructor(public from: i64, public to: i64, public amount: i64) {} }
   *     const ok = db.transactionWith<Transfer>(new Transfer(1, 2, 10), (tx: DB, t: Transfer): bool => {
   *       if (tx.exec("UPDATE accounts SET balance = balance - $1 WHERE id = $2", [JSONValue.int(t.amount), JSONValue.int(t.from)]) == null) return false;
   *       return tx.exec("UPDATE accounts SET balance = balance + $1 WHERE id = $2", [JSONValue.int(t.amount), JSONValue.int(t.to)]) != null;
   *     });
   */
  transactionWith<T>(arg: T, fn: (tx: DB, arg: T) => bool, opts: TxOptions | null = null): bool {
    if (!this.begin(opts)) return false;
    if (!fn(this, arg)) {
      const why = this.error;
      this.rollback();
      this.error = why; // fn's failure is the one that matters
      return false;
    }
    return this.commit();
  }

  /** Opens a transaction for the rest of the call (prefer transaction),
   * with opts when given (db_begin_with); false when it failed (see
   * error: code "host" and errno -2, with the host's message, for options
   * it does not know). The default options (new TxOptions()) begin with
   * db_begin, as null does and the other SDKs do: db_begin_with refuses
   * to begin with less than 50 ms left before the call's deadline
   * (abi/README.md §4.5), db_begin does not. */
  begin(opts: TxOptions | null = null): bool {
    const d = host.utf8(this.name);
    if (opts == null || opts.isolation.length == 0 && !opts.readOnly) return this.check(db_begin(host.ptr(d), d.byteLength));
    const o = host.utf8(opts.toJSON());
    return this.check(db_begin_with(host.ptr(d), d.byteLength, host.ptr(o), o.byteLength));
  }

  /** Commits the open transaction; false when it failed (see error). */
  commit(): bool {
    const d = host.utf8(this.name);
    return this.check(db_commit(host.ptr(d), d.byteLength));
  }

  /** Rolls the open transaction back; false when it failed (see error). */
  rollback(): bool {
    const d = host.utf8(this.name);
    return this.check(db_rollback(host.ptr(d), d.byteLength));
  }

  private check(rc: i32): bool {
    this.error = rc < 0 ? this.failure(rc) : null;
    return rc >= 0;
  }

  private run(sql: string, params: Array<Value>, exec: bool): Value | null {
    this.error = null;
    const d = host.utf8(this.name);
    const s = host.utf8(sql);
    // No parameters go as none (length 0), as the C SDK sends NULL.
    const p = paramsJSON(params);
    const pLen = params.length > 0 ? p.length : 0;
    const rc = exec
      ? db_exec(host.ptr(d), d.byteLength, host.ptr(s), s.byteLength, p.ptr(), pLen)
      : db_query(host.ptr(d), d.byteLength, host.ptr(s), s.byteLength, p.ptr(), pLen);
    if (rc < 0) {
      this.error = this.failure(rc);
      return null;
    }
    const text = pending(rc);
    if (text == null) return this.fail<Value>("the pending result is gone");
    const v = parse(text);
    if (v == null) return this.fail<Value>("the host's result is not JSON: " + parseError);
    return v;
  }

  /** The error of errno rc: for ErrDatabase, the one the pending result
   * describes. */
  private failure(rc: i32): DBError {
    if (rc == ERR_DATABASE) {
      const e = pendingError();
      if (e != null) {
        return new DBError(this.name, member(e, "code", "other"), member(e, "message", ""), member(e, "constraint", ""), ERR_DATABASE, member(e, "kind", ""), member(e, "detail", ""));
      }
      return new DBError(this.name, "other", "the host gave no error result");
    }
    let why = "errno " + rc.toString();
    if (rc == -1) why += ": the app declares no such database in endpoints.json's \"databases\"";
    if (rc == -2) {
      // db_begin_with's refused options leave the host's message pending.
      const e = pendingError();
      why += e != null ? ": " + member(e, "message", "") : ": the parameters are not a JSON array of values";
    }
    if (rc == -6) why += ": called outside a request";
    return new DBError(this.name, "host", why, "", rc);
  }

  private fail<T>(why: string): T | null {
    this.error = new DBError(this.name, "other", "reading the host's result: " + why);
    return null;
  }
}

/** The "error" member of the pending result, null when none is pending
 * or it holds none. */
function pendingError(): Value | null {
  const size = db_result(0, 0);
  if (size < 0) return null;
  const text = pending(size);
  if (text == null) return null;
  const v = parse(text);
  return v != null ? v.get("error") : null;
}

/** Isolation levels of TxOptions (ABI §4.5). SQLite's transactions are
 * always serializable, which each level allows: it accepts all three. */
export namespace Isolation {
  /** The database's own level: READ COMMITTED on PostgreSQL unless the
   * server says otherwise. */
  export const DEFAULT = "";
  /** Each statement sees what was committed before it began. */
  export const READ_COMMITTED = "read_committed";
  /** One snapshot for the whole transaction; changing a row another
   * transaction changed since fails "busy". */
  export const REPEATABLE_READ = "repeatable_read";
  /** As if the transaction ran alone; one that cannot be serialized fails
   * "busy", and running it again may succeed. */
  export const SERIALIZABLE = "serializable";
}

/**
 * The options of a transaction (db.transaction(fn, opts), db.begin(opts)):
 * an isolation level, and whether it is read-only (a write in it fails
 * with the code "denied"; on SQLite it takes no write lock, so it runs
 * beside a writer).
 *
 *     const opts = new TxOptions(Isolation.SERIALIZABLE, true);
 *     const ok = db.transaction((tx: DB): bool => tx.queryRow("SELECT count(*) FROM users") != null, opts);
 */
export class TxOptions {
  constructor(
    /** An Isolation level; Isolation.DEFAULT ("") is the database's. */
    public isolation: string = Isolation.DEFAULT,
    /** Refuse writes. */
    public readOnly: bool = false,
  ) {}

  /** The options as db_begin_with takes them:
   * {"isolation":"serializable","readOnly":true}. */
  toJSON(): string {
    let s = "{";
    if (this.isolation.length > 0) s += "\"isolation\":" + Value.str(this.isolation).toString();
    if (this.readOnly) s += (s.length > 1 ? "," : "") + "\"readOnly\":true";
    return s + "}";
  }
}

/** The JSON array of params, each bound as the C SDK's
 * endpoints_params_value and the Rust SDK's From<&Json> bind a request's
 * value. A real (JSONValue.float) is written with a fraction even when
 * integral, "3.0", since the host binds an integral number as an integer,
 * and $1 / 2 would then divide integers. An array, or an object blob() did
 * not make (a json/jsonb column's, a request's), goes as its JSON text,
 * for a json/jsonb column or SQLite's JSON functions: the host takes
 * neither as a value, and would read {"$blob": ...} as bytes. An integer
 * beyond i64 goes as its digits in text, which a numeric column takes
 * exactly (the host refuses it as a number rather than round it). */
function paramsJSON(params: Array<Value>): Writer {
  const w = new Writer();
  w.ascii("[");
  for (let i = 0; i < params.length; i++) {
    const v = params[i];
    if (i > 0) w.ascii(",");
    if (v.kind == Kind.Array || (v.kind == Kind.Object && !v.bytes)) {
      w.string(v.toString());
    } else if (v.kind == Kind.Number && !v.real && beyondI64(v.number)) {
      w.string(v.number);
    } else if (v.kind == Kind.Number && v.real && v.number.indexOf(".") < 0 && v.number.indexOf("e") < 0 && v.number.indexOf("E") < 0) {
      w.ascii(v.number).ascii(".0");
    } else {
      w.value(v);
    }
  }
  return w.ascii("]");
}

/** Whether JSON number n is an integer (digits, an optional "-") that
 * i64 does not hold. JSON has no leading zeros, so digits compare as
 * text. */
function beyondI64(n: string): bool {
  const neg = n.startsWith("-");
  const digits = neg ? n.substring(1) : n;
  for (let i = 0; i < digits.length; i++) {
    const c = digits.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  if (digits.length != 19) return digits.length > 19;
  return digits > (neg ? "9223372036854775808" : "9223372036854775807");
}

/** The number column value v holds: its JSON number's text, or the text
 * of a string that holds one JSON number whole (PostgreSQL's numeric
 * arrives as its exact decimal's text, "12.50"); null for anything else. */
function numberText(v: Value): string | null {
  if (v.kind == Kind.Number) return v.number;
  if (v.kind == Kind.String && isJSONNumber(v.str)) return v.str;
  return null;
}

/** Whether s is one JSON number whole (-12.5e3). */
function isJSONNumber(s: string): bool {
  let i = 0;
  if (i < s.length && s.charCodeAt(i) == 45) i++; // '-'
  let start = i;
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  if (i == start) return false;
  if (i < s.length && s.charCodeAt(i) == 46) { // '.'
    start = ++i;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    if (i == start) return false;
  }
  if (i < s.length && (s.charCodeAt(i) == 101 || s.charCodeAt(i) == 69)) { // 'e', 'E'
    i++;
    if (i < s.length && (s.charCodeAt(i) == 43 || s.charCodeAt(i) == 45)) i++; // '+', '-'
    start = i;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    if (i == start) return false;
  }
  return i == s.length;
}

function isDigit(c: i32): bool {
  return c >= 48 && c <= 57;
}

/** Whether s, an integer's digits with an optional '-', fits in an i64. */
function fitsI64(s: string): bool {
  const neg = s.charCodeAt(0) == 45;
  let k = neg ? 1 : 0;
  while (k < s.length - 1 && s.charCodeAt(k) == 48) k++; // leading zeros
  const digits = s.substring(k);
  const max = neg ? "9223372036854775808" : "9223372036854775807";
  return digits.length < max.length || (digits.length == max.length && digits <= max);
}

/** Whether s, a JSON number, is an integer (no fraction or exponent). */
function isInteger(s: string): bool {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(c >= 48 && c <= 57) && !(c == 45 && i == 0)) return false;
  }
  return s.length > 0;
}

/** The string member name of object o, or otherwise. */
function member(o: Value, name: string, otherwise: string): string {
  const v = o.get(name);
  return v != null && v.kind == Kind.String ? v.str : otherwise;
}

/** The pending result, of size n, as text; null when there is none. */
function pending(n: i32): string | null {
  host.grow(n);
  const m = db_result(host.scratchPtr(), n);
  if (m < 0 || m > n) return null;
  return host.scratchText(m);
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard, padded base64 (RFC 4648 §4), as the host takes blobs. */
export function base64Encode(b: Uint8Array): string {
  const out = new Array<string>();
  for (let i = 0; i < b.length; i += 3) {
    const left = b.length - i;
    const n = (<u32>b[i] << 16) | (left > 1 ? <u32>b[i + 1] << 8 : 0) | (left > 2 ? <u32>b[i + 2] : 0);
    for (let k = 0; k < 4; k++) {
      out.push(k <= left ? ALPHABET.charAt(<i32>((n >> (18 - 6 * k)) & 63)) : "=");
    }
  }
  return out.join("");
}

/** The bytes of standard, padded base64, or null for anything else. */
export function base64Decode(s: string): Uint8Array | null {
  if (s.length % 4 != 0) return null;
  let pad = 0;
  if (s.length > 0 && s.charCodeAt(s.length - 1) == 61) pad = s.length > 1 && s.charCodeAt(s.length - 2) == 61 ? 2 : 1;
  const out = new Uint8Array(s.length / 4 * 3 - pad);
  for (let i = 0; i < s.length; i += 4) {
    let n: u32 = 0;
    for (let k = 0; k < 4; k++) {
      const c = s.charCodeAt(i + k);
      let d: i32 = ALPHABET.indexOf(String.fromCharCode(c));
      if (c == 61 && i + 4 == s.length && k >= 4 - pad) d = 0;
      if (d < 0) return null;
      n = (n << 6) | <u32>d;
    }
    for (let k = 0; k < 3; k++) {
      const o = i / 4 * 3 + k;
      if (o < out.length) out[o] = <u8>(n >> (16 - 8 * k));
    }
  }
  return out;
}
