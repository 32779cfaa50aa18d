// Declaring what a module serves, and the ABI exports the host calls.

import { Contract } from "./contract";
import { Request } from "./request";
import * as host from "./host";

/** A handler serves one request. It answers with the response functions;
 * to fail, it throws (or an assertion fails): the host logs the message
 * and answers 500, or 503 with Retry-After when the call's last database
 * statement failed "unavailable" or "busy" (the database's failure). */
export type Handler = (req: Request) => void;

let handler: Handler | null = null;
let contractBytes: ArrayBuffer | null = null;

/** Declares an endpoint: its contract and its handler. Call it once, at
 * the top level of the route's source. */
export function endpoint(contract: Contract, handle: Handler): void {
  assert(handler == null, "a module serves one route: endpoint or plainRoute was called twice");
  handler = handle;
  contractBytes = host.utf8(contract.json.toString());
}

/** Declares a plain route: no contract, no validation, not in the
 * OpenAPI document; its answer streams as it is written. */
export function plainRoute(handle: Handler): void {
  assert(handler == null, "a module serves one route: endpoint or plainRoute was called twice");
  handler = handle;
}

/** The ABI version this SDK speaks. */
export function abiVersion(): i32 {
  return 1;
}

/** Where the contract JSON is, as offset << 32 | length; 0 for a plain
 * route. */
export function contractLocation(): i64 {
  if (contractBytes == null) return 0;
  const b = contractBytes!;
  return (<i64>changetype<usize>(b) << 32) | <i64>b.byteLength;
}

/** Serves one request with the declared handler. */
export function handle(): i32 {
  assert(handler != null, "the route declares no handler: call endpoint(contract, handle) or plainRoute(handle) at the top level");
  handler!(new Request());
  return 0;
}
