// The app's variables (endpoints.json "variables", ABI §3): values the host
// resolves from its environment, a file or a default when the app loads.

import * as host from "./host";

/** The value of the app's variable name, or null when the app does not
 * declare it. An optional variable without a value is "". Called while the
 * module loads (outside a request), it aborts: variables exist only in a
 * request, since a reload may change them. A secret variable reads the
 * same way; the host never writes its value anywhere, so a handler that
 * logs it gives it away. */
export function variable(name: string): string | null {
  const k = host.utf8(name);
  let n = host.variable_get(host.ptr(k), k.byteLength, host.scratchPtr(), host.scratchLen());
  if (n > host.scratchLen()) {
    host.grow(n);
    n = host.variable_get(host.ptr(k), k.byteLength, host.scratchPtr(), host.scratchLen());
  }
  if (n == -1) return null;
  assert(n >= 0, "variable " + name + ": variable_get failed (errno " + n.toString() + "; -6: not available outside a request)");
  return host.scratchText(n);
}
