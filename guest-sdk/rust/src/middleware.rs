//! What middleware modules (ABI §6.1) may do besides answering: change the
//! request the handler sees, pass it values, and say who the client is.
//! Declare a module with [`middleware!`](crate::middleware).

use crate::host::{self, len, Errno};
use crate::json::Json;

/// What `before` decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on to later middleware, validation and the handler.
    Continue = 0,
    /// The middleware answered (status, headers and body written): nothing
    /// after it runs.
    Answered = 1,
}

/// What `verify` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The credential is good and [`set_principal`] recorded who the client
    /// is.
    Ok = 0,
    /// The request carries no credential for the scheme: 401.
    Missing = 1,
    /// The credential is bad: 401.
    Rejected = 2,
}

/// Replaces a request header for later middleware, validation and the
/// handler; an empty value removes it. [`Errno::INVALID`] for headers that
/// frame the request (Content-Length, Host, ...).
pub fn set_request_header(name: &str, value: &str) -> Result<(), Errno> {
    Errno::check(unsafe { host::request_set_header(name.as_ptr(), len(name.as_bytes()), value.as_ptr(), len(value.as_bytes())) })
}

/// Passes a value to the handler, which reads it with
/// [`Request::context`](crate::Request::context): at most 64 values and 16
/// KiB in all.
pub fn set_context(name: &str, value: &str) -> Result<(), Errno> {
    Errno::check(unsafe { host::context_set(name.as_ptr(), len(name.as_bytes()), value.as_ptr(), len(value.as_bytes())) })
}

/// Records who the client is, in verify: `{"subject": "alice", "scopes":
/// ["orders:write"], "claims": {...}}`.
pub fn set_principal(principal: &Json) -> Result<(), Errno> {
    let b = principal.to_string();
    Errno::check(unsafe { host::principal_set(b.as_ptr(), len(b.as_bytes())) })
}
