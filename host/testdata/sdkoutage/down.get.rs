// The Rust route of TestSDKDatabaseOutage: a plain route that runs the
// statement of its x-sql header on the database main and, when it fails,
// returns the error through the SDK's usual path (x-how: err) or unwraps it
// (x-how: panic), as the README's Data snippets do.
use endpoints::db::{Db, DbError};
use endpoints::{plain_route, respond_text, Request};

fn handle(req: &Request) -> Result<(), DbError> {
    let db = Db::new("main");
    let sql = req.header("x-sql").unwrap_or_default();
    if req.header("x-how").as_deref() == Some("panic") {
        db.query(&sql, &[]).unwrap();
    } else {
        db.query(&sql, &[])?;
    }
    Ok(respond_text(200, "up", "text/plain")?)
}

plain_route!(handle);
