//! The app's key-value store (ABI §4.3): in memory on one host, Redis when
//! several share the app. Route modules keep no state across requests;
//! what must last goes here. Every function returns [`Errno::UNAVAILABLE`]
//! when the store cannot be reached, and nothing changed.

use crate::host::{self, len, read_sized, text, Errno};
use crate::json::Json;

/// The value stored under key, or `None` when there is none.
pub fn get_bytes(key: &str) -> Result<Option<Vec<u8>>, Errno> {
    match read_sized(|buf, n| unsafe { host::kv_get(key.as_ptr(), len(key.as_bytes()), buf, n) }) {
        Ok(v) => Ok(Some(v)),
        Err(Errno::NOT_FOUND) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The value stored under key as text, or `None` when there is none.
pub fn get(key: &str) -> Result<Option<String>, Errno> {
    get_bytes(key).map(|v| v.map(text))
}

/// Stores value under key for ttl_seconds (0 keeps it until replaced).
/// [`Errno::INVALID`] for an empty or too long key or value.
pub fn set(key: &str, value: impl AsRef<[u8]>, ttl_seconds: u32) -> Result<(), Errno> {
    let v = value.as_ref();
    let ttl = i32::try_from(ttl_seconds).unwrap_or(i32::MAX);
    Errno::check(unsafe { host::kv_set(key.as_ptr(), len(key.as_bytes()), v.as_ptr(), len(v), ttl) })
}

/// Removes key: whether there was one.
pub fn delete(key: &str) -> Result<bool, Errno> {
    match Errno::check(unsafe { host::kv_delete(key.as_ptr(), len(key.as_bytes())) }) {
        Ok(()) => Ok(true),
        Err(Errno::NOT_FOUND) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Adds delta to the counter under key, atomically across hosts, and
/// returns the new value; an absent counter starts at 0.
/// [`Errno::INVALID`] when the value is not a decimal integer or the sum
/// overflows i64.
pub fn incr(key: &str, delta: i64) -> Result<i64, Errno> {
    let mut out: i64 = 0;
    Errno::check(unsafe { host::kv_incr(key.as_ptr(), len(key.as_bytes()), delta, &mut out) })?;
    Ok(out)
}

/// Keys with prefix sorting after `after`, at most 1000; pass the last key
/// of a full page as `after` to read the next.
pub fn list(prefix: &str, after: &str) -> Result<Vec<String>, Errno> {
    let b = read_sized(|buf, n| unsafe { host::kv_list(prefix.as_ptr(), len(prefix.as_bytes()), after.as_ptr(), len(after.as_bytes()), buf, n) })?;
    let keys = Json::parse(&text(b)).map_err(|_| Errno::INVALID)?;
    Ok(keys.as_array().unwrap_or(&[]).iter().filter_map(|k| k.as_str().map(str::to_string)).collect())
}
