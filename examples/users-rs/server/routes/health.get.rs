//! GET /health - a plain route: no contract, so the host neither validates
//! its requests nor lists it in the OpenAPI document.

use endpoints::{plain_route, respond_text, Errno, Request};

fn health(_req: &Request) -> Result<(), Errno> {
    respond_text(200, "ok", "text/plain; charset=utf-8")
}

plain_route!(health);
