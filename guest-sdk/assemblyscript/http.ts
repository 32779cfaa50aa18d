// Outbound HTTP (ABI §3.1): requests to the services endpoints.json's
// outbound.allowedHosts lists, sent by the host within the call's
// deadline. fetch sends one and returns the Response once its status and
// headers arrived; its body is read as it comes.
//
//     const res = http.fetch("https://api.example.com/v1/rates");
//     if (res.ok) {
//       const rates = res.json();
//     } else {
//       log.warn("rates: " + res.error); // "not_allowed: ..." when refused
//     }

import * as host from "./host";
import { Value, parse } from "./json";

/** The longest timeoutMs the host takes (abi.HTTPTimeoutMax): an hour,
 * longer than any call runs. */
export const HTTP_TIMEOUT_MAX_MS: i32 = 3600000;

/** What fetch sends besides the URL. */
export class Init {
  /** The method; GET by default. */
  method: string = "GET";
  /** Headers as [name, value] pairs; a name may repeat. */
  headers: Array<Array<string>> = [];
  /** The body, UTF-8 text. */
  body: string = "";
  /** Lift limits.outboundBytes from the response body (only the call's
   * deadline bounds it): for a body passed on as it is read. */
  stream: bool = false;
  /** Bounds the request in milliseconds (connecting, its status and
   * headers and every read of its body), below the call's deadline: past
   * it, errno -5 and an error "timeout: ...", and the handler answers
   * from a fallback with the rest of its time. 0 is none (the call's
   * deadline alone); past 3600000 (an hour, longer than any call runs) it
   * is sent as 3600000, as the other SDKs clamp it; below 0 the host
   * refuses the request (-2). */
  timeoutMs: i32 = 0;
}

/** An outbound response. When the request failed, status is 0, errno the
 * host's (-9 not allowed, -10 limit, -5 I/O, -2 invalid) and error says
 * why. -10 is an outbound bound: limits.outboundRequests of the call,
 * limits.outboundBytes of a response read whole, the concurrent requests
 * to one host (outbound.maxConcurrentPerHost), or a response's headers
 * (64 KiB of one, HTTPResponseHeaderMaxBytes; limits.outboundHeaderBytes
 * of the call's open responses, which close() gives back). */
export class Response {
  /** The status code, after any redirects the host followed; 0 when the
   * request failed. */
  status: i32 = 0;
  /** The headers as [name, value] pairs, names in lower case. */
  headers: Array<Array<string>> = [];
  /** The errno of the failed host call, 0 when none failed. */
  errno: i32 = 0;
  /** "code: message" of the failure (http_error), "" when none. */
  error: string = "";
  handle: i32 = -1;
  done: bool = false;

  /** Whether the request succeeded with a 2xx status. */
  get ok(): bool {
    return this.status >= 200 && this.status < 300;
  }

  /** The first value of header name (case-insensitive), or null. */
  header(name: string): string | null {
    const n = name.toLowerCase();
    for (let i = 0; i < this.headers.length; i++) {
      if (this.headers[i][0] == n) return this.headers[i][1];
    }
    return null;
  }

  /** Reads the next bytes of the body into buf: how many, 0 at the end, a
   * negative errno on failure (error says why). */
  read(buf: Uint8Array): i32 {
    if (this.done || this.handle < 0) return 0;
    const n = host.http_body_read(this.handle, buf.dataStart, buf.byteLength);
    if (n < 0) this.fail(n);
    if (n <= 0) this.close();
    return n;
  }

  /** The whole body, at most limits.outboundBytes (16 MiB by default);
   * null when reading failed (errno and error say why). */
  bytes(): Uint8Array | null {
    // The body goes into a buffer that doubles as it fills: one that grew
    // by each read, copying all it held, made a body of 16 MiB cost
    // gigabytes of copies and garbage (the instance ran out of memory).
    const buf = new Uint8Array(16384);
    let out = new Uint8Array(0);
    let used = 0;
    let n = this.read(buf);
    while (n > 0) {
      if (used + n > out.length) {
        let size = max(out.length << 1, buf.length);
        while (size < used + n) size <<= 1;
        const grown = new Uint8Array(size);
        grown.set(out.subarray(0, used));
        out = grown;
      }
      out.set(buf.subarray(0, n), used);
      used += n;
      n = this.read(buf);
    }
    if (n < 0) return null;
    return used == out.length ? out : out.slice(0, used);
  }

  /** The whole body as UTF-8 text; null when reading failed. */
  text(): string | null {
    const b = this.bytes();
    return b == null ? null : String.UTF8.decode(b.buffer);
  }

  /** The whole body as JSON; null when reading failed or it is not JSON. */
  json(): Value | null {
    const t = this.text();
    return t == null ? null : parse(t);
  }

  /** Releases the response before the call ends (the host releases every
   * response when it ends). */
  close(): void {
    if (!this.done && this.handle >= 0) host.http_close(this.handle);
    this.done = true;
  }

  fail(errno: i32): void {
    this.errno = errno;
    let n = host.http_error(host.scratchPtr(), host.scratchLen());
    if (n > host.scratchLen()) {
      host.grow(n);
      n = host.http_error(host.scratchPtr(), host.scratchLen());
    }
    if (n < 0) {
      this.error = "errno " + errno.toString();
      return;
    }
    const v = parse(host.scratchText(n));
    if (v == null) return;
    const code = v.get("code");
    const message = v.get("message");
    this.error = (code == null ? "" : code.asString()) + ": " + (message == null ? "" : message.asString());
  }
}

/** Sends a request to url and returns its response; check res.errno (or
 * res.status, 0 on failure) before reading the body. */
export function fetch(url: string, init: Init = new Init()): Response {
  const headers = Value.array();
  for (let i = 0; i < init.headers.length; i++) {
    headers.push(Value.strings(init.headers[i]));
  }
  const spec = Value.object().set("method", Value.str(init.method)).set("url", Value.str(url)).set("headers", headers);
  if (init.stream) spec.set("stream", Value.boolean(true));
  if (init.timeoutMs != 0) spec.set("timeout", Value.int(min(init.timeoutMs, HTTP_TIMEOUT_MAX_MS)));
  const req = host.utf8(spec.toString());
  const body = host.utf8(init.body);
  const res = new Response();
  const h = host.http_send(host.ptr(req), req.byteLength, host.ptr(body), body.byteLength);
  if (h < 0) {
    res.fail(h);
    res.done = true;
    return res;
  }
  res.handle = h;
  let n = host.http_response(h, host.scratchPtr(), host.scratchLen());
  if (n > host.scratchLen()) {
    host.grow(n);
    n = host.http_response(h, host.scratchPtr(), host.scratchLen());
  }
  let head: Value | null = null;
  if (n >= 0) head = parse(host.scratchText(n));
  if (head == null) {
    res.fail(n < 0 ? n : -2);
    res.close();
    return res;
  }
  const status = head!.get("status");
  if (status != null) res.status = <i32>status!.asInt();
  const hs = head!.get("headers");
  if (hs != null) {
    const items = hs!.items;
    for (let i = 0; i < items.length; i++) {
      const pair = items[i].items;
      if (pair.length == 2) res.headers.push([pair[0].asString(), pair[1].asString()]);
    }
  }
  return res;
}
