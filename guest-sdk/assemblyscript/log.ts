// Log lines, written to the host's log tagged with the route and the
// request id.

import * as host from "./host";

function line(level: i32, msg: string): void {
  const b = host.utf8(msg);
  host.log(level, host.ptr(b), b.byteLength);
}

/** A debug line. */
export function debug(msg: string): void {
  line(0, msg);
}

/** An info line. */
export function info(msg: string): void {
  line(1, msg);
}

/** A warning. */
export function warn(msg: string): void {
  line(2, msg);
}

/** An error line. */
export function error(msg: string): void {
  line(3, msg);
}
