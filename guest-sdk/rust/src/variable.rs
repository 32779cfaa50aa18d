//! The app's variables (`endpoints.json` "variables", `abi/README.md` §3):
//! values the host resolves from its environment, a file or a default.

use crate::host::{self, len, read_sized, text, Errno};
use crate::log;

/// The value of the app's variable `name`. [`Errno::NOT_FOUND`] when the
/// app does not declare it, which also logs an error line naming the
/// variable (the errno alone, returned with `?`, would not say which);
/// [`Errno::STATE`] outside a request (variables are not available while
/// the module loads, since a reload may change them). An optional variable
/// without a value is `""`.
///
/// ```no_run
/// let url = endpoints::variable("webhookUrl")?;
/// if !url.is_empty() {
///     // post to url
/// }
/// # Ok::<(), endpoints::Errno>(())
/// ```
///
/// A secret variable reads the same way: the host never writes its value
/// anywhere, so a handler that logs it gives it away.
pub fn variable(name: &str) -> Result<String, Errno> {
    let value = read_sized(|buf, n| unsafe { host::variable_get(name.as_ptr(), len(name.as_bytes()), buf, n) });
    if value == Err(Errno::NOT_FOUND) {
        log::error(&format!("variable {:?}: the app declares no such variable in endpoints.json \"variables\"", name));
    }
    value.map(text)
}
