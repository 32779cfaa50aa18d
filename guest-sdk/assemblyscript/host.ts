// The host functions of ABI v1 (abi/README.md §3), imported from the module
// "endpoints". Every pointer is an offset in this module's linear memory;
// the SDK's other files wrap them in AssemblyScript types.

@external("endpoints", "request_read")
export declare function request_read(buf: usize, bufLen: i32): i32;

@external("endpoints", "request_value")
export declare function request_value(part: i32, name: usize, nameLen: i32, buf: usize, bufLen: i32): i32;

@external("endpoints", "request_header")
export declare function request_header(name: usize, nameLen: i32, buf: usize, bufLen: i32): i32;

@external("endpoints", "body_read")
export declare function body_read(buf: usize, bufLen: i32): i32;

@external("endpoints", "file_read")
export declare function file_read(index: i32, buf: usize, bufLen: i32): i32;

@external("endpoints", "response_set_status")
export declare function response_set_status(status: i32): i32;

@external("endpoints", "response_set_header")
export declare function response_set_header(name: usize, nameLen: i32, value: usize, valueLen: i32): i32;

@external("endpoints", "response_add_header")
export declare function response_add_header(name: usize, nameLen: i32, value: usize, valueLen: i32): i32;

@external("endpoints", "response_write")
export declare function response_write(buf: usize, bufLen: i32): i32;

@external("endpoints", "kv_get")
export declare function kv_get(key: usize, keyLen: i32, buf: usize, bufLen: i32): i32;

@external("endpoints", "kv_set")
export declare function kv_set(key: usize, keyLen: i32, value: usize, valueLen: i32, ttlSeconds: i32): i32;

@external("endpoints", "kv_delete")
export declare function kv_delete(key: usize, keyLen: i32): i32;

@external("endpoints", "kv_incr")
export declare function kv_incr(key: usize, keyLen: i32, delta: i64, out: usize): i32;

@external("endpoints", "kv_list")
export declare function kv_list(prefix: usize, prefixLen: i32, after: usize, afterLen: i32, buf: usize, bufLen: i32): i32;

@external("endpoints", "variable_get")
export declare function variable_get(name: usize, nameLen: i32, buf: usize, bufLen: i32): i32;

@external("endpoints", "log")
export declare function log(level: i32, msg: usize, msgLen: i32): void;

/** A growable scratch buffer for host functions that write whole values
 * only when they fit (ABI §2): call with scratchPtr()/scratchLen(); when the
 * size returned is larger, grow(size) and call again. One instance serves
 * one request at a time, so one buffer is enough. */
let scratch = new ArrayBuffer(1024);

/** Where the scratch buffer starts. */
export function scratchPtr(): usize {
  return changetype<usize>(scratch);
}

/** The scratch buffer's size. */
export function scratchLen(): i32 {
  return scratch.byteLength;
}

/** Makes the scratch buffer hold at least n bytes. */
export function grow(n: i32): void {
  if (n > scratch.byteLength) scratch = new ArrayBuffer(n);
}

/** A copy of the first n bytes of the scratch buffer. */
export function scratchBytes(n: i32): ArrayBuffer {
  return scratch.slice(0, n);
}

/** The text of the first n bytes of the scratch buffer, read as UTF-8. */
export function scratchText(n: i32): string {
  return String.UTF8.decodeUnsafe(changetype<usize>(scratch), <usize>n);
}

/** The UTF-8 bytes of s. */
export function utf8(s: string): ArrayBuffer {
  return String.UTF8.encode(s);
}

/** The address of the bytes of b, for a host call. */
export function ptr(b: ArrayBuffer): usize {
  return changetype<usize>(b);
}

@external("endpoints", "http_send")
export declare function http_send(req: usize, reqLen: i32, body: usize, bodyLen: i32): i32;

@external("endpoints", "http_response")
export declare function http_response(handle: i32, buf: usize, bufLen: i32): i32;

@external("endpoints", "http_body_read")
export declare function http_body_read(handle: i32, buf: usize, bufLen: i32): i32;

@external("endpoints", "http_close")
export declare function http_close(handle: i32): i32;

@external("endpoints", "http_error")
export declare function http_error(buf: usize, bufLen: i32): i32;
