//! The app's databases (ABI §3 "Databases"): SQLite embedded by default,
//! PostgreSQL when endpoints.json says so. A handler queries with bound
//! parameters and reads typed rows:
//!
//! ```no_run
//! use endpoints::db::{Db, DbError};
//! use endpoints::{respond, Json, Request};
//!
//! fn handle(req: &Request) -> Result<(), DbError> {
//!     let db = Db::new("main");
//!     let id = req.param_i64("id");
//!     match db.query_row("SELECT id, name FROM users WHERE id = $1", &[id.into()])? {
//!         Some(row) => respond(200, &Json::object().set("id", row.get_i64("id")?).set("name", row.get_str("name")?))?,
//!         None => respond(404, &Json::object().set("message", format!("user {} not found", id)))?,
//!     }
//!     Ok(())
//! }
//! ```
//!
//! Statements are one SQL statement each; parameters are bound, never
//! interpolated (`$1`, `$2`... on SQLite and PostgreSQL alike; `?` on
//! SQLite). The host runs every statement under the request's deadline and
//! rolls back a transaction the handler leaves open.

use std::fmt;
use std::rc::Rc;
use std::time::Duration;

use crate::host::{self, len, text, Errno};
use crate::json::Json;

/// Bounds each later statement of the call, on any database (a query, an
/// exec, a begin or a commit), to `timeout` from its start, below the
/// call's deadline (ABI §4.5, `db_timeout`); `None` lifts it. A statement
/// past it is stopped in the database and fails with [`Code::Timeout`],
/// and the handler goes on. A timeout is rounded up to a millisecond
/// (`Duration::ZERO`, a budget spent, is 1 ms, not none); one past an
/// hour is [`Errno::INVALID`].
///
/// ```no_run
/// # use std::time::Duration;
/// # use endpoints::db::{self, Code, Db, DbError};
/// # fn f() -> Result<(), DbError> {
/// db::set_timeout(Some(Duration::from_millis(300)))?;
/// let report = Db::new("main").query("SELECT month, total FROM monthly_report", &[]);
/// db::set_timeout(None)?;
/// match report {
///     Err(e) if e.code == Code::Timeout => { /* answer from a fallback */ }
///     r => { r?; }
/// }
/// # Ok(()) }
/// ```
pub fn set_timeout(timeout: Option<Duration>) -> Result<(), Errno> {
    let ms = timeout_ms(timeout).ok_or(Errno::INVALID)?;
    let rc = unsafe { host::db_timeout(ms) };
    if rc < 0 {
        return Err(Errno(rc));
    }
    Ok(())
}

/// The longest timeout in milliseconds db_timeout and an outbound
/// request's "timeout" take (the ABI's DBTimeoutMax, HTTPTimeoutMax): an
/// hour.
pub(crate) const TIMEOUT_MAX_MS: i32 = 3_600_000;

/// The milliseconds of a timeout, rounded up, 0 for none; `None` past
/// an hour (the ABI's DBTimeoutMax, HTTPTimeoutMax). A zero timeout (a
/// budget spent) is 1 ms, the shortest bound: 0 would lift the bound.
pub(crate) fn timeout_ms(timeout: Option<Duration>) -> Option<i32> {
    const MAX: u128 = TIMEOUT_MAX_MS as u128;
    // (No let-else or div_ceil: the SDK builds with rustc 1.6x.)
    let d = match timeout {
        Some(d) => d,
        None => return Some(0),
    };
    let ms = ((d.as_nanos() + 999_999) / 1_000_000).max(1);
    if ms > MAX {
        return None;
    }
    Some(ms as i32)
}

/// One of the app's databases, by the name endpoints.json's `"databases"`
/// gives it (`"main"` when the app declares none: an SQLite file the host
/// keeps under the app).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Db {
    name: String,
}

/// What a statement's failure is: the database's codes (abi.DBCode...),
/// and two the SDK adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// A unique, primary key, foreign key, check or not-null constraint
    /// refused the change: answer 409 for a unique violation.
    Constraint,
    /// The statement is not valid SQL, or names a table or column that does
    /// not exist.
    Syntax,
    /// The database is locked or the transaction could not be serialized;
    /// retrying may work.
    Busy,
    /// The database cannot be reached, or no connection came free before
    /// the deadline: answer 503.
    Unavailable,
    /// The result is larger than the host's limits.sqlResultBytes.
    TooLarge,
    /// The statement does what a guest may not: ATTACH, load_extension, a
    /// PRAGMA that touches files, transaction control in SQL, several
    /// statements; or it writes in a read-only transaction
    /// ([`TxOptions::read_only`]).
    Denied,
    /// A commit or rollback without a transaction, or a second begin.
    Transaction,
    /// Any other failure of the database; the message says what.
    Other,
    /// The statement ran past the call's statement timeout
    /// ([`set_timeout`]) and the database stopped it; the handler goes on,
    /// and may answer from a fallback.
    Timeout,
    /// The host refused the call before any database saw it: the app
    /// declares no such database ([`Errno::NOT_FOUND`]), the parameters
    /// are not a JSON array of values or the transaction options are not
    /// ones it knows ([`Errno::INVALID`], the host's reason as the
    /// message), or the call came outside a request ([`Errno::STATE`]).
    Host(Errno),
    /// A [`Row`] accessor asked for a column the result does not have, or
    /// for a value of another type (a NULL as an integer): a bug in the
    /// handler, not in the database.
    Column,
}

impl Code {
    /// The code as the ABI spells it ("constraint", "syntax"...); "host"
    /// and "column" for the two the SDK adds.
    pub fn as_str(&self) -> &'static str {
        match self {
            Code::Constraint => "constraint",
            Code::Syntax => "syntax",
            Code::Busy => "busy",
            Code::Unavailable => "unavailable",
            Code::TooLarge => "too_large",
            Code::Denied => "denied",
            Code::Transaction => "transaction",
            Code::Other => "other",
            Code::Timeout => "timeout",
            Code::Host(_) => "host",
            Code::Column => "column",
        }
    }

    fn parse(s: &str) -> Code {
        match s {
            "constraint" => Code::Constraint,
            "syntax" => Code::Syntax,
            "busy" => Code::Busy,
            "unavailable" => Code::Unavailable,
            "too_large" => Code::TooLarge,
            "denied" => Code::Denied,
            "transaction" => Code::Transaction,
            "timeout" => Code::Timeout,
            _ => Code::Other,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which constraint refused a change ([`Code::Constraint`]), when the
/// database says: the ABI's kinds (abi.DBKind...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// A unique or primary key constraint: a row with that value exists.
    /// Answer 409.
    Unique,
    /// A foreign key: the row names one that does not exist (answer 404 or
    /// 422), or a delete would leave rows naming the one it removes (409).
    ForeignKey,
    /// A CHECK constraint refused the value: answer 422.
    Check,
    /// A NOT NULL column was given no value: answer 422.
    NotNull,
    /// An exclusion constraint (PostgreSQL only), such as two bookings of
    /// one room that overlap: answer 409.
    Exclusion,
}

impl Kind {
    /// The kind as the ABI spells it ("unique", "foreign_key"...).
    pub fn as_str(&self) -> &'static str {
        match self {
            Kind::Unique => "unique",
            Kind::ForeignKey => "foreign_key",
            Kind::Check => "check",
            Kind::NotNull => "not_null",
            Kind::Exclusion => "exclusion",
        }
    }

    /// The kind the ABI spells s; None for one this SDK does not know
    /// (from a newer host), which a handler treats as a kind not given.
    fn parse(s: &str) -> Option<Kind> {
        match s {
            "unique" => Some(Kind::Unique),
            "foreign_key" => Some(Kind::ForeignKey),
            "check" => Some(Kind::Check),
            "not_null" => Some(Kind::NotNull),
            "exclusion" => Some(Kind::Exclusion),
            _ => None,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a database call failed: its [`Code`], the database's (or the SDK's)
/// message, and the constraint's name and [`Kind`] when the database gives
/// them (PostgreSQL: `users_email_key`; SQLite: the columns, `users.email`).
///
/// ```no_run
/// # use endpoints::db::{Db, DbError, Kind};
/// # use endpoints::{respond, Json};
/// # fn f(email: &str) -> Result<(), DbError> {
/// match Db::new("main").exec("INSERT INTO users (email) VALUES ($1)", &[email.into()]) {
///     Ok(_) => respond(201, &Json::object().set("email", email))?,
///     Err(e) if e.kind == Some(Kind::Unique) => respond(409, &Json::object().set("message", "that email is taken"))?,
///     Err(e) => return Err(e),
/// }
/// # Ok(()) }
/// ```
///
/// A handler returning `Result<(), DbError>` may use `?` on the answering
/// functions too: an [`Errno`] converts into a `DbError` of code
/// [`Code::Host`].
///
/// The struct is `#[non_exhaustive]`: the host may give an error more
/// members (as it gave `detail`), and the SDK more fields for them, without
/// breaking code outside the crate. Read and set its fields; build one (a
/// test's fake database, an error of the handler's own) with
/// [`DbError::new`], not a struct expression:
///
/// ```
/// # use endpoints::db::{Code, DbError, Kind};
/// let mut e = DbError::new("main", Code::Constraint, "duplicate key value violates unique constraint \"users_email_key\"");
/// e.constraint = Some("users_email_key".to_string());
/// e.kind = Some(Kind::Unique);
/// assert_eq!(e.detail, None);
/// assert_eq!(e.to_string(), "database \"main\": constraint: duplicate key value violates unique constraint \"users_email_key\" (users_email_key)");
/// ```
///
/// ```compile_fail,E0639
/// # use endpoints::db::{Code, DbError};
/// let e = DbError { database: "main".into(), code: Code::Other, message: "x".into(), constraint: None, kind: None, detail: None };
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DbError {
    /// The database the call named.
    pub database: String,
    /// What kind of failure it is.
    pub code: Code,
    /// What the database said, or what the SDK found wrong.
    pub message: String,
    /// The constraint that refused the change, when the code is
    /// [`Code::Constraint`] and the database names it.
    pub constraint: Option<String>,
    /// Which constraint it is, when the code is [`Code::Constraint`] and
    /// the database says.
    pub kind: Option<Kind>,
    /// The database's detail of the failure, as the server sent it:
    /// PostgreSQL's DETAIL (`Key (email)=(ada@example.com) already
    /// exists.`), for any code; `None` when there is none (SQLite never
    /// gives one). It is for a person (a log line, a 409's message), in
    /// the server's words and language: act on `code`, `kind` and
    /// `constraint`. `Display` leaves it out; the host never logs it
    /// (abi/README.md §4.5).
    pub detail: Option<String>,
}

impl DbError {
    /// An error of `database` with `code` and `message`, and none of the
    /// optional members (`constraint`, `kind`, `detail`), which a caller
    /// sets after: the one way to build a `DbError` outside the crate,
    /// which keeps compiling when the struct gains a field.
    pub fn new(database: impl Into<String>, code: Code, message: impl Into<String>) -> DbError {
        DbError { database: database.into(), code, message: message.into(), constraint: None, kind: None, detail: None }
    }

    fn column(database: &str, message: String) -> DbError {
        DbError::new(database, Code::Column, message)
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.database.is_empty() {
            write!(f, "database {:?}: ", self.database)?;
        }
        write!(f, "{}: {}", self.code, self.message)?;
        if let Some(c) = &self.constraint {
            write!(f, " ({})", c)?;
        }
        Ok(())
    }
}

impl std::error::Error for DbError {}

impl From<Errno> for DbError {
    /// An answering function's errno (the client went away...), so that `?`
    /// works on both in a handler returning `Result<(), DbError>`.
    fn from(e: Errno) -> DbError {
        DbError::new("", Code::Host(e), e.to_string())
    }
}

/// A statement parameter, bound by the database, never interpolated. The
/// `From` conversions make them: `&[7.into(), "Ada".into(), None::<i64>.into()]`.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// An integer, exact.
    Int(i64),
    /// A real, bound as one even when integral (`3.0 / 2` is 1.5); NaN and
    /// the infinities, which JSON cannot carry, go as NULL.
    Float(f64),
    /// A boolean (SQLite stores 1 or 0).
    Bool(bool),
    /// Text.
    Text(String),
    /// Bytes, sent base64 as `{"$blob": "..."}`.
    Blob(Vec<u8>),
}

macro_rules! value_from_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Value {
                Value::Int(n as i64)
            }
        }
    )*};
}
value_from_integer!(i8, i16, i32, i64, u8, u16, u32);

macro_rules! value_from_wide_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            /// An integer, exact: one beyond `i64` as its digits in text,
            /// as `From<&Json>` binds it (the host refuses such a number
            /// rather than round it; a numeric column takes the text
            /// exactly).
            fn from(n: $t) -> Value {
                i64::try_from(n).map_or_else(|_| Value::Text(n.to_string()), Value::Int)
            }
        }
    )*};
}
value_from_wide_integer!(u64, usize, isize);

impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}

impl From<f32> for Value {
    /// The `f64` of the same value (`1.5f32` binds 1.5; `0.1f32` its
    /// nearest `f64`, 0.10000000149011612).
    fn from(f: f32) -> Value {
        Value::Float(f64::from(f))
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}

impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::Text(s.clone())
    }
}

impl From<Vec<u8>> for Value {
    fn from(b: Vec<u8>) -> Value {
        Value::Blob(b)
    }
}

impl From<&[u8]> for Value {
    fn from(b: &[u8]) -> Value {
        Value::Blob(b.to_vec())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    /// `None` is NULL.
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

impl From<&Json> for Value {
    /// A request's validated value bound as its JSON says, as the C SDK's
    /// `endpoints_params_value` binds it: `null` NULL, a boolean, an
    /// integer exactly (one beyond `i64` as its digits in text, which a
    /// numeric column takes exactly: the host refuses it as a number
    /// rather than round it), any other number a real, a string text; an
    /// array or an object
    /// as its JSON text, for a `json`/`jsonb` column or SQLite's JSON
    /// functions (as the Go SDK binds a `json.RawMessage`). A member the
    /// body lacks indexes as `null`, so an optional one binds NULL:
    ///
    /// ```
    /// use endpoints::db::Value;
    /// use endpoints::Json;
    ///
    /// let body = Json::parse(r#"{"email":"ada@example.com","balance":9007199254740993}"#).unwrap();
    /// let params: Vec<Value> = ["email", "balance", "nickname"].iter().map(|k| Value::from(&body[*k])).collect();
    /// assert_eq!(params, vec![Value::Text("ada@example.com".into()), Value::Int(9007199254740993), Value::Null]);
    /// ```
    fn from(v: &Json) -> Value {
        match v {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => match n.parse::<i64>() {
                Ok(i) => Value::Int(i),
                // An integer past i64: its digits, exactly, where a real
                // would round it (the host refuses such a number).
                Err(_) if !n.contains(['.', 'e', 'E']) => Value::Text(n.clone()),
                Err(_) => n.parse::<f64>().map_or(Value::Null, Value::Float),
            },
            Json::String(s) => Value::Text(s.clone()),
            Json::Array(_) | Json::Object(_) => Value::Text(v.to_string()),
        }
    }
}

impl From<Json> for Value {
    /// As `From<&Json>`.
    fn from(v: Json) -> Value {
        match v {
            Json::String(s) => Value::Text(s),
            v => Value::from(&v),
        }
    }
}

impl From<&Value> for Json {
    fn from(v: &Value) -> Json {
        match v {
            Value::Null => Json::Null,
            Value::Int(n) => Json::int(*n),
            Value::Float(f) => real(*f),
            Value::Bool(b) => Json::Bool(*b),
            Value::Text(s) => Json::String(s.clone()),
            Value::Blob(b) => Json::object().set("$blob", base64_encode(b)),
        }
    }
}

/// A real parameter's JSON: written with a fraction even when the value is
/// integral (`3.0`, not `3`), since the host binds an integral JSON number
/// as an integer, and `$1 / 2` would then divide integers. NaN and the
/// infinities are NULL.
fn real(f: f64) -> Json {
    if !f.is_finite() {
        return Json::Null;
    }
    let mut s = format!("{}", f);
    if !s.contains(|c: char| c == '.' || c == 'e' || c == 'E') {
        s.push_str(".0");
    }
    Json::Number(s)
}

/// What [`Db::exec`] changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecResult {
    /// The rows inserted, updated or deleted.
    pub rows_affected: i64,
    /// The rowid of the last insert on SQLite; `None` on PostgreSQL, which
    /// has none: say `INSERT ... RETURNING id` and use [`Db::query_row`].
    pub last_insert_id: Option<i64>,
}

/// The rows of a [`Db::query`], read whole: iterate them, or index them.
#[derive(Clone, Debug, PartialEq)]
pub struct Rows {
    columns: Rc<[String]>,
    rows: Vec<Row>,
}

impl Rows {
    /// The result's column names, in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Row> {
        self.rows.iter()
    }
}

impl IntoIterator for Rows {
    type Item = Row;
    type IntoIter = std::vec::IntoIter<Row>;

    fn into_iter(self) -> Self::IntoIter {
        self.rows.into_iter()
    }
}

impl<'a> IntoIterator for &'a Rows {
    type Item = &'a Row;
    type IntoIter = std::slice::Iter<'a, Row>;

    fn into_iter(self) -> Self::IntoIter {
        self.rows.iter()
    }
}

/// Names a column of a [`Row`]: its name (`"id"`) or its position (`0`).
pub trait Column: Copy + fmt::Debug {
    /// The column's position among columns, if it has one.
    fn position(self, columns: &[String]) -> Option<usize>;
}

impl Column for &str {
    fn position(self, columns: &[String]) -> Option<usize> {
        columns.iter().position(|c| c == self)
    }
}

impl Column for usize {
    fn position(self, columns: &[String]) -> Option<usize> {
        if self < columns.len() {
            Some(self)
        } else {
            None
        }
    }
}

/// One row of a result. Its accessors take a [`Column`] and fail with
/// [`Code::Column`] when the column does not exist or holds a value of
/// another type (NULL included: read a column that may be NULL with
/// [`Row::get`] into an `Option`, or test [`Row::is_null`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    database: Rc<str>,
    columns: Rc<[String]>,
    values: Vec<Json>,
}

impl Row {
    /// The column names, in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The value of column c as the JSON the host sent: integers exact,
    /// reals numbers, text and blobs (base64) strings, NULL `null`.
    pub fn json<C: Column>(&self, c: C) -> Result<&Json, DbError> {
        match c.position(&self.columns) {
            Some(i) => Ok(&self.values[i]),
            None => Err(DbError::column(&self.database, format!("the result has no column {:?}; its columns are {:?}", c, self.columns))),
        }
    }

    /// Whether column c is NULL.
    pub fn is_null<C: Column>(&self, c: C) -> Result<bool, DbError> {
        self.json(c).map(Json::is_null)
    }

    /// Column c as a T: `i64`, `f64`, `bool`, `String`, `Vec<u8>` (a
    /// blob), [`Json`], or an `Option` of one (`None` for NULL).
    ///
    /// ```ignore
    /// let email: Option<String> = row.get("email")?;
    /// ```
    pub fn get<T: FromColumn, C: Column>(&self, c: C) -> Result<T, DbError> {
        let v = self.json(c)?;
        T::from_column(v).map_err(|want| {
            DbError::column(&self.database, format!("column {:?} holds {}, not {}", c, v, want))
        })
    }

    /// Column c as an integer.
    pub fn get_i64<C: Column>(&self, c: C) -> Result<i64, DbError> {
        self.get(c)
    }

    /// Column c as a number (an integer or a real).
    pub fn get_f64<C: Column>(&self, c: C) -> Result<f64, DbError> {
        self.get(c)
    }

    /// Column c as a boolean: PostgreSQL's `true`/`false`, SQLite's 1/0.
    pub fn get_bool<C: Column>(&self, c: C) -> Result<bool, DbError> {
        self.get(c)
    }

    /// Column c as text, borrowed from the row.
    pub fn get_str<C: Column>(&self, c: C) -> Result<&str, DbError> {
        let v = self.json(c)?;
        v.as_str().ok_or_else(|| DbError::column(&self.database, format!("column {:?} holds {}, not text", c, v)))
    }

    /// Column c as a blob's bytes (base64 on the wire).
    pub fn get_blob<C: Column>(&self, c: C) -> Result<Vec<u8>, DbError> {
        self.get(c)
    }
}

/// A type a column converts into with [`Row::get`]; the error is what was
/// wanted, for the message.
pub trait FromColumn: Sized {
    /// The value, or what it should have been.
    fn from_column(v: &Json) -> Result<Self, &'static str>;
}

/// The number a column holds: its JSON number, or the text of a string
/// that holds one JSON number whole (PostgreSQL's `numeric`, which `sum()`
/// and `avg()` of integers return, arrives as its exact decimal's text,
/// `"12.50"`).
fn number_text(v: &Json) -> Option<&str> {
    match v {
        Json::Number(n) => Some(n),
        Json::String(s) if is_json_number(s) => Some(s),
        _ => None,
    }
}

/// Whether s is one JSON number whole (`-12.5e3`).
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if b.first() == Some(&b'-') {
        i += 1;
    }
    if !digits(&mut i) {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e') | Some(b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+') | Some(b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

impl FromColumn for i64 {
    /// An integer, or text holding one (PostgreSQL's `numeric`).
    fn from_column(v: &Json) -> Result<i64, &'static str> {
        number_text(v).filter(|n| !n.contains(|c| c == '.' || c == 'e' || c == 'E')).and_then(|n| n.parse().ok()).ok_or("an integer that fits i64")
    }
}

macro_rules! from_column_integer {
    ($($t:ty: $want:expr),*) => {$(
        impl FromColumn for $t {
            /// An integer within the type's range (text holding one too).
            fn from_column(v: &Json) -> Result<$t, &'static str> {
                i64::from_column(v).ok().and_then(|n| <$t>::try_from(n).ok()).ok_or($want)
            }
        }
    )*};
}
from_column_integer!(i8: "an integer that fits i8", i16: "an integer that fits i16", i32: "an integer that fits i32", u8: "an integer that fits u8", u16: "an integer that fits u16", u32: "an integer that fits u32", u64: "an integer that fits u64", usize: "an integer that fits usize", isize: "an integer that fits isize");

impl FromColumn for f64 {
    /// A number, or text holding one (PostgreSQL's `numeric`).
    fn from_column(v: &Json) -> Result<f64, &'static str> {
        number_text(v).and_then(|n| n.parse().ok()).ok_or("a number")
    }
}

impl FromColumn for bool {
    fn from_column(v: &Json) -> Result<bool, &'static str> {
        match (v.as_bool(), v.as_i64()) {
            (Some(b), _) => Ok(b),
            (None, Some(0)) => Ok(false),
            (None, Some(1)) => Ok(true),
            _ => Err("a boolean"),
        }
    }
}

impl FromColumn for String {
    fn from_column(v: &Json) -> Result<String, &'static str> {
        v.as_str().map(str::to_string).ok_or("text")
    }
}

impl FromColumn for Vec<u8> {
    fn from_column(v: &Json) -> Result<Vec<u8>, &'static str> {
        v.as_str().and_then(base64_decode).ok_or("a blob (base64 text)")
    }
}

impl FromColumn for Json {
    fn from_column(v: &Json) -> Result<Json, &'static str> {
        Ok(v.clone())
    }
}

impl<T: FromColumn> FromColumn for Option<T> {
    fn from_column(v: &Json) -> Result<Option<T>, &'static str> {
        if v.is_null() {
            Ok(None)
        } else {
            T::from_column(v).map(Some)
        }
    }
}

impl Db {
    /// The database endpoints.json declares under name. Nothing is checked
    /// until the first call: one naming a database the app does not
    /// declare fails with `Code::Host(Errno::NOT_FOUND)`.
    pub fn new(name: &str) -> Db {
        Db { name: name.to_string() }
    }

    /// The database's name in endpoints.json.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs a statement that returns rows. Parameters the host refuses
    /// (more than 65535 of them) fail with `Code::Host(Errno::INVALID)`,
    /// the host's message saying why.
    ///
    /// ```no_run
    /// # use endpoints::db::Db;
    /// # fn f() -> Result<(), endpoints::db::DbError> {
    /// for row in Db::new("main").query("SELECT id, name FROM users ORDER BY id LIMIT $1", &[50.into()])? {
    ///     let (id, name) = (row.get_i64(0)?, row.get_str(1)?);
    /// #   let _ = (id, name);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn query(&self, sql: &str, params: &[Value]) -> Result<Rows, DbError> {
        let result = self.run(sql, params, false)?;
        let columns: Rc<[String]> = result["columns"]
            .as_array()
            .ok_or_else(|| self.bad_result("no \"columns\" array"))?
            .iter()
            .map(|c| c.as_str().map(str::to_string).ok_or_else(|| self.bad_result("a column name is not a string")))
            .collect::<Result<Vec<_>, _>>()?
            .into();
        let database: Rc<str> = self.name.as_str().into();
        let rows = match result {
            Json::Object(members) => members.into_iter().find(|(k, _)| k == "rows").map(|(_, v)| v),
            _ => None,
        };
        let rows = match rows {
            Some(Json::Array(rows)) => rows,
            _ => return Err(self.bad_result("no \"rows\" array")),
        };
        let rows = rows
            .into_iter()
            .map(|r| match r {
                Json::Array(values) if values.len() == columns.len() => {
                    Ok(Row { database: database.clone(), columns: columns.clone(), values })
                }
                _ => Err(self.bad_result("a row is not an array of one value per column")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Rows { columns, rows })
    }

    /// Runs a statement that returns at most one row that matters: the
    /// first, or `None` when there is none.
    pub fn query_row(&self, sql: &str, params: &[Value]) -> Result<Option<Row>, DbError> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// Runs a statement for its effect.
    ///
    /// ```no_run
    /// # use endpoints::db::Db;
    /// # fn f() -> Result<(), endpoints::db::DbError> {
    /// let res = Db::new("main").exec("UPDATE users SET name = $1 WHERE id = $2", &["Ada".into(), 7.into()])?;
    /// if res.rows_affected == 0 { /* no such user */ }
    /// # Ok(()) }
    /// ```
    pub fn exec(&self, sql: &str, params: &[Value]) -> Result<ExecResult, DbError> {
        let result = self.run(sql, params, true)?;
        let rows_affected = result["rowsAffected"].as_i64().ok_or_else(|| self.bad_result("no \"rowsAffected\" integer"))?;
        Ok(ExecResult { rows_affected, last_insert_id: result["lastInsertId"].as_i64() })
    }

    /// Runs f in a transaction: the statements f runs on this database run
    /// in it; it commits when f returns `Ok` and rolls back when f returns
    /// `Err` (returned as it is). A panic traps the module, and the host
    /// rolls the transaction back.
    ///
    /// ```no_run
    /// # use endpoints::db::{Db, DbError};
    /// # fn f(n: i64, from: i64, to: i64) -> Result<(), DbError> {
    /// Db::new("main").transaction(|tx| {
    ///     tx.exec("UPDATE accounts SET balance = balance - $1 WHERE id = $2", &[n.into(), from.into()])?;
    ///     tx.exec("UPDATE accounts SET balance = balance + $1 WHERE id = $2", &[n.into(), to.into()])?;
    ///     Ok(())
    /// })
    /// # }
    /// ```
    pub fn transaction<T, E: From<DbError>>(&self, f: impl FnOnce(&Db) -> Result<T, E>) -> Result<T, E> {
        self.begin()?;
        match f(self) {
            Ok(v) => {
                self.commit()?;
                Ok(v)
            }
            Err(e) => {
                // The failure that matters is f's; a rollback that fails
                // leaves the transaction to the host, which rolls it back
                // when the call ends.
                let _ = self.rollback();
                Err(e)
            }
        }
    }

    /// Runs f in a transaction begun with opts, as [`Db::transaction`]
    /// runs one: at an isolation level, or read-only (a write in it fails
    /// with [`Code::Denied`]; on SQLite it takes no write lock, so it runs
    /// beside a writer).
    ///
    /// ```no_run
    /// # use endpoints::db::{Db, DbError, Isolation, TxOptions};
    /// # fn f() -> Result<i64, DbError> {
    /// let opts = TxOptions { isolation: Some(Isolation::RepeatableRead), read_only: true };
    /// Db::new("main").transaction_with(opts, |tx| {
    ///     let users = tx.query_row("SELECT count(*) FROM users", &[])?.map(|r| r.get_i64(0)).transpose()?;
    ///     Ok(users.unwrap_or(0))
    /// })
    /// # }
    /// ```
    pub fn transaction_with<T, E: From<DbError>>(&self, opts: TxOptions, f: impl FnOnce(&Db) -> Result<T, E>) -> Result<T, E> {
        self.begin_with(opts)?;
        match f(self) {
            Ok(v) => {
                self.commit()?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.rollback();
                Err(e)
            }
        }
    }

    /// Opens a transaction for the rest of the call (prefer
    /// [`Db::transaction`]); one per database at a time.
    pub fn begin(&self) -> Result<(), DbError> {
        self.check(unsafe { host::db_begin(self.name.as_ptr(), len(self.name.as_bytes())) })
    }

    /// Opens a transaction with options for the rest of the call (prefer
    /// [`Db::transaction_with`]). Options the host does not know fail
    /// with `Code::Host(Errno::INVALID)`, the host's message saying which.
    /// The default options begin with db_begin, as [`Db::begin`] and the
    /// other SDKs do: db_begin_with refuses to begin with less than 50 ms
    /// left before the call's deadline (abi/README.md §4.5), db_begin
    /// does not.
    pub fn begin_with(&self, opts: TxOptions) -> Result<(), DbError> {
        if opts == TxOptions::default() {
            return self.begin();
        }
        let o = opts.to_json();
        let rc = unsafe { host::db_begin_with(self.name.as_ptr(), len(self.name.as_bytes()), o.as_ptr(), len(o.as_bytes())) };
        if rc == Errno::INVALID.0 {
            return Err(self.refused(format!("{}: the host refused the transaction options {}", Errno::INVALID, o)));
        }
        self.check(rc)
    }

    /// Commits the open transaction.
    pub fn commit(&self) -> Result<(), DbError> {
        self.check(unsafe { host::db_commit(self.name.as_ptr(), len(self.name.as_bytes())) })
    }

    /// Rolls the open transaction back.
    pub fn rollback(&self) -> Result<(), DbError> {
        self.check(unsafe { host::db_rollback(self.name.as_ptr(), len(self.name.as_bytes())) })
    }

    /// Runs one statement and parses its pending result.
    fn run(&self, sql: &str, params: &[Value], exec: bool) -> Result<Json, DbError> {
        let params = if params.is_empty() {
            String::new()
        } else {
            Json::Array(params.iter().map(Json::from).collect()).to_string()
        };
        let (d, s, p) = (self.name.as_bytes(), sql.as_bytes(), params.as_bytes());
        let call = if exec { host::db_exec } else { host::db_query };
        let rc = unsafe { call(d.as_ptr(), len(d), s.as_ptr(), len(s), p.as_ptr(), len(p)) };
        if rc < 0 {
            return Err(self.error(rc));
        }
        let b = pending(rc as usize).map_err(|e| self.error(e.0))?;
        Json::parse(&text(b)).map_err(|e| self.bad_result(&e.to_string()))
    }

    /// Ok for 0, the failure of a negative errno.
    fn check(&self, rc: i32) -> Result<(), DbError> {
        if rc < 0 {
            Err(self.error(rc))
        } else {
            Ok(())
        }
    }

    /// The error of errno rc: for [`Errno::DATABASE`], the one the pending
    /// result describes.
    fn error(&self, rc: i32) -> DbError {
        let host_error = |e: Errno, why: &str| DbError {
            database: self.name.clone(),
            code: Code::Host(e),
            message: format!("{}{}", e, why),
            constraint: None,
            kind: None,
            detail: None,
        };
        match Errno(rc) {
            Errno::DATABASE => {
                match self.pending_error() {
                    Some(r) => DbError {
                        database: self.name.clone(),
                        code: Code::parse(r["error"]["code"].as_str().unwrap_or("")),
                        message: r["error"]["message"].as_str().unwrap_or("").to_string(),
                        constraint: r["error"]["constraint"].as_str().map(str::to_string),
                        kind: r["error"]["kind"].as_str().and_then(Kind::parse),
                        detail: r["error"]["detail"].as_str().map(str::to_string),
                    },
                    None => host_error(Errno::DATABASE, ": the host gave no error result"),
                }
            }
            Errno::NOT_FOUND => host_error(Errno::NOT_FOUND, ": the app declares no such database in endpoints.json's \"databases\""),
            Errno::INVALID => self.refused(format!("{}: the parameters are not a JSON array of values", Errno::INVALID)),
            e => host_error(e, ""),
        }
    }

    /// The error of an [`Errno::INVALID`] from db_query, db_exec or
    /// db_begin_with: the host's message, pending, saying which parameter
    /// or option it refused and what it expected; otherwise (an older host
    /// left none) the SDK's own.
    fn refused(&self, otherwise: String) -> DbError {
        let why = self.pending_error().and_then(|r| r["error"]["message"].as_str().filter(|m| !m.is_empty()).map(str::to_string));
        DbError { database: self.name.clone(), code: Code::Host(Errno::INVALID), message: why.unwrap_or(otherwise), constraint: None, kind: None, detail: None }
    }

    /// The pending result, parsed: after a failure, the error it holds.
    fn pending_error(&self) -> Option<Json> {
        let size = unsafe { host::db_result(std::ptr::null_mut(), 0) };
        if size < 0 {
            return None;
        }
        pending(size as usize).ok().and_then(|b| Json::parse(&text(b)).ok())
    }

    fn bad_result(&self, why: &str) -> DbError {
        DbError { database: self.name.clone(), code: Code::Other, message: format!("reading the host's result: {}", why), constraint: None, kind: None, detail: None }
    }
}

/// A transaction's isolation level ([`TxOptions::isolation`]); see
/// abi/README.md §4.5. SQLite's transactions are always serializable,
/// which each level allows: it accepts all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Each statement sees what was committed before it began.
    ReadCommitted,
    /// One snapshot for the whole transaction; changing a row another
    /// transaction changed since fails with [`Code::Busy`].
    RepeatableRead,
    /// As if the transaction ran alone; one that cannot be serialized
    /// fails with [`Code::Busy`], and running it again may succeed.
    Serializable,
}

impl Isolation {
    /// The level's name in the ABI: `"serializable"`...
    pub fn as_str(&self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read_committed",
            Isolation::RepeatableRead => "repeatable_read",
            Isolation::Serializable => "serializable",
        }
    }
}

/// The options of a transaction ([`Db::transaction_with`]); the default is
/// [`Db::transaction`]'s: read-write, the database's own isolation
/// (PostgreSQL's READ COMMITTED unless the server says otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxOptions {
    /// The isolation level; `None` is the database's.
    pub isolation: Option<Isolation>,
    /// Refuse writes ([`Code::Denied`]); on SQLite, take no write lock.
    pub read_only: bool,
}

impl TxOptions {
    /// The options as db_begin_with takes them:
    /// `{"isolation":"serializable","readOnly":true}`.
    ///
    /// ```
    /// use endpoints::db::{Isolation, TxOptions};
    /// let o = TxOptions { isolation: Some(Isolation::Serializable), read_only: true };
    /// assert_eq!(o.to_json(), r#"{"isolation":"serializable","readOnly":true}"#);
    /// assert_eq!(TxOptions::default().to_json(), "{}");
    /// ```
    pub fn to_json(&self) -> String {
        let mut members = Vec::new();
        if let Some(i) = self.isolation {
            members.push(format!("\"isolation\":\"{}\"", i.as_str()));
        }
        if self.read_only {
            members.push("\"readOnly\":true".to_string());
        }
        format!("{{{}}}", members.join(","))
    }
}

/// Reads the pending result, of size n.
fn pending(n: usize) -> Result<Vec<u8>, Errno> {
    let mut buf = vec![0u8; n];
    let m = unsafe { host::db_result(buf.as_mut_ptr(), len(&buf)) };
    if m < 0 {
        return Err(Errno(m));
    }
    buf.truncate(m as usize);
    Ok(buf)
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard, padded base64 (RFC 4648 §4), as the host takes and gives
/// blobs: a blob answered in JSON as the host would.
///
/// ```
/// assert_eq!(endpoints::db::base64_encode(&[0, 1, 255]), "AAH/");
/// ```
pub fn base64_encode(b: &[u8]) -> String {
    let mut out = String::with_capacity((b.len() + 2) / 3 * 4);
    for chunk in b.chunks(3) {
        let n = (u32::from(chunk[0]) << 16) | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8) | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of standard, padded base64 (RFC 4648 §4), or `None` for
/// anything else: a request's base64 value (a string with
/// `"contentEncoding": "base64"` in the contract) bound as a blob.
///
/// ```
/// use endpoints::db::{base64_decode, Value};
///
/// assert_eq!(base64_decode("AAH/"), Some(vec![0, 1, 255]));
/// assert_eq!(base64_decode("AAH"), None);
/// let avatar: Option<Value> = base64_decode("AAH/").map(Value::Blob);
/// # assert_eq!(avatar, Some(Value::Blob(vec![0, 1, 255])));
/// ```
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (q, quad) in b.chunks(4).enumerate() {
        let last = q == b.len() / 4 - 1;
        let mut n = 0u32;
        let mut pad = 0;
        for (i, &c) in quad.iter().enumerate() {
            let v = match c {
                b'=' if last && i >= 2 => {
                    pad += 1;
                    0
                }
                _ if pad > 0 => return None,
                _ => BASE64.iter().position(|&a| a == c)? as u32,
            };
            n = n << 6 | v;
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    /// The default options begin as Db::begin does (db_begin, which has
    /// no margin before the deadline), as Go's TxOptions{} and the C and
    /// AssemblyScript SDKs' default options; others go as JSON.
    #[test]
    fn default_options_begin_with_db_begin() {
        use super::{Db, Isolation, TxOptions};
        use crate::host::BEGUN;
        BEGUN.with(|b| b.borrow_mut().clear());
        let db = Db::new("main");
        db.begin_with(TxOptions::default()).unwrap();
        db.begin_with(TxOptions { isolation: Some(Isolation::Serializable), read_only: false }).unwrap();
        db.begin_with(TxOptions { isolation: None, read_only: true }).unwrap();
        let got = BEGUN.with(|b| b.borrow().clone());
        assert_eq!(got, ["db_begin", r#"db_begin_with {"isolation":"serializable"}"#, r#"db_begin_with {"readOnly":true}"#]);
    }

    #[test]
    fn timeouts_in_milliseconds() {
        use std::time::Duration;
        assert_eq!(super::timeout_ms(None), Some(0));
        assert_eq!(super::timeout_ms(Some(Duration::from_millis(300))), Some(300));
        assert_eq!(super::timeout_ms(Some(Duration::from_micros(1500))), Some(2));
        // A budget spent is the shortest bound, not none (0 lifts it).
        assert_eq!(super::timeout_ms(Some(Duration::ZERO)), Some(1));
        assert_eq!(super::timeout_ms(Some(Duration::from_secs(3600))), Some(3_600_000));
        assert_eq!(super::timeout_ms(Some(Duration::from_secs(3601))), None);
        assert_eq!(super::Code::parse("timeout"), super::Code::Timeout);
        assert_eq!(super::Code::Timeout.as_str(), "timeout");
    }

    use super::*;

    #[test]
    fn kinds_round_trip() {
        for k in [Kind::Unique, Kind::ForeignKey, Kind::Check, Kind::NotNull, Kind::Exclusion] {
            assert_eq!(Kind::parse(k.as_str()), Some(k), "{}", k);
        }
        // A kind of a newer host is no kind, as the ABI asks.
        assert_eq!(Kind::parse("deferred"), None);
        assert_eq!(Kind::parse(""), None);
    }

    #[test]
    fn base64_round_trips() {
        for (raw, enc) in [(&b""[..], ""), (b"f", "Zg=="), (b"fo", "Zm8="), (b"foo", "Zm9v"), (b"\x00\x01\xff\xfe", "AAH//g==")] {
            assert_eq!(base64_encode(raw), enc);
            assert_eq!(base64_decode(enc).as_deref(), Some(raw));
        }
        for bad in ["Zg=", "Z===", "Zg=a", "Zm9v!A==", "=Zg="] {
            assert_eq!(base64_decode(bad), None, "{:?} decoded", bad);
        }
    }

    #[test]
    fn every_integer_type_binds_exactly() {
        // A Rust developer binds a count (usize), an id (u64) or a float
        // (f32) as they come, as the README's "Value from integers" says.
        let params: Vec<Value> = vec![5usize.into(), (-3isize).into(), 7u64.into(), u64::MAX.into(), (i64::MAX as u64).into(), 1.5f32.into()];
        assert_eq!(
            params,
            vec![Value::Int(5), Value::Int(-3), Value::Int(7), Value::Text("18446744073709551615".into()), Value::Int(i64::MAX), Value::Float(1.5)]
        );
    }

    #[test]
    fn params_encode_as_the_host_takes_them() {
        let params: Vec<Value> = vec![7.into(), "Ada \"A\"".into(), None::<i64>.into(), 2.5.into(), true.into(), vec![0u8, 1, 2].into(), i64::MAX.into(), 3.0.into(), (-0.0).into(), 1e300.into(), f64::NAN.into()];
        let json = Json::Array(params.iter().map(Json::from).collect()).to_string();
        let big = format!("1{}.0", "0".repeat(300));
        assert_eq!(json, format!(r#"[7,"Ada \"A\"",null,2.5,true,{{"$blob":"AAEC"}},9223372036854775807,3.0,-0.0,{},null]"#, big));
    }

    #[test]
    fn params_from_request_values() {
        let body = Json::parse(r#"{"n":7,"neg":-0,"big":9223372036854775808,"real":3.0,"exp":1e2,"t":"Zoë \"q\"","f":false,"nul":null,"arr":[1,"a"],"obj":{"a":{"b":null}}}"#).unwrap();
        for (key, want) in [
            ("n", Value::Int(7)),
            ("neg", Value::Int(0)),
            ("big", Value::Text("9223372036854775808".to_string())),
            ("real", Value::Float(3.0)),
            ("exp", Value::Float(100.0)),
            ("t", Value::Text("Zoë \"q\"".to_string())),
            ("f", Value::Bool(false)),
            ("nul", Value::Null),
            ("absent", Value::Null),
            ("arr", Value::Text(r#"[1,"a"]"#.to_string())),
            ("obj", Value::Text(r#"{"a":{"b":null}}"#.to_string())),
        ] {
            assert_eq!(Value::from(&body[key]), want, "{}", key);
            assert_eq!(Value::from(body[key].clone()), want, "{} (owned)", key);
        }
        // Bound as the host takes them: the real stays real.
        let json = Json::Array([&body["real"], &body["n"]].iter().map(|v| Json::from(&Value::from(*v))).collect()).to_string();
        assert_eq!(json, "[3.0,7]");
    }

    fn row(values: &str) -> Row {
        let columns: Rc<[String]> = vec!["id".to_string(), "name".to_string(), "data".to_string(), "ok".to_string()].into();
        let values = match Json::parse(values).unwrap() {
            Json::Array(v) => v,
            _ => unreachable!(),
        };
        Row { database: "main".into(), columns, values }
    }

    #[test]
    fn rows_read_typed_values() {
        let r = row(r#"[9007199254740993,"Ada","AAEC",1]"#);
        assert_eq!(r.get_i64("id"), Ok(9007199254740993));
        assert_eq!(r.get_i64(0), Ok(9007199254740993));
        assert_eq!(r.get_str("name"), Ok("Ada"));
        assert_eq!(r.get_blob("data"), Ok(vec![0, 1, 2]));
        assert_eq!(r.get_bool("ok"), Ok(true));
        assert_eq!(r.get::<Option<String>, _>("name"), Ok(Some("Ada".to_string())));
        assert_eq!(r.get_f64("id"), Ok(9007199254740993.0));
    }

    #[test]
    fn numbers_given_as_text() {
        // PostgreSQL's numeric (sum() of a bigint column, avg()) arrives
        // as its exact decimal's text.
        let columns: Rc<[String]> = (0..14).map(|i| i.to_string()).collect::<Vec<_>>().into();
        let values = match Json::parse(r#"["9007199254740993","12.50","-0","-5e-1","9223372036854775808",7,"0x10","12.","7 ","inf","NaN","","-","+7"]"#).unwrap() {
            Json::Array(v) => v,
            _ => unreachable!(),
        };
        let r = Row { database: "main".into(), columns, values };
        let got: Vec<String> = (0..14usize)
            .map(|c| format!("{:?} {:?}", r.get_i64(c).ok(), r.get_f64(c).ok()))
            .collect();
        assert_eq!(
            got,
            [
                "Some(9007199254740993) Some(9007199254740992.0)",
                "None Some(12.5)",
                "Some(0) Some(-0.0)",
                "None Some(-0.5)",
                "None Some(9.223372036854776e18)",
                "Some(7) Some(7.0)",
                "None None",
                "None None",
                "None None",
                "None None",
                "None None",
                "None None",
                "None None",
                "None None",
            ]
        );
        let e = r.get_i64(1).unwrap_err();
        assert_eq!(e.to_string(), r#"database "main": column: column 1 holds "12.50", not an integer that fits i64"#);
        assert_eq!(r.get::<Option<i64>, _>(0), Ok(Some(9007199254740993)));
    }

    #[test]
    fn narrower_integers() {
        let r = row(r#"[300,"-1",null,2147483648]"#);
        assert_eq!(r.get::<i32, _>("id"), Ok(300));
        assert_eq!(r.get::<u16, _>(0), Ok(300));
        assert_eq!(r.get::<i8, _>(1), Ok(-1));
        assert_eq!(r.get::<Option<u32>, _>("data"), Ok(None));
        assert_eq!(r.get::<u64, _>(3), Ok(2147483648));
        assert_eq!(r.get::<i32, _>("ok").unwrap_err().message, "column \"ok\" holds 2147483648, not an integer that fits i32");
        assert_eq!(r.get::<u8, _>(0).unwrap_err().message, "column 0 holds 300, not an integer that fits u8");
        assert_eq!(r.get::<u32, _>(1).unwrap_err().message, r#"column 1 holds "-1", not an integer that fits u32"#);
        assert_eq!(r.get::<i16, _>(2).unwrap_err().code, Code::Column);
    }

    #[test]
    fn rows_refuse_what_is_not_there() {
        let r = row(r#"[null,7,"not base64!",2]"#);
        for (what, got) in [
            ("NULL as an integer", r.get_i64("id").err()),
            ("an integer as text", r.get_str("name").err()),
            ("a missing column", r.get_i64("email").err()),
            ("a column past the end", r.get_i64(4).err()),
            ("bad base64", r.get_blob("data").err()),
            ("2 as a boolean", r.get_bool("ok").err()),
        ] {
            match got {
                Some(e) => assert_eq!(e.code, Code::Column, "{}: {}", what, e),
                None => panic!("{} was accepted", what),
            }
        }
        assert_eq!(r.get::<Option<i64>, _>("id"), Ok(None));
        assert_eq!(r.is_null("id"), Ok(true));
        let from_errno = DbError::from(Errno::IO);
        assert_eq!(from_errno.code, Code::Host(Errno::IO));
        assert_eq!(from_errno.to_string(), "host: errno -5 (I/O: the client went away or reading failed)");
        let e = r.get_i64("email").unwrap_err();
        assert_eq!(e.to_string(), r#"database "main": column: the result has no column "email"; its columns are ["id", "name", "data", "ok"]"#);
    }
}
