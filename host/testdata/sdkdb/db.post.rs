// The Rust half of TestSDKDatabases: a plain route that runs the database
// operation its x-op header names with the SDK's endpoints::db.
use endpoints::db::{base64_decode, Code, Db, DbError, Isolation, Kind, TxOptions, Value};
use endpoints::{plain_route, respond, Json, Request};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{:02x}", x)).collect()
}

fn failure(e: &DbError) -> Json {
    Json::object().set("code", e.code.as_str()).set("constraint", e.constraint.clone()).set("kind", e.kind.map(|k| k.as_str())).set("detail", e.detail.clone())
}

/// Answers a constraint error by its kind: 409 for a unique violation, 422
/// for another (a foreign key naming a missing row).
fn refused(e: &DbError) -> Result<(), DbError> {
    Ok(respond(if e.kind == Some(Kind::Unique) { 409 } else { 422 }, &failure(e))?)
}

fn handle(req: &Request) -> Result<(), DbError> {
    let db = Db::new("main");
    let name = req.header("x-name").unwrap_or_default();
    let answer = match req.header("x-op").unwrap_or_default().as_str() {
        "list" => {
            let mut users = Json::array();
            for row in db.query("SELECT id, name, score, avatar FROM users WHERE id >= $1 ORDER BY id", &[1.into()])? {
                users.push(Json::object()
                    .set("id", row.get_i64("id")?)
                    .set("name", row.get_str(1)?)
                    .set("score", row.get::<Option<f64>, _>("score")?)
                    .set("avatar", row.get::<Option<Vec<u8>>, _>("avatar")?.map(|b| hex(&b))));
            }
            users
        }
        "add" => {
            // The avatar arrives as base64 text, as a JSON body carries
            // bytes; it is bound as a blob.
            let avatar = match base64_decode(&req.header("x-avatar").unwrap_or_default()) {
                Some(b) => b,
                None => return Ok(respond(400, &Json::object().set("message", "avatar is not base64"))?),
            };
            match db.exec("INSERT INTO users (name, score, avatar) VALUES ($1, $2, $3)", &[name.as_str().into(), 2.25.into(), avatar.into()]) {
                Ok(r) => Json::object().set("rowsAffected", r.rows_affected).set("lastInsertId", r.last_insert_id),
                Err(e) if e.code == Code::Constraint => return refused(&e),
                Err(e) => return Err(e),
            }
        }
        // A tag of a user that does not exist: the foreign key refuses it.
        "orphan" => match db.exec("INSERT INTO tags (user_id) VALUES ($1)", &[99.into()]) {
            Ok(r) => Json::object().set("rowsAffected", r.rows_affected),
            Err(e) if e.code == Code::Constraint => return refused(&e),
            Err(e) => return Err(e),
        },
        "tx" => {
            let fail = req.header("x-fail").is_some();
            let outcome = db.transaction(|tx| {
                tx.exec("INSERT INTO users (name) VALUES ($1)", &[name.as_str().into()])?;
                tx.exec("UPDATE users SET score = (SELECT count(*) FROM users) WHERE name = $1", &[name.as_str().into()])?;
                if fail {
                    return Err(DbError::from(endpoints::Errno::INVALID));
                }
                Ok(tx.query_row("SELECT score FROM users WHERE name = $1", &[name.as_str().into()])?.map(|r| r.get_f64(0)))
            });
            match outcome {
                Ok(score) => Json::object().set("committed", true).set("score", score.transpose()?),
                Err(e) => Json::object().set("committed", false).set("why", e.code.as_str()),
            }
        }
        "half" => match db.query_row("SELECT $1 / 2 AS h", &[3.0.into()])? {
            Some(r) => Json::object().set("h", r.get_f64("h")?),
            None => Json::object(),
        },
        "one" => {
            // query_row: the first row, None when there is none, the error
            // when the statement failed.
            let first = db.query_row("SELECT name FROM users WHERE id >= $1 ORDER BY id", &[2.into()])?.map(|r| r.get::<String, _>("name")).transpose()?;
            let none = db.query_row("SELECT name FROM users WHERE id < 0", &[])?.is_none();
            let failed = db.query_row("SELECT nope FROM users", &[]).err().map(|e| e.code.as_str());
            Json::object().set("first", first).set("none", none).set("failed", failed)
        }
        // PostgreSQL's numeric (sum(), avg()) arrives as its exact
        // decimal's text, as these do.
        "numeric" => match db.query_row("SELECT CAST(9007199254740993 AS TEXT) AS total, '12.50' AS mean", &[])? {
            Some(r) => Json::object().set("total", r.get_i64("total")?).set("mean", r.get_f64("mean")?),
            None => Json::object(),
        },
        "bad" => match db.query("SELEC name FROM users", &[]) {
            Ok(_) => Json::object(),
            Err(e) => failure(&e),
        },
        "readonly" => {
            let mut users = -1;
            let outcome = db.transaction_with(TxOptions { isolation: None, read_only: true }, |tx| {
                users = tx.query_row("SELECT count(*) FROM users", &[])?.map(|r| r.get_i64(0)).transpose()?.unwrap_or(-1);
                tx.exec("INSERT INTO users (name) VALUES ('Nobody')", &[])
            });
            let write = match outcome {
                Ok(_) => "committed",
                Err(e) => e.code.as_str(),
            };
            Json::object().set("users", users).set("write", write)
        }
        "isolation" => {
            let opts = TxOptions { isolation: Some(Isolation::Serializable), read_only: false };
            let level = db.transaction_with(opts, |tx| {
                Ok::<_, DbError>(tx.query_row("SELECT current_setting('transaction_isolation')", &[])?.map(|r| r.get_str(0).map(str::to_string)).transpose()?)
            })?;
            Json::object().set("isolation", level.unwrap_or_default())
        }
        // More parameters than a statement takes: the host's message
        // says so.
        "badparams" => match db.query("SELECT 1", &vec![Value::Null; 65536]) {
            Ok(_) => Json::object().set("errno", 0),
            Err(e) => {
                let says = e.message.contains("db_query: parameters must be a JSON array") && e.message.contains("more than 65535 parameters");
                Json::object().set("errno", if let Code::Host(n) = e.code { n.0 } else { 0 }).set("says", says)
            }
        },
        "nodb" => match Db::new("other").query("SELECT 1", &[]) {
            Ok(_) => Json::object(),
            Err(e) => failure(&e),
        },
        op => Json::object().set("unknown op", op),
    };
    respond(200, &answer)?;
    Ok(())
}

plain_route!(handle);
