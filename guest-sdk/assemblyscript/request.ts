// The request a handler serves: the validated values of its contract, the
// raw headers and body, and what the host and middleware added.

import * as host from "./host";
import { Value, parse, parseError } from "./json";

/** The parts of a request request_value reads (ABI §3). */
export enum Part {
  Params = 0,
  Query = 1,
  Headers = 2,
  Body = 3,
}

/**
 * The request of the current call. The host validated params, query,
 * headers and a JSON, form or multipart body against the contract before
 * the handler runs, coerced them to their schema types and filled in
 * defaults: a handler reads them as they are declared.
 */
export class Request {
  private env: Value | null = null;

  /** The validated value name of a part as JSON, or null when the request
   * has none (an optional parameter left out). An empty name reads the
   * whole part. */
  value(part: Part, name: string): Value | null {
    const key = host.utf8(name);
    let n = host.request_value(part, host.ptr(key), key.byteLength, host.scratchPtr(), host.scratchLen());
    if (n > host.scratchLen()) {
      host.grow(n);
      n = host.request_value(part, host.ptr(key), key.byteLength, host.scratchPtr(), host.scratchLen());
    }
    if (n < 0) return null;
    const v = parse(host.scratchText(n));
    assert(v != null, "request_value gave text that is not JSON: " + parseError);
    return v;
  }

  /** A path parameter, e.g. "id" of /api/users/[id]. */
  param(name: string): Value | null {
    return this.value(Part.Params, name);
  }

  /** An integer path parameter; aborts (500) when the contract does not
   * declare it as an integer. Read straight from the host's bytes: no
   * JSON value is built. */
  paramInt(name: string): i64 {
    return this.int(Part.Params, name);
  }

  /** An integer value of a part (the host writes validated integers in
   * decimal, without fraction or exponent); aborts when absent. */
  int(part: Part, name: string): i64 {
    const key = host.utf8(name);
    let n = host.request_value(part, host.ptr(key), key.byteLength, host.scratchPtr(), host.scratchLen());
    if (n > host.scratchLen()) {
      host.grow(n);
      n = host.request_value(part, host.ptr(key), key.byteLength, host.scratchPtr(), host.scratchLen());
    }
    assert(n > 0, "no value " + name);
    const p = host.scratchPtr();
    const neg = load<u8>(p) == 45; // '-'
    let v: u64 = 0;
    for (let i = neg ? 1 : 0; i < n; i++) {
      const d = <u32>load<u8>(p + <usize>i) - 48;
      assert(d <= 9, name + " is not an integer: " + host.scratchText(n));
      const next = v * 10 + <u64>d;
      assert(next / 10 == v && next <= (neg ? <u64>9223372036854775808 : <u64>9223372036854775807), name + " is out of the i64 range");
      v = next;
    }
    return neg ? -(<i64>v) : <i64>v;
  }

  /** A string path parameter. */
  paramString(name: string): string {
    const v = this.param(name);
    assert(v != null, "no path parameter " + name);
    return v!.asString();
  }

  /** A query parameter, or null when absent and without a default. */
  query(name: string): Value | null {
    return this.value(Part.Query, name);
  }

  /** The validated body (JSON, form or multipart fields), or null when the
   * request has none. */
  body(): Value | null {
    return this.value(Part.Body, "");
  }

  /** Any request header, raw: its values joined with ", ", or null. */
  header(name: string): string | null {
    const key = host.utf8(name);
    let n = host.request_header(host.ptr(key), key.byteLength, host.scratchPtr(), host.scratchLen());
    if (n > host.scratchLen()) {
      host.grow(n);
      n = host.request_header(host.ptr(key), key.byteLength, host.scratchPtr(), host.scratchLen());
    }
    return n < 0 ? null : host.scratchText(n);
  }

  /** The whole request envelope (ABI §4), read once per call. */
  envelope(): Value {
    if (this.env == null) {
      let n = host.request_read(host.scratchPtr(), host.scratchLen());
      if (n > host.scratchLen()) {
        host.grow(n);
        n = host.request_read(host.scratchPtr(), host.scratchLen());
      }
      assert(n >= 0, "request_read failed: " + n.toString());
      const v = parse(host.scratchText(n));
      assert(v != null, "the request envelope is not JSON: " + parseError);
      this.env = v;
    }
    return this.env!;
  }

  private member(name: string): string {
    const v = this.envelope().get(name);
    return v == null ? "" : v.asString();
  }

  /** The request method, e.g. "GET". */
  get method(): string {
    return this.member("method");
  }

  /** The request path, e.g. "/api/users/7". */
  get path(): string {
    return this.member("path");
  }

  /** The route template, e.g. "/api/users/:id". */
  get route(): string {
    return this.member("route");
  }

  /** The query string as received, without "?". */
  get rawQuery(): string {
    return this.member("rawQuery");
  }

  /** The request id the host accepted or made (X-Request-Id). */
  get requestId(): string {
    return this.member("requestId");
  }

  /** The trace id of the request's W3C traceparent (32 lowercase hex
   * digits), or "" when it carried no valid one. */
  get traceId(): string {
    return this.member("traceId");
  }

  /** The client the host authenticated ({"scheme", "subject", "scopes",
   * "claims"}), or null for an operation without security. */
  auth(): Value | null {
    return this.envelope().get("auth");
  }

  /** A value middleware set with context_set, or null. */
  context(name: string): string | null {
    const ctx = this.envelope().get("context");
    if (ctx == null) return null;
    const v = ctx.get(name);
    return v == null ? null : v.asString();
  }

  /** Reads the next bytes of the raw body into buf; 0 at the end, a
   * negative errno on failure (-4 too large, -5 the client went away). */
  readBodyInto(buf: Uint8Array): i32 {
    return host.body_read(buf.dataStart, buf.length);
  }

  /** The whole raw body. Aborts (500) when reading fails. */
  readBody(): Uint8Array {
    return readAll(-1);
  }

  /** The raw body as UTF-8 text. */
  readBodyText(): string {
    return String.UTF8.decode(this.readBody().buffer);
  }

  /** The bytes of file index of a multipart body (the envelope's "files"),
   * or null when there is no such file. */
  readFile(index: i32): Uint8Array | null {
    const first = host.file_read(index, host.scratchPtr(), 0);
    if (first == -1) return null;
    return readAll(index);
  }
}

/** readAll reads a whole stream: the body (index -1) or file index. */
function readAll(index: i32): Uint8Array {
  const chunks = new Array<ArrayBuffer>();
  let total = 0;
  for (;;) {
    const n = index < 0 ? host.body_read(host.scratchPtr(), host.scratchLen()) : host.file_read(index, host.scratchPtr(), host.scratchLen());
    assert(n >= 0, "reading the request body failed: errno " + n.toString());
    if (n == 0) break;
    chunks.push(host.scratchBytes(n));
    total += n;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (let i = 0; i < chunks.length; i++) {
    out.set(Uint8Array.wrap(chunks[i]), at);
    at += chunks[i].byteLength;
  }
  return out;
}
