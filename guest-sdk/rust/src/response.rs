//! Answers. An endpoint's answer is buffered and checked against its
//! declared responses; a plain route's status and headers go out at its
//! first write and its bytes reach the client as they are written, which is
//! how a handler streams.

use crate::host::{self, len, Errno};
use crate::json::Json;

/// Sets the status (default 200). [`Errno::INVALID`] outside 200-599,
/// [`Errno::HEADERS_SENT`] after a plain route's first byte.
pub fn set_status(status: u16) -> Result<(), Errno> {
    Errno::check(unsafe { host::response_set_status(i32::from(status)) })
}

/// Sets a response header, replacing any of that name;
/// [`Errno::INVALID`] for a header the host owns (Content-Length,
/// Transfer-Encoding, ...) or a bad name or value.
pub fn set_header(name: &str, value: &str) -> Result<(), Errno> {
    Errno::check(unsafe { host::response_set_header(name.as_ptr(), len(name.as_bytes()), value.as_ptr(), len(value.as_bytes())) })
}

/// Adds a value to a response header.
pub fn add_header(name: &str, value: &str) -> Result<(), Errno> {
    Errno::check(unsafe { host::response_add_header(name.as_ptr(), len(name.as_bytes()), value.as_ptr(), len(value.as_bytes())) })
}

/// Appends bytes (or text) to the body. [`Errno::IO`] once the client went
/// away, when a streaming handler should stop.
pub fn write(body: impl AsRef<[u8]>) -> Result<(), Errno> {
    let b = body.as_ref();
    Errno::check(unsafe { host::response_write(b.as_ptr(), len(b)) })
}

/// Answers status with a JSON body (the declared `+json` profile, or
/// `application/json`).
pub fn respond(status: u16, body: &Json) -> Result<(), Errno> {
    set_status(status)?;
    write(body.to_string())
}

/// Answers status with a text body of content_type, e.g.
/// `"text/plain; charset=utf-8"`.
pub fn respond_text(status: u16, text: &str, content_type: &str) -> Result<(), Errno> {
    set_status(status)?;
    set_header("Content-Type", content_type)?;
    write(text)
}
