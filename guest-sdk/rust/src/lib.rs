//! Write Endpoints route modules (ABI v1, `abi/README.md` in the Endpoints
//! repository) in Rust, with nothing but std.
//!
//! A route source declares its contract with the [`Schema`] and
//! [`Contract`] builders and its handler with [`endpoint!`]; the host
//! validates every request against the contract before the handler runs,
//! so a handler reads its values as declared and checks nothing twice.
//!
//! ```no_run
//! use endpoints::{endpoint, respond, Contract, Json, Request, Schema};
//!
//! fn contract() -> Contract {
//!     Contract::new()
//!         .summary("Get a user")
//!         .param("id", Schema::integer().minimum(1))
//!         .response(200, "The user", Some(Schema::object().property("id", Schema::integer())))
//!         .response(404, "No such user", None)
//! }
//!
//! fn handle(req: &Request) -> Result<(), endpoints::Errno> {
//!     let id = req.param_i64("id"); // validated: an integer ≥ 1
//!     if id > 3 {
//!         return respond(404, &Json::object().set("message", format!("user {} not found", id)));
//!     }
//!     respond(200, &Json::object().set("id", id))
//! }
//!
//! endpoint!(contract(), handle);
//! ```
//!
//! A handler returns `()` or a `Result<(), E>` with `E: Display`: an `Err`
//! is logged and the client gets 500. A panic does the same (its message
//! and location reach the host's log) and the host replaces the instance.
//! When the last statement failed `Unavailable` or `Busy`, either is
//! answered 503 with `Retry-After` by the host instead: the database's
//! failure.

#![warn(missing_docs)]

mod contract;
pub mod db;
mod decode;
mod host;
pub mod http;
mod json;
pub mod kv;
pub mod log;
pub mod middleware;
mod request;
mod response;
mod variable;

pub use contract::{Contract, Schema};
pub use decode::{DecodeError, FromJson};
pub use host::Errno;
pub use json::{Json, ParseError};
pub use request::{Part, Request};
pub use response::{add_header, respond, respond_text, set_header, set_status, write};
pub use variable::variable;

/// The ABI version this crate speaks (`endpoints_abi_version`).
pub const ABI_VERSION: i32 = 1;

/// What a handler (or middleware function) returns: `()`, or a `Result`
/// whose error is logged and answered with 500.
pub trait Outcome<T> {
    /// The value, or None after logging the failure.
    fn into_value(self, what: &str) -> Option<T>;
}

impl Outcome<()> for () {
    fn into_value(self, _: &str) -> Option<()> {
        Some(())
    }
}

impl Outcome<middleware::Flow> for middleware::Flow {
    fn into_value(self, _: &str) -> Option<middleware::Flow> {
        Some(self)
    }
}

impl Outcome<middleware::Verdict> for middleware::Verdict {
    fn into_value(self, _: &str) -> Option<middleware::Verdict> {
        Some(self)
    }
}

impl<T, E: std::fmt::Display> Outcome<T> for Result<T, E> {
    fn into_value(self, what: &str) -> Option<T> {
        match self {
            Ok(v) => Some(v),
            Err(e) => {
                log::error(&format!("{} failed: {}", what, e));
                None
            }
        }
    }
}

/// What the macros expand to. Not a public API: it may change in any
/// version.
#[doc(hidden)]
pub mod __rt {
    use super::*;
    use std::sync::Once;

    static HOOK: Once = Once::new();
    thread_local! {
        /// The contract or middleware declaration, kept for the instance's
        /// life: the host reads it where endpoints_contract points.
        static DECLARATION: std::cell::RefCell<Option<Vec<u8>>> = std::cell::RefCell::new(None);
    }

    /// Routes panics to the host's log before the module traps.
    pub fn init() {
        HOOK.call_once(|| {
            std::panic::set_hook(Box::new(|info| log::error(&format!("panic: {}", info))));
        });
    }

    /// Keeps the declaration JSON for the life of the instance and returns
    /// where it is, as offset << 32 | length.
    pub fn declaration(build: impl FnOnce() -> Json) -> i64 {
        init();
        DECLARATION.with(|d| {
            let mut d = d.borrow_mut();
            let b = d.get_or_insert_with(|| build().to_string().into_bytes());
            ((b.as_ptr() as usize as i64) << 32) | b.len() as i64
        })
    }

    /// endpoints_contract.
    pub fn contract(build: impl FnOnce() -> Contract) -> i64 {
        declaration(|| build().into_json())
    }

    /// endpoints_handle: 0 answered, 1 a guest failure.
    pub fn handle<O: Outcome<()>>(handler: impl FnOnce(&Request) -> O) -> i32 {
        init();
        match handler(&Request::new()).into_value("handler") {
            Some(()) => 0,
            None => 1,
        }
    }

    /// endpoints_before: 0 continue, 1 answered, 2 a failure.
    pub fn before<O: Outcome<middleware::Flow>>(f: impl FnOnce(&Request) -> O) -> i32 {
        init();
        f(&Request::new()).into_value("middleware before").map_or(2, |flow| flow as i32)
    }

    /// endpoints_after: 0, or 1 for a failure (logged by the host).
    pub fn after<O: Outcome<()>>(f: impl FnOnce(&Request) -> O) -> i32 {
        init();
        f(&Request::new()).into_value("middleware after").map_or(1, |()| 0)
    }

    /// endpoints_verify: a [`middleware::Verdict`], or 3 for a failure.
    pub fn verify<O: Outcome<middleware::Verdict>>(f: impl FnOnce(&Request) -> O) -> i32 {
        init();
        f(&Request::new()).into_value("middleware verify").map_or(3, |v| v as i32)
    }
}

/// Makes the crate an endpoint: a contract (an expression giving a
/// [`Contract`], evaluated once per instance) and a handler (a function of
/// `&Request` returning `()` or `Result<(), E: Display>`). Use it once, at
/// the crate's top level:
///
/// ```ignore
/// endpoints::endpoint!(contract(), handle);
/// ```
///
/// It defines the exports `endpoints_abi_version`, `endpoints_contract`
/// and `endpoints_handle`.
#[macro_export]
macro_rules! endpoint {
    ($contract:expr, $handler:expr $(,)?) => {
        #[no_mangle]
        pub extern "C" fn endpoints_abi_version() -> i32 {
            $crate::ABI_VERSION
        }
        #[no_mangle]
        pub extern "C" fn endpoints_contract() -> i64 {
            $crate::__rt::contract(|| $contract)
        }
        #[no_mangle]
        pub extern "C" fn endpoints_handle() -> i32 {
            $crate::__rt::handle($handler)
        }
    };
}

/// Makes the crate a plain route: no contract, no validation, not in the
/// OpenAPI document; its answer streams as it is written.
///
/// ```ignore
/// endpoints::plain_route!(|_req: &Request| endpoints::respond_text(200, "ok", "text/plain"));
/// ```
#[macro_export]
macro_rules! plain_route {
    ($handler:expr $(,)?) => {
        #[no_mangle]
        pub extern "C" fn endpoints_abi_version() -> i32 {
            $crate::ABI_VERSION
        }
        #[no_mangle]
        pub extern "C" fn endpoints_handle() -> i32 {
            $crate::__rt::handle($handler)
        }
    };
}

/// Makes the crate a middleware module (ABI §6.1) from any of
/// `declaration` (a [`Json`] selecting routes and methods), `before`
/// (returning a [`middleware::Flow`]), `after` and `verify` (returning a
/// [`middleware::Verdict`]); each function takes `&Request` and may return
/// a `Result`:
///
/// ```ignore
/// endpoints::middleware! {
///     declaration: Json::object().set("routes", vec!["/api/**"]),
///     before: stamp,
///     after: audit,
/// }
/// ```
#[macro_export]
macro_rules! middleware {
    ($($export:ident : $value:expr),+ $(,)?) => {
        #[no_mangle]
        pub extern "C" fn endpoints_abi_version() -> i32 {
            $crate::ABI_VERSION
        }
        $($crate::__middleware_export!($export, $value);)+
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __middleware_export {
    (declaration, $value:expr) => {
        #[no_mangle]
        pub extern "C" fn endpoints_middleware() -> i64 {
            $crate::__rt::declaration(|| $value)
        }
    };
    (before, $value:expr) => {
        #[no_mangle]
        pub extern "C" fn endpoints_before() -> i32 {
            $crate::__rt::before($value)
        }
    };
    (after, $value:expr) => {
        #[no_mangle]
        pub extern "C" fn endpoints_after() -> i32 {
            $crate::__rt::after($value)
        }
    };
    (verify, $value:expr) => {
        #[no_mangle]
        pub extern "C" fn endpoints_verify() -> i32 {
            $crate::__rt::verify($value)
        }
    };
    ($other:ident, $value:expr) => {
        compile_error!(concat!("middleware! knows declaration, before, after and verify, not ", stringify!($other)));
    };
}
