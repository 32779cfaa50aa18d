// Typed decoding of validated JSON: decode<T>(value) reads a Value as a
// bool, an integer or float type, a string, a Value, an Array of those, or
// a class of the app's that reads its members in a readJSON method:
//
//     class NewNote {
//       title: string = "";
//       tags: Array<string> = [];
//       pinned: bool = false;
//       readJSON(r: JSONFields): void {
//         this.title = r.field<string>("title");
//         this.tags = r.field<Array<string>>("tags");
//         this.pinned = r.optional<bool>("pinned", false);
//       }
//     }
//     const note = decode<NewNote>(req.body()!);
//
// The host validated the request against the contract, so decoding a body
// whose schema matches the class does not fail; when they disagree, the
// call aborts (500) with the JSON pointer and what was expected:
// "abort: JSON /tags/1: expected a string, got 7".

import { Kind, Value } from "./json";

/** The members of an object being decoded, for a class's readJSON. */
export class JSONFields {
  constructor(
    /** The object. */
    public value: Value,
    /** Its JSON pointer in the decoded value ("" for the whole). */
    public at: string,
  ) {}

  /** Member name read as T; aborts when absent. */
  field<T>(name: string): T {
    const v = this.value.get(name);
    const at = this.at + "/" + escapeToken(name);
    if (v == null) fail(at, "a member " + name + " (it is required)", this.value);
    return decodeAt<T>(v!, at);
  }

  /** Member name read as T, or otherwise when absent or null. */
  optional<T>(name: string, otherwise: T): T {
    const v = this.value.get(name);
    if (v == null || v.isNull) return otherwise;
    return decodeAt<T>(v, this.at + "/" + escapeToken(name));
  }
}

/** v read as T: bool, an integer type (within its range), f32 or f64,
 * string, Value, Array<U> of any of these, or a class with a
 * `readJSON(r: JSONFields): void` method and a constructor without
 * arguments. Aborts (500) naming the JSON pointer when v is not a T. */
export function decode<T>(v: Value): T {
  return decodeAt<T>(v, "");
}

function decodeAt<T>(v: Value, at: string): T {
  if (isBoolean<T>()) {
    if (v.kind != Kind.Bool) fail(at, "a boolean", v);
    return <T>v.bool;
  } else if (isInteger<T>()) {
    return <T>integer(v, at, sizeof<T>() * 8, isSigned<T>());
  } else if (isFloat<T>()) {
    if (v.kind != Kind.Number) fail(at, "a number", v);
    return <T>parseFloat(v.number);
  } else if (isString<T>()) {
    if (v.kind != Kind.String) fail(at, "a string", v);
    return changetype<T>(v.str);
  } else if (isArray<T>()) {
    if (v.kind != Kind.Array) fail(at, "an array", v);
    const out = instantiate<T>();
    for (let i = 0; i < v.items.length; i++) {
      out.push(decodeAt<valueof<T>>(v.items[i], at + "/" + i.toString()));
    }
    return out;
  } else if (isReference<T>() && idof<T>() == idof<Value>()) {
    return changetype<T>(v);
  } else {
    if (v.kind != Kind.Object) fail(at, "an object", v);
    const out = instantiate<T>();
    out.readJSON(new JSONFields(v, at));
    return out;
  }
}

/** The integer v holds, within the range of a bits-wide integer type. */
function integer(v: Value, at: string, bits: i32, signed: bool): i64 {
  const what = "an integer within the " + (signed ? "i" : "u") + bits.toString() + " range";
  if (v.kind != Kind.Number) fail(at, what, v);
  const s = v.number;
  const neg = s.length > 0 && s.charCodeAt(0) == 45; // '-'
  let i = neg ? 1 : 0;
  if (i >= s.length) fail(at, what, v);
  let n: u64 = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) fail(at, what, v);
    const next = n * 10 + <u64>c;
    if (next / 10 != n) fail(at, what, v);
    n = next;
  }
  const limit: u64 = signed ? (<u64>1 << <u64>(bits - 1)) - 1 : bits == 64 ? u64.MAX_VALUE : (<u64>1 << <u64>bits) - 1;
  if (neg ? (signed ? n > limit + 1 : n != 0) : n > limit) fail(at, what, v);
  return neg ? -(<i64>n) : <i64>n;
}

/** Aborts the call: the value at pointer at is not what was expected. */
function fail(at: string, expected: string, got: Value): void {
  let shown = got.toString();
  if (shown.length > 40) shown = shown.substring(0, 40) + "…";
  throw new Error("JSON " + (at.length == 0 ? "value" : at) + ": expected " + expected + ", got " + shown);
}

/** A member name as a JSON pointer token (RFC 6901). */
function escapeToken(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}
