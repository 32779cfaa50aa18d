// The exports ABI v1 requires of a route module. A route's source
// re-exports them with one line:
//
//     export * from "@wasmendpoints/assemblyscript/exports";

import { abiVersion, contractLocation, handle } from "./route";
// What endpoints build's --use abort= and --use Date= name: imported here,
// which every route imports, so they exist however the route imports the
// rest of the SDK (else asc fails with AS111, "Element ... not found").
import "./abort";
import "./clock";

/** ABI §1: the version this module was built for. */
export function endpoints_abi_version(): i32 {
  return abiVersion();
}

/** ABI §1: where the contract is; 0 for a plain route. */
export function endpoints_contract(): i64 {
  return contractLocation();
}

/** ABI §1: serves one request; 0 when it answered. */
export function endpoints_handle(): i32 {
  return handle();
}
