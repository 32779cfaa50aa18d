//! The request a handler serves: the validated values of its contract, the
//! raw headers and body, and what the host and middleware added.

use std::cell::{Ref, RefCell};

use crate::decode::{DecodeError, FromJson};
use crate::host::{self, len, read_sized, text, Errno};
use crate::json::Json;

/// The parts of a request [`Request::value`] reads (ABI §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Path parameters.
    Params = 0,
    /// Query parameters.
    Query = 1,
    /// The headers the contract declares.
    Headers = 2,
    /// A JSON, form or multipart body.
    Body = 3,
}

/// The request of the current call. The host validated params, query,
/// headers and a JSON, form or multipart body against the contract before
/// the handler runs, coerced them to their schema types and filled in
/// defaults: a handler reads them as they are declared.
pub struct Request {
    envelope: RefCell<Option<Json>>,
}

impl Request {
    pub(crate) fn new() -> Request {
        Request { envelope: RefCell::new(None) }
    }

    /// The validated value name of a part as JSON text, or `None` when the
    /// request has none (an optional parameter left out). An empty name
    /// reads the whole part.
    pub fn value_text(&self, part: Part, name: &str) -> Option<String> {
        let b = read_sized(|buf, n| unsafe { host::request_value(part as i32, name.as_ptr(), len(name.as_bytes()), buf, n) }).ok()?;
        Some(text(b))
    }

    /// The validated value name of a part, or `None` when the request has
    /// none. An empty name reads the whole part.
    ///
    /// # Panics
    ///
    /// When the host's text is not JSON, which would be a host bug.
    pub fn value(&self, part: Part, name: &str) -> Option<Json> {
        let t = self.value_text(part, name)?;
        Some(Json::parse(&t).unwrap_or_else(|e| panic!("request_value({:?}, {:?}) gave text that is not JSON: {}", part, name, e)))
    }

    /// A path parameter, e.g. "id" of `/api/users/[id]`.
    pub fn param(&self, name: &str) -> Option<Json> {
        self.value(Part::Params, name)
    }

    /// An integer value of a part, read straight from the host's digits
    /// (validated integers arrive in decimal, without fraction or
    /// exponent): no JSON value is built.
    ///
    /// # Panics
    ///
    /// When the value is absent or not an integer that fits i64: the
    /// contract does not declare it as one. The client gets 500.
    pub fn int(&self, part: Part, name: &str) -> i64 {
        match self.int_opt(part, name) {
            Some(v) => v,
            None => panic!("the request has no {:?} value {:?}", part, name),
        }
    }

    /// [`Request::int`], `None` when the request has no such value.
    fn int_opt(&self, part: Part, name: &str) -> Option<i64> {
        let mut buf = [0u8; 24];
        let n = unsafe { host::request_value(part as i32, name.as_ptr(), len(name.as_bytes()), buf.as_mut_ptr(), buf.len() as i32) };
        let digits: &[u8] = if n >= 0 && (n as usize) <= buf.len() { &buf[..n as usize] } else { &[] };
        match std::str::from_utf8(digits).ok().and_then(|s| s.parse().ok()) {
            Some(v) => Some(v),
            None if n == -1 => None,
            None => panic!("the {:?} value {:?} is not an integer that fits i64: {:?}", part, name, self.value_text(part, name)),
        }
    }

    /// An integer path parameter. See [`Request::int`].
    pub fn param_i64(&self, name: &str) -> i64 {
        self.int(Part::Params, name)
    }

    /// A string path parameter.
    ///
    /// # Panics
    ///
    /// When the route has no such parameter or it is not a string.
    pub fn param_str(&self, name: &str) -> String {
        match self.param(name) {
            Some(Json::String(s)) => s,
            v => panic!("path parameter {:?} is not a string: {:?}", name, v),
        }
    }

    /// A query parameter, or `None` when absent and without a default.
    pub fn query(&self, name: &str) -> Option<Json> {
        self.value(Part::Query, name)
    }

    /// A string query parameter, or `None` when absent and without a
    /// default: `req.query_str("q").unwrap_or_default()`.
    ///
    /// # Panics
    ///
    /// When the value is not a string: the contract declares it as another
    /// type. The client gets 500.
    pub fn query_str(&self, name: &str) -> Option<String> {
        match self.query(name)? {
            Json::String(s) => Some(s),
            v => panic!("query parameter {:?} is not a string: {}", name, v),
        }
    }

    /// An integer query parameter, or `None` when absent and without a
    /// default: `req.query_i64("limit").unwrap_or(20)`, or with the
    /// contract's `default_value(20)` `req.query_i64("limit").expect(...)`.
    /// Read from the host's digits, as [`Request::int`] does.
    ///
    /// # Panics
    ///
    /// When the value is not an integer that fits i64: the contract does
    /// not declare it as one. The client gets 500.
    pub fn query_i64(&self, name: &str) -> Option<i64> {
        self.int_opt(Part::Query, name)
    }

    /// The validated body (JSON, form or multipart fields), or `None` when
    /// the request has none.
    pub fn body(&self) -> Option<Json> {
        self.value(Part::Body, "")
    }

    /// The validated body read as `T` (see [`FromJson`]): `None` when the
    /// request has none, an error when `T` and the contract's body schema
    /// disagree.
    pub fn body_as<T: FromJson>(&self) -> Option<Result<T, DecodeError>> {
        self.body().map(|b| T::from_json(&b))
    }

    /// Any request header, raw: its values joined with ", ", or `None`.
    pub fn header(&self, name: &str) -> Option<String> {
        let b = read_sized(|buf, n| unsafe { host::request_header(name.as_ptr(), len(name.as_bytes()), buf, n) }).ok()?;
        Some(text(b))
    }

    /// The whole request envelope (ABI §4), read once per call.
    ///
    /// # Panics
    ///
    /// When the host's envelope is not JSON, which would be a host bug.
    pub fn envelope(&self) -> Ref<'_, Json> {
        if self.envelope.borrow().is_none() {
            let b = read_sized(|buf, n| unsafe { host::request_read(buf, n) }).unwrap_or_else(|e| panic!("request_read failed: {}", e));
            let v = Json::parse(&text(b)).unwrap_or_else(|e| panic!("the request envelope is not JSON: {}", e));
            *self.envelope.borrow_mut() = Some(v);
        }
        Ref::map(self.envelope.borrow(), |e| e.as_ref().unwrap())
    }

    fn member(&self, name: &str) -> String {
        self.envelope()[name].as_str().unwrap_or("").to_string()
    }

    /// The request method, e.g. "GET".
    pub fn method(&self) -> String {
        self.member("method")
    }

    /// The request path, e.g. "/api/users/7".
    pub fn path(&self) -> String {
        self.member("path")
    }

    /// The route template, e.g. "/api/users/:id".
    pub fn route(&self) -> String {
        self.member("route")
    }

    /// The query string as received, without "?".
    pub fn raw_query(&self) -> String {
        self.member("rawQuery")
    }

    /// The request id the host accepted or made (X-Request-Id).
    pub fn request_id(&self) -> String {
        self.member("requestId")
    }

    /// The trace id of the request's W3C traceparent (32 lowercase hex
    /// digits), or "" when it carried no valid one.
    pub fn trace_id(&self) -> String {
        self.member("traceId")
    }

    /// The client the host authenticated (`{"scheme", "subject", "scopes",
    /// "claims"}`), or `None` for an operation without security.
    pub fn auth(&self) -> Option<Json> {
        self.envelope().get("auth").cloned()
    }

    /// A value middleware set with `context_set`, or `None`.
    pub fn context(&self, name: &str) -> Option<String> {
        self.envelope()["context"][name].as_str().map(str::to_string)
    }

    /// Reads the next bytes of the raw body into buf: the number read, 0 at
    /// the end.
    pub fn read_body_into(&self, buf: &mut [u8]) -> Result<usize, Errno> {
        let n = unsafe { host::body_read(buf.as_mut_ptr(), len(buf)) };
        Errno::check(n).map(|_| n as usize)
    }

    /// The whole raw body.
    pub fn read_body(&self) -> Result<Vec<u8>, Errno> {
        read_all(|buf, n| unsafe { host::body_read(buf, n) })
    }

    /// The raw body as text (invalid UTF-8 replaced by U+FFFD).
    pub fn read_body_text(&self) -> Result<String, Errno> {
        self.read_body().map(text)
    }

    /// The bytes of file index of a multipart body (the envelope's
    /// "files"), or `None` when there is no such file.
    pub fn read_file(&self, index: u32) -> Option<Result<Vec<u8>, Errno>> {
        let mut probe = [0u8; 0];
        if unsafe { host::file_read(index as i32, probe.as_mut_ptr(), 0) } == -1 {
            return None;
        }
        Some(read_all(|buf, n| unsafe { host::file_read(index as i32, buf, n) }))
    }
}

/// Reads a stream to its end: read(buf, len) returns the bytes read, 0 at
/// the end or a negative errno.
fn read_all(mut read: impl FnMut(*mut u8, i32) -> i32) -> Result<Vec<u8>, Errno> {
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = read(chunk.as_mut_ptr(), len(&chunk));
        Errno::check(n)?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&chunk[..n as usize]);
    }
}
