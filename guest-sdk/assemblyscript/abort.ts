// What a failed assertion or a throw does. AssemblyScript calls an
// imported env.abort by default, which the host does not provide; endpoints
// build compiles with --use abort=<this function> so that the message,
// file and line reach the host's log and the call traps (500).

import * as host from "./host";
// endpoints build also names the SDK's Date (--use Date=), so a module that
// imports only this file (a runtime declaration written by hand) has it too.
import "./clock";

/** Logs why the module aborted, then traps. */
export function endpointsAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  let msg = "abort: " + (message != null ? message : "(no message)");
  if (fileName != null) msg += " at " + fileName + ":" + line.toString() + ":" + column.toString();
  const b = host.utf8(msg);
  host.log(3, host.ptr(b), b.byteLength);
  unreachable();
}
