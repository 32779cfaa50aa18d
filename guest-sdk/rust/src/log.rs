//! Log lines, written to the host's log tagged with the route and the
//! request id.

use crate::host::{self, len};

fn line(level: i32, msg: &str) {
    unsafe { host::log(level, msg.as_ptr(), len(msg.as_bytes())) }
}

/// A debug line.
pub fn debug(msg: &str) {
    line(0, msg)
}

/// An info line.
pub fn info(msg: &str) {
    line(1, msg)
}

/// A warning.
pub fn warn(msg: &str) {
    line(2, msg)
}

/// An error line.
pub fn error(msg: &str) {
    line(3, msg)
}
