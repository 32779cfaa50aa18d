// The app's key-value store (ABI §4.3): in memory on one host, Redis when
// several share the app. Route modules keep no state across requests;
// what must last goes here.
//
// A store that cannot be reached (errno -7) aborts the call: the host logs
// the message and answers 500. Use the functions returning errnos (set,
// remove) to decide otherwise.

import * as host from "./host";
import { parse } from "./json";

/** The value stored under key as bytes, or null when there is none. */
export function getBytes(key: string): Uint8Array | null {
  const k = host.utf8(key);
  let n = host.kv_get(host.ptr(k), k.byteLength, host.scratchPtr(), host.scratchLen());
  if (n > host.scratchLen()) {
    host.grow(n);
    n = host.kv_get(host.ptr(k), k.byteLength, host.scratchPtr(), host.scratchLen());
  }
  if (n == -1) return null;
  assert(n >= 0, "kv.get " + key + ": the store failed (errno " + n.toString() + ")");
  return Uint8Array.wrap(host.scratchBytes(n));
}

/** The value stored under key as UTF-8 text, or null when there is none. */
export function get(key: string): string | null {
  const b = getBytes(key);
  return b == null ? null : String.UTF8.decode(b.buffer);
}

/** Stores value under key, for ttlSeconds (0 keeps it until replaced).
 * 0, or -2 for an empty or too long key or value, -7 store unavailable. */
export function set(key: string, value: string, ttlSeconds: i32 = 0): i32 {
  const k = host.utf8(key);
  const v = host.utf8(value);
  return host.kv_set(host.ptr(k), k.byteLength, host.ptr(v), v.byteLength, ttlSeconds);
}

/** Removes key: 0, or -1 when there was none. */
export function remove(key: string): i32 {
  const k = host.utf8(key);
  return host.kv_delete(host.ptr(k), k.byteLength);
}

/** Adds delta to the counter under key, atomically across hosts, and
 * returns the new value; an absent counter starts at 0. */
export function incr(key: string, delta: i64 = 1): i64 {
  const k = host.utf8(key);
  const out = new ArrayBuffer(8);
  const err = host.kv_incr(host.ptr(k), k.byteLength, delta, host.ptr(out));
  assert(err == 0, "kv.incr " + key + ": errno " + err.toString() + (err == -2 ? " (the value is not a decimal integer, or the sum overflows)" : ""));
  return load<i64>(host.ptr(out));
}

/** Keys with prefix sorting after `after`, at most 1000; pass the last
 * key of a full page as `after` to read the next. */
export function list(prefix: string, after: string = ""): Array<string> {
  const p = host.utf8(prefix);
  const a = host.utf8(after);
  let n = host.kv_list(host.ptr(p), p.byteLength, host.ptr(a), a.byteLength, host.scratchPtr(), host.scratchLen());
  if (n > host.scratchLen()) {
    host.grow(n);
    n = host.kv_list(host.ptr(p), p.byteLength, host.ptr(a), a.byteLength, host.scratchPtr(), host.scratchLen());
  }
  assert(n >= 0, "kv.list " + prefix + ": errno " + n.toString());
  const v = parse(host.scratchText(n));
  const keys = new Array<string>();
  if (v != null) {
    for (let i = 0; i < v.items.length; i++) keys.push(v.items[i].asString());
  }
  return keys;
}
