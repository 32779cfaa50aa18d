// Answers. An endpoint's answer is buffered and checked against its
// declared responses; a plain route's status and headers go out at its
// first write and its bytes reach the client as they are written, which is
// how a handler streams.

import * as host from "./host";
import { Value, Writer } from "./json";

/** Sets the status (default 200); -2 outside 200-599, -3 after a plain
 * route's first byte. */
export function setStatus(status: i32): i32 {
  return host.response_set_status(status);
}

/** Sets a response header, replacing any of that name; -2 for a header
 * the host owns (Content-Length, Transfer-Encoding, ...) or a bad value. */
export function setHeader(name: string, value: string): i32 {
  const n = host.utf8(name);
  const v = host.utf8(value);
  return host.response_set_header(host.ptr(n), n.byteLength, host.ptr(v), v.byteLength);
}

/** Adds a value to a response header. */
export function addHeader(name: string, value: string): i32 {
  const n = host.utf8(name);
  const v = host.utf8(value);
  return host.response_add_header(host.ptr(n), n.byteLength, host.ptr(v), v.byteLength);
}

/** Appends text (as UTF-8) to the body; -5 once the client went away, when
 * a streaming handler should stop. */
export function write(text: string): i32 {
  const b = host.utf8(text);
  return host.response_write(host.ptr(b), b.byteLength);
}

/** Appends bytes to the body. */
export function writeBytes(b: Uint8Array): i32 {
  return host.response_write(b.dataStart, b.length);
}

/** Answers status with a JSON body (the declared +json profile, or
 * application/json). */
export function respond(status: i32, body: Value): i32 {
  const err = setStatus(status);
  if (err != 0) return err;
  const w = new Writer().value(body);
  return host.response_write(w.ptr(), w.length);
}

/** Answers status with a text body of contentType. */
export function respondText(status: i32, text: string, contentType: string = "text/plain; charset=utf-8"): i32 {
  let err = setStatus(status);
  if (err == 0) err = setHeader("Content-Type", contentType);
  if (err != 0) return err;
  return write(text);
}
