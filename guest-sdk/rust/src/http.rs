//! Outbound HTTP (ABI §3.1): requests to the services `endpoints.json`'s
//! `outbound.allowedHosts` lists, sent by the host within the call's
//! deadline. [`fetch`] sends one and returns the [`Response`] once its
//! status and headers arrived; its body is read as it comes.
//!
//! ```no_run
//! let mut res = endpoints::http::fetch("POST", "https://api.example.com/v1/events",
//!     &[("content-type", "application/json")], br#"{"type":"order.created"}"#)?;
//! if res.status >= 300 {
//!     endpoints::log::warn(&format!("the event was refused: {}", res.status));
//! }
//! let text = res.text()?; // bounded by limits.outboundBytes
//! # Ok::<(), endpoints::http::Error>(())
//! ```

use std::fmt;
use std::time::Duration;

use crate::host::{self, len, read_sized, text, Errno};
use crate::json::Json;

/// Why an outbound request failed: the errno of the host function and the
/// host's reason (`http_error`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// [`Errno::NOT_ALLOWED`], [`Errno::LIMIT`], [`Errno::IO`],
    /// [`Errno::INVALID`]...
    pub errno: Errno,
    /// `not_allowed`, `limit`, `timeout`, `connect`, `tls`, `protocol`,
    /// `redirect` or `invalid`; empty when the host gave none.
    pub code: String,
    /// What failed, for a log line.
    pub message: String,
}

impl Error {
    fn last(errno: Errno) -> Error {
        let mut e = Error { errno, code: String::new(), message: String::new() };
        if let Ok(b) = read_sized(|buf, n| unsafe { host::http_error(buf, n) }) {
            if let Ok(j) = Json::parse(&text(b)) {
                e.code = j["code"].as_str().unwrap_or("").to_string();
                e.message = j["message"].as_str().unwrap_or("").to_string();
            }
        }
        e
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.code.is_empty() {
            write!(f, "outbound request: {}", self.errno)
        } else {
            write!(f, "outbound request: {}: {}", self.code, self.message)
        }
    }
}

impl std::error::Error for Error {}

/// An outbound response: its status and headers, and its body to read.
/// Dropping it releases it (`http_close`).
#[derive(Debug)]
pub struct Response {
    handle: i32,
    done: bool,
    /// The status code, after any redirects the host followed.
    pub status: u16,
    /// The headers, names in lower case, one pair per value.
    pub headers: Vec<(String, String)>,
}

impl Response {
    /// The first value of the header name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Reads the next bytes of the body into buf: how many, 0 at the end.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        let n = unsafe { host::http_body_read(self.handle, buf.as_mut_ptr(), len(buf)) };
        if n < 0 {
            self.done = true;
            return Err(Error::last(Errno(n)));
        }
        if n == 0 {
            self.done = true;
        }
        Ok(n as usize)
    }

    /// The whole body. Past `limits.outboundBytes` (16 MiB by default) it
    /// fails with [`Errno::LIMIT`]: stream larger bodies with [`Response::read`]
    /// after a request that asked to (`stream`).
    pub fn bytes(mut self) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 16 << 10];
        loop {
            let n = self.read(&mut buf)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    /// The whole body as text (invalid UTF-8 replaced).
    pub fn text(self) -> Result<String, Error> {
        self.bytes().map(text)
    }

    /// The whole body as JSON.
    pub fn json(self) -> Result<Json, Error> {
        let t = self.text()?;
        Json::parse(&t).map_err(|e| Error { errno: Errno::INVALID, code: "protocol".to_string(), message: format!("the body is not JSON: {}", e) })
    }
}

impl Drop for Response {
    fn drop(&mut self) {
        unsafe { host::http_close(self.handle) };
    }
}

/// Sends a request with method, absolute url, headers and body, and
/// returns its response once the status and headers arrived.
pub fn fetch(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Result<Response, Error> {
    send(method, url, headers, body, false)
}

/// Like [`fetch`], but the response body is not bounded by
/// `limits.outboundBytes` (only by the call's deadline): for a body passed
/// on as it is read.
pub fn fetch_stream(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Result<Response, Error> {
    send(method, url, headers, body, true)
}

/// Sends a GET of url.
pub fn get(url: &str) -> Result<Response, Error> {
    fetch("GET", url, &[], &[])
}

/// How [`fetch_with`] sends a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Lifts `limits.outboundBytes` from the response body, as
    /// [`fetch_stream`] does.
    pub stream: bool,
    /// Bounds the request (connecting, its status and headers and every
    /// read of its body) below the call's deadline, rounded up to a
    /// millisecond (`Duration::ZERO` is 1 ms, not none); one longer than
    /// an hour, longer than any call runs, is an hour. Past it, [`Errno::IO`] with the code
    /// `timeout`, and the handler answers from a fallback with the rest of
    /// its time. `None` is the call's deadline alone.
    pub timeout: Option<Duration>,
}

/// Like [`fetch`], with [`Options`]: a timeout of the request's own, or a
/// streamed body.
///
/// ```no_run
/// use std::time::Duration;
/// use endpoints::http::{fetch_with, Options};
/// let opts = Options { timeout: Some(Duration::from_millis(300)), ..Options::default() };
/// match fetch_with("GET", "https://rates.example.com/v1/eur", &[], &[], opts) {
///     Err(e) if e.code == "timeout" => { /* answer from a fallback */ }
///     r => { let _ = r?.text()?; }
/// }
/// # Ok::<(), endpoints::http::Error>(())
/// ```
pub fn fetch_with(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8], opts: Options) -> Result<Response, Error> {
    let req = request_json(method, url, headers, opts)?;
    send_json(&req, body)
}

/// The http_send JSON of a request (ABI §3.1).
fn request_json(method: &str, url: &str, headers: &[(&str, &str)], opts: Options) -> Result<String, Error> {
    let mut hs = Json::array();
    for (k, v) in headers {
        let mut pair = Json::array();
        pair.push(*k);
        pair.push(*v);
        hs.push(pair);
    }
    let mut req = Json::object().set("method", method).set("url", url).set("headers", hs);
    if opts.stream {
        req = req.set("stream", true);
    }
    // Past an hour, longer than any call runs: an hour, as the other SDKs
    // clamp it.
    match crate::db::timeout_ms(opts.timeout).unwrap_or(crate::db::TIMEOUT_MAX_MS) {
        0 => {}
        ms => req = req.set("timeout", ms as i64),
    }
    Ok(req.to_string())
}

fn send(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8], stream: bool) -> Result<Response, Error> {
    fetch_with(method, url, headers, body, Options { stream, timeout: None })
}

fn send_json(req: &str, body: &[u8]) -> Result<Response, Error> {
    let h = unsafe { host::http_send(req.as_ptr(), len(req.as_bytes()), body.as_ptr(), len(body)) };
    if h < 0 {
        return Err(Error::last(Errno(h)));
    }
    let head = read_sized(|buf, n| unsafe { host::http_response(h, buf, n) }).map_err(|e| Error { errno: e, code: String::new(), message: String::new() })?;
    let head = Json::parse(&text(head)).map_err(|e| Error { errno: Errno::INVALID, code: "protocol".to_string(), message: e.to_string() })?;
    let mut res = Response { handle: h, done: false, status: head["status"].as_u64().unwrap_or(0) as u16, headers: Vec::new() };
    for pair in head["headers"].as_array().unwrap_or(&[]) {
        if let (Some(k), Some(v)) = (pair[0].as_str(), pair[1].as_str()) {
            res.headers.push((k.to_string(), v.to_string()));
        }
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_json_carries_its_options() {
        let plain = request_json("GET", "https://a.example/", &[("x", "1")], Options::default()).unwrap();
        assert_eq!(plain, r#"{"method":"GET","url":"https://a.example/","headers":[["x","1"]]}"#);
        let timed = request_json("GET", "https://a.example/", &[], Options { stream: true, timeout: Some(Duration::from_micros(300_500)) }).unwrap();
        assert_eq!(timed, r#"{"method":"GET","url":"https://a.example/","headers":[],"stream":true,"timeout":301}"#);
        let spent = request_json("GET", "https://a.example/", &[], Options { timeout: Some(Duration::ZERO), ..Options::default() }).unwrap();
        assert_eq!(spent, r#"{"method":"GET","url":"https://a.example/","headers":[],"timeout":1}"#);
        // Past an hour, longer than any call runs: an hour, as the Go, C
        // and AssemblyScript SDKs clamp it.
        for secs in [3601, 7200, u64::MAX] {
            let long = request_json("GET", "https://a.example/", &[], Options { timeout: Some(Duration::from_secs(secs)), ..Options::default() }).unwrap();
            assert_eq!(long, r#"{"method":"GET","url":"https://a.example/","headers":[],"timeout":3600000}"#, "{} s", secs);
        }
    }
}
