//! The host functions of ABI v1 (`abi/README.md` §3), imported from the
//! module "endpoints", and the buffer protocol around them (§2). Every
//! pointer is an offset in this module's linear memory.

use std::fmt;

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "endpoints")]
extern "C" {
    pub fn request_read(buf: *mut u8, buf_len: i32) -> i32;
    pub fn request_value(part: i32, name: *const u8, name_len: i32, buf: *mut u8, buf_len: i32) -> i32;
    pub fn request_header(name: *const u8, name_len: i32, buf: *mut u8, buf_len: i32) -> i32;
    pub fn body_read(buf: *mut u8, buf_len: i32) -> i32;
    pub fn file_read(index: i32, buf: *mut u8, buf_len: i32) -> i32;
    pub fn response_set_status(status: i32) -> i32;
    pub fn response_set_header(name: *const u8, name_len: i32, value: *const u8, value_len: i32) -> i32;
    pub fn response_add_header(name: *const u8, name_len: i32, value: *const u8, value_len: i32) -> i32;
    pub fn response_write(buf: *const u8, buf_len: i32) -> i32;
    pub fn kv_get(key: *const u8, key_len: i32, buf: *mut u8, buf_len: i32) -> i32;
    pub fn kv_set(key: *const u8, key_len: i32, value: *const u8, value_len: i32, ttl_seconds: i32) -> i32;
    pub fn kv_delete(key: *const u8, key_len: i32) -> i32;
    pub fn kv_incr(key: *const u8, key_len: i32, delta: i64, out: *mut i64) -> i32;
    pub fn kv_list(prefix: *const u8, prefix_len: i32, after: *const u8, after_len: i32, buf: *mut u8, buf_len: i32) -> i32;
    pub fn log(level: i32, msg: *const u8, msg_len: i32);
    pub fn request_set_header(name: *const u8, name_len: i32, value: *const u8, value_len: i32) -> i32;
    pub fn context_set(name: *const u8, name_len: i32, value: *const u8, value_len: i32) -> i32;
    pub fn principal_set(json: *const u8, json_len: i32) -> i32;
    pub fn variable_get(name: *const u8, name_len: i32, buf: *mut u8, buf_len: i32) -> i32;
    pub fn http_send(req: *const u8, req_len: i32, body: *const u8, body_len: i32) -> i32;
    pub fn http_response(handle: i32, buf: *mut u8, buf_len: i32) -> i32;
    pub fn http_body_read(handle: i32, buf: *mut u8, buf_len: i32) -> i32;
    pub fn http_close(handle: i32) -> i32;
    pub fn http_error(buf: *mut u8, buf_len: i32) -> i32;
}

// The database functions (§3 "Databases"), imported only by a module that
// calls them.
#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "endpoints")]
extern "C" {
    pub fn db_query(db: *const u8, db_len: i32, sql: *const u8, sql_len: i32, params: *const u8, params_len: i32) -> i32;
    pub fn db_exec(db: *const u8, db_len: i32, sql: *const u8, sql_len: i32, params: *const u8, params_len: i32) -> i32;
    pub fn db_result(buf: *mut u8, buf_len: i32) -> i32;
    pub fn db_begin(db: *const u8, db_len: i32) -> i32;
    pub fn db_begin_with(db: *const u8, db_len: i32, opts: *const u8, opts_len: i32) -> i32;
    pub fn db_commit(db: *const u8, db_len: i32) -> i32;
    pub fn db_rollback(db: *const u8, db_len: i32) -> i32;
    pub fn db_timeout(timeout_ms: i32) -> i32;
}

/// Outside a wasm module (the crate's own unit tests) there is no host:
/// the functions exist so that the crate builds, and fail when called.
#[cfg(not(target_arch = "wasm32"))]
mod native {
    fn no_host() -> ! {
        panic!("the endpoints host functions exist only in a wasm32 route module")
    }
    pub unsafe fn request_read(_: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn request_value(_: i32, _: *const u8, _: i32, _: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn request_header(_: *const u8, _: i32, _: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn body_read(_: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn file_read(_: i32, _: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn response_set_status(_: i32) -> i32 { no_host() }
    pub unsafe fn response_set_header(_: *const u8, _: i32, _: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn response_add_header(_: *const u8, _: i32, _: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn response_write(_: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn kv_get(_: *const u8, _: i32, _: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn kv_set(_: *const u8, _: i32, _: *const u8, _: i32, _: i32) -> i32 { no_host() }
    pub unsafe fn kv_delete(_: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn kv_incr(_: *const u8, _: i32, _: i64, _: *mut i64) -> i32 { no_host() }
    pub unsafe fn kv_list(_: *const u8, _: i32, _: *const u8, _: i32, _: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn log(_: i32, _: *const u8, _: i32) {}
    pub unsafe fn request_set_header(_: *const u8, _: i32, _: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn context_set(_: *const u8, _: i32, _: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn principal_set(_: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn variable_get(_: *const u8, _: i32, _: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn http_send(_: *const u8, _: i32, _: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn http_response(_: i32, _: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn http_body_read(_: i32, _: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn http_close(_: i32) -> i32 { no_host() }
    pub unsafe fn http_error(_: *mut u8, _: i32) -> i32 { no_host() }
    pub unsafe fn db_query(_: *const u8, _: i32, _: *const u8, _: i32, _: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn db_exec(_: *const u8, _: i32, _: *const u8, _: i32, _: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn db_result(_: *mut u8, _: i32) -> i32 { no_host() }
    #[cfg(not(test))]
    pub unsafe fn db_begin(_: *const u8, _: i32) -> i32 { no_host() }
    #[cfg(not(test))]
    pub unsafe fn db_begin_with(_: *const u8, _: i32, _: *const u8, _: i32) -> i32 { no_host() }
    // The crate's unit tests record the transactions begun: which
    // function, with which options.
    #[cfg(test)]
    thread_local! {
        pub static BEGUN: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    #[cfg(test)]
    pub unsafe fn db_begin(_: *const u8, _: i32) -> i32 {
        BEGUN.with(|b| b.borrow_mut().push("db_begin".to_string()));
        0
    }
    #[cfg(test)]
    pub unsafe fn db_begin_with(_: *const u8, _: i32, opts: *const u8, opts_len: i32) -> i32 {
        let o = std::str::from_utf8(std::slice::from_raw_parts(opts, opts_len as usize)).unwrap().to_string();
        BEGUN.with(|b| b.borrow_mut().push(format!("db_begin_with {o}")));
        0
    }
    pub unsafe fn db_commit(_: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn db_rollback(_: *const u8, _: i32) -> i32 { no_host() }
    pub unsafe fn db_timeout(_: i32) -> i32 { no_host() }
}
#[cfg(not(target_arch = "wasm32"))]
pub use native::*;

/// An ABI error number (§3 "Errors"), returned by the functions of this
/// crate that a handler may want to handle: a client that went away, a
/// store that cannot be reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Errno(pub i32);

impl Errno {
    /// `-1`: no such value, header or key.
    pub const NOT_FOUND: Errno = Errno(-1);
    /// `-2`: a bad status, header name or value, key, or part.
    pub const INVALID: Errno = Errno(-2);
    /// `-3`: a status or header after a plain route's first body byte.
    pub const HEADERS_SENT: Errno = Errno(-3);
    /// `-4`: the body passed the host's limit.
    pub const BODY_TOO_LARGE: Errno = Errno(-4);
    /// `-5`: the client went away or stopped reading; a streaming handler
    /// should stop.
    pub const IO: Errno = Errno(-5);
    /// `-6`: a request function called outside a request.
    pub const STATE: Errno = Errno(-6);
    /// `-7`: the key-value store cannot be reached or is full; nothing
    /// changed.
    pub const UNAVAILABLE: Errno = Errno(-7);
    /// `-9`: an outbound request's origin is not in
    /// `outbound.allowedHosts`, or its address is private and not listed.
    pub const NOT_ALLOWED: Errno = Errno(-9);
    /// `-10`: an outbound bound: `limits.outboundRequests` of the call,
    /// `limits.outboundBytes` of a response read whole, the concurrent
    /// requests to one host (`outbound.maxConcurrentPerHost`), or a
    /// response's headers (64 KiB of one, `HTTPResponseHeaderMaxBytes`;
    /// `limits.outboundHeaderBytes` of the call's open responses, which
    /// dropping a [`Response`](crate::http::Response) gives back).
    pub const LIMIT: Errno = Errno(-10);
    /// `-8`: the database refused or failed a statement; the [`db`](crate::db)
    /// functions turn it into a [`DbError`](crate::db::DbError) saying why.
    pub const DATABASE: Errno = Errno(-8);

    /// Ok for 0 and positive results, the errno for negative ones.
    pub fn check(rc: i32) -> Result<(), Errno> {
        if rc < 0 {
            Err(Errno(rc))
        } else {
            Ok(())
        }
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match *self {
            Errno::NOT_FOUND => "not found",
            Errno::INVALID => "invalid argument",
            Errno::HEADERS_SENT => "headers already sent",
            Errno::BODY_TOO_LARGE => "body too large",
            Errno::IO => "I/O: the client went away or reading failed",
            Errno::STATE => "called outside a request",
            Errno::UNAVAILABLE => "the key-value store is unavailable",
            Errno::NOT_ALLOWED => "not allowed by outbound.allowedHosts",
            Errno::LIMIT => "an outbound limit was reached",
            Errno::DATABASE => "the database refused or failed the statement",
            _ => "unknown",
        };
        write!(f, "errno {} ({})", self.0, why)
    }
}

impl std::error::Error for Errno {}

/// The size of the first buffer a sized read offers the host.
const FIRST_BUFFER: usize = 1024;

/// Calls a host function that writes a whole value only when it fits
/// (§2): call(buf, len) returns the value's size, or a negative errno.
/// When the value is larger than the buffer it is called again with one of
/// that size.
pub(crate) fn read_sized(mut call: impl FnMut(*mut u8, i32) -> i32) -> Result<Vec<u8>, Errno> {
    let mut buf = vec![0u8; FIRST_BUFFER];
    let mut n = call(buf.as_mut_ptr(), buf.len() as i32);
    if n > buf.len() as i32 {
        buf.resize(n as usize, 0);
        n = call(buf.as_mut_ptr(), buf.len() as i32);
    }
    if n < 0 {
        return Err(Errno(n));
    }
    buf.truncate(n as usize);
    Ok(buf)
}

/// The bytes as text: the host hands over UTF-8; anything else is replaced
/// rather than trusted.
pub(crate) fn text(b: Vec<u8>) -> String {
    match String::from_utf8(b) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// A length for the ABI's i32 parameters.
pub(crate) fn len(b: &[u8]) -> i32 {
    b.len() as i32
}
