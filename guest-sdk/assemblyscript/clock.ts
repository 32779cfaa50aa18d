// The clock. AssemblyScript's Date.now() imports env.Date.now, which no
// Endpoints host provides; endpoints build compiles with
// --use Date=<EndpointsDate> so that Date is this class, which reads the
// time with WASI's clock_time_get (real time, which the host gives every
// guest) and is otherwise AssemblyScript's Date.

import { Date as StdDate } from "~lib/date";

// @ts-ignore: decorator
@external("wasi_snapshot_preview1", "clock_time_get")
declare function clock_time_get(id: u32, precision: u64, out: usize): u16;

/** CLOCK_REALTIME of WASI preview 1. */
const realtime: u32 = 0;

/** AssemblyScript's Date with a clock: `Date` in a route built by
 * endpoints build. */
export class EndpointsDate extends StdDate {
  /** Milliseconds since the Unix epoch, UTC. */
  static now(): i64 {
    const out = memory.data(8);
    const errno = clock_time_get(realtime, 1000000, out);
    assert(errno == 0, "clock_time_get failed: errno " + errno.toString());
    return <i64>(load<u64>(out) / 1000000);
  }

  /** Date.fromString, as this class, so `const d: Date =
   * Date.fromString(s)` compiles. */
  static fromString(dateTimeString: string): EndpointsDate {
    return new EndpointsDate(StdDate.fromString(dateTimeString).getTime());
  }
}
