// A small JSON value, parser and encoder: what a handler needs to read the
// validated values the host hands it and to write its answers. The host
// validated every value against the contract already, so a handler reads
// them without checking their shape again.

/** The kind of a JSON value. */
export enum Kind {
  Null,
  Bool,
  Number,
  String,
  Array,
  Object,
}

/**
 * One JSON value. Numbers keep the text they were written with, so an
 * integer beyond 2^53 stays exact (read it with asInt). Objects keep their
 * members in order.
 *
 * Build values with the static constructors and chain set/push:
 *
 *     JSON.object().set("id", JSON.int(7)).set("name", JSON.str("Ada"))
 */
export class Value {
  kind: Kind = Kind.Null;
  /** The value of a Bool. */
  bool: bool = false;
  /** The text of a Number, e.g. "7" or "1.5". */
  number: string = "";
  /** The value of a String. */
  str: string = "";
  // A value that is not an array or an object has no items, keys or
  // values until code reads them (then each its own, empty): three arrays
  // fewer a value keeps a handler that builds thousands of them (a
  // statement's parameters, rows) clear of the collector's work, and a
  // push on one value's items never shows in another's.
  private _items: Array<Value> | null = null;
  private _keys: Array<string> | null = null;
  private _values: Array<Value> | null = null;
  /** Whether float made this Number: a database parameter stays a real
   * even when integral (3.0 binds as 3.0, not as the integer 3). */
  real: bool = false;
  /** Whether blob() made this Object: a database parameter binds it as
   * bytes, where any other object binds as its JSON text. */
  bytes: bool = false;

  /** The items of an Array (add them with push). */
  get items(): Array<Value> {
    let a = this._items;
    if (a == null) {
      a = new Array<Value>();
      this._items = a;
    }
    return a;
  }
  set items(a: Array<Value>) {
    this._items = a;
  }

  /** The member names of an Object, in order (add them with set). */
  get keys(): Array<string> {
    let a = this._keys;
    if (a == null) {
      a = new Array<string>();
      this._keys = a;
    }
    return a;
  }
  set keys(a: Array<string>) {
    this._keys = a;
  }

  /** The member values of an Object, in the order of keys. */
  get values(): Array<Value> {
    let a = this._values;
    if (a == null) {
      a = new Array<Value>();
      this._values = a;
    }
    return a;
  }
  set values(a: Array<Value>) {
    this._values = a;
  }

  /** JSON null. */
  static null(): Value {
    return new Value();
  }

  /** true or false. */
  static boolean(b: bool): Value {
    const v = new Value();
    v.kind = Kind.Bool;
    v.bool = b;
    return v;
  }

  /** An integer. */
  static int(n: i64): Value {
    const v = new Value();
    v.kind = Kind.Number;
    v.number = n.toString();
    return v;
  }

  /** A number; integral values are written without a fraction. NaN and
   * the infinities, which JSON cannot carry, are null (as JSON.stringify
   * writes them; a database parameter binds NULL, as in the C and Rust
   * SDKs). */
  static float(f: f64): Value {
    if (!isFinite(f)) return Value.null();
    const v = new Value();
    v.kind = Kind.Number;
    v.number = formatFloat(f);
    v.real = true;
    return v;
  }

  /** A string. */
  static str(s: string): Value {
    const v = new Value();
    v.kind = Kind.String;
    v.str = s;
    return v;
  }

  /** An empty array; add items with push. */
  static array(): Value {
    const v = new Value();
    v.kind = Kind.Array;
    v.items = new Array<Value>();
    return v;
  }

  /** An array of strings. */
  static strings(items: Array<string>): Value {
    const v = Value.array();
    for (let i = 0; i < items.length; i++) v.push(Value.str(items[i]));
    return v;
  }

  /** An empty object; add members with set. */
  static object(): Value {
    const v = new Value();
    v.kind = Kind.Object;
    v.keys = new Array<string>();
    v.values = new Array<Value>();
    return v;
  }

  /** Sets the member name of an object (replacing one of that name) and
   * returns the object, for chaining. */
  set(name: string, value: Value): Value {
    assert(this.kind == Kind.Object, "JSON: set on a value that is not an object");
    const i = this.keys.indexOf(name);
    if (i >= 0) {
      this.values[i] = value;
    } else {
      this.keys.push(name);
      this.values.push(value);
    }
    return this;
  }

  /** Appends an item to an array and returns the array, for chaining. */
  push(item: Value): Value {
    assert(this.kind == Kind.Array, "JSON: push on a value that is not an array");
    this.items.push(item);
    return this;
  }

  /** The member name of an object, or null when it has none (or this is
   * not an object). */
  get(name: string): Value | null {
    if (this.kind != Kind.Object) return null;
    const i = this.keys.indexOf(name);
    return i < 0 ? null : this.values[i];
  }

  /** Whether this is null. */
  get isNull(): bool {
    return this.kind == Kind.Null;
  }

  /** The integer value of a Number written as an integer (the host writes
   * every validated integer so); aborts for anything else. */
  asInt(): i64 {
    assert(this.kind == Kind.Number, "JSON: not a number");
    const s = this.number;
    let i = 0;
    const neg = s.length > 0 && s.charCodeAt(0) == 45; // '-'
    if (neg) i = 1;
    assert(i < s.length, "JSON: not an integer");
    let n: u64 = 0;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i) - 48;
      assert(c >= 0 && c <= 9, "JSON: not an integer: " + s);
      const next = n * 10 + <u64>c;
      assert(next / 10 == n && next <= (neg ? <u64>9223372036854775808 : <u64>9223372036854775807), "JSON: integer out of the i64 range: " + s);
      n = next;
    }
    return neg ? -(<i64>n) : <i64>n;
  }

  /** The value of a Number as a float. */
  asFloat(): f64 {
    assert(this.kind == Kind.Number, "JSON: not a number");
    return parseFloat(this.number);
  }

  /** The value of a String; aborts for anything else. */
  asString(): string {
    assert(this.kind == Kind.String, "JSON: not a string");
    return this.str;
  }

  /** The value of a Bool; aborts for anything else. */
  asBool(): bool {
    assert(this.kind == Kind.Bool, "JSON: not a boolean");
    return this.bool;
  }

  /** The JSON text of this value, compact, with the escapes JSON requires. */
  toString(): string {
    const w = new Writer();
    w.value(this);
    return String.UTF8.decodeUnsafe(w.ptr(), <usize>w.length);
  }
}

/**
 * A JSON encoder that writes UTF-8 into one buffer which doubles as it
 * fills. It allocates only when the buffer grows, so encoding thousands of
 * values (a statement's parameters, a long answer) stays linear: a piece
 * per value (strings to join) would make the incremental collector scan
 * the growing array of pieces again and again. Lone surrogates become
 * U+FFFD, as JSON text must be valid UTF-8.
 */
export class Writer {
  private buf: ArrayBuffer = new ArrayBuffer(256);
  /** The bytes written so far. */
  length: i32 = 0;

  /** Where the bytes start; valid until the next write. */
  ptr(): usize {
    return changetype<usize>(this.buf);
  }

  /** A copy of the bytes written. */
  bytes(): ArrayBuffer {
    return this.buf.slice(0, this.length);
  }

  /** Makes room for n more bytes. */
  private reserve(n: i32): void {
    const need = this.length + n;
    if (need <= this.buf.byteLength) return;
    let size = this.buf.byteLength << 1;
    while (size < need) size <<= 1;
    const next = new ArrayBuffer(size);
    memory.copy(changetype<usize>(next), changetype<usize>(this.buf), <usize>this.length);
    this.buf = next;
  }

  private put(b: i32): void {
    store<u8>(changetype<usize>(this.buf) + <usize>this.length, <u8>b);
    this.length++;
  }

  /** Appends s, which holds ASCII only (a number's text, a literal). */
  ascii(s: string): Writer {
    this.reserve(s.length);
    for (let i = 0; i < s.length; i++) this.put(s.charCodeAt(i));
    return this;
  }

  /** Appends s as a JSON string: quoted, with the escapes JSON requires. */
  string(s: string): Writer {
    // At most 6 bytes a UTF-16 unit (\u001f); 4 for a pair of two.
    this.reserve(s.length * 6 + 2);
    this.put(34);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c != 34 && c != 92) {
          this.put(c);
          continue;
        }
        this.put(92);
        if (c == 34 || c == 92) this.put(c);
        else if (c == 10) this.put(110);
        else if (c == 13) this.put(114);
        else if (c == 9) this.put(116);
        else {
          this.put(117);
          this.put(48);
          this.put(48);
          this.put(HEX.charCodeAt(c >> 4));
          this.put(HEX.charCodeAt(c & 15));
        }
      } else if (c < 0x800) {
        this.put(0xc0 | (c >> 6));
        this.put(0x80 | (c & 63));
      } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
        this.put(0xf0 | (cp >> 18));
        this.put(0x80 | ((cp >> 12) & 63));
        this.put(0x80 | ((cp >> 6) & 63));
        this.put(0x80 | (cp & 63));
      } else if (c >= 0xd800 && c <= 0xdfff) {
        this.put(0xef); // U+FFFD for a lone surrogate
        this.put(0xbf);
        this.put(0xbd);
      } else {
        this.put(0xe0 | (c >> 12));
        this.put(0x80 | ((c >> 6) & 63));
        this.put(0x80 | (c & 63));
      }
    }
    this.put(34);
    return this;
  }

  /** Appends v's JSON text. */
  value(v: Value): Writer {
    switch (v.kind) {
      case Kind.Null:
        return this.ascii("null");
      case Kind.Bool:
        return this.ascii(v.bool ? "true" : "false");
      case Kind.Number:
        return this.ascii(v.number);
      case Kind.String:
        return this.string(v.str);
      case Kind.Array:
        this.ascii("[");
        for (let i = 0; i < v.items.length; i++) {
          if (i > 0) this.ascii(",");
          this.value(v.items[i]);
        }
        return this.ascii("]");
      default:
        this.ascii("{");
        for (let i = 0; i < v.keys.length; i++) {
          if (i > 0) this.ascii(",");
          this.string(v.keys[i]);
          this.ascii(":");
          this.value(v.values[i]);
        }
        return this.ascii("}");
    }
  }
}

/** formatFloat writes f as JSON: integral values without ".0". */
function formatFloat(f: f64): string {
  assert(isFinite(f), "JSON: a number must be finite");
  if (f == Math.trunc(f) && Math.abs(f) < 9007199254740992) return (<i64>f).toString();
  return f.toString();
}

const HEX = "0123456789abcdef";

/** The reason the last parse returned null. */
export let parseError = "";

/** Parses JSON text; null when it is not JSON, with the reason in
 * parseError. */
export function parse(text: string): Value | null {
  const p = new Parser(text);
  p.space();
  const v = p.value();
  if (v == null) {
    parseError = p.error;
    return null;
  }
  p.space();
  if (p.i != text.length) {
    parseError = "unexpected text after the value at " + p.i.toString();
    return null;
  }
  return v;
}

class Parser {
  i: i32 = 0;
  error: string = "";
  depth: i32 = 0;
  constructor(public s: string) {}

  fail(why: string): Value | null {
    if (this.error == "") this.error = why + " at " + this.i.toString();
    return null;
  }

  space(): void {
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c != 32 && c != 9 && c != 10 && c != 13) break;
      this.i++;
    }
  }

  literal(word: string): bool {
    if (this.s.substr(this.i, word.length) != word) return false;
    this.i += word.length;
    return true;
  }

  value(): Value | null {
    if (this.i >= this.s.length) return this.fail("unexpected end");
    const c = this.s.charCodeAt(this.i);
    if (c == 123) return this.object();
    if (c == 91) return this.array();
    if (c == 34) {
      const s = this.string();
      return s == null ? null : Value.str(s);
    }
    if (c == 45 || (c >= 48 && c <= 57)) return this.number();
    if (this.literal("true")) return Value.boolean(true);
    if (this.literal("false")) return Value.boolean(false);
    if (this.literal("null")) return Value.null();
    return this.fail("unexpected character");
  }

  object(): Value | null {
    if (++this.depth > 512) return this.fail("nested too deep");
    this.i++; // {
    const obj = Value.object();
    this.space();
    if (this.i < this.s.length && this.s.charCodeAt(this.i) == 125) {
      this.i++;
      this.depth--;
      return obj;
    }
    for (;;) {
      this.space();
      if (this.i >= this.s.length || this.s.charCodeAt(this.i) != 34) return this.fail("expected a member name");
      const name = this.string();
      if (name == null) return null;
      this.space();
      if (this.i >= this.s.length || this.s.charCodeAt(this.i) != 58) return this.fail("expected ':'");
      this.i++;
      this.space();
      const v = this.value();
      if (v == null) return null;
      obj.keys.push(name);
      obj.values.push(v);
      this.space();
      if (this.i >= this.s.length) return this.fail("unexpected end");
      const c = this.s.charCodeAt(this.i++);
      if (c == 125) break;
      if (c != 44) return this.fail("expected ',' or '}'");
    }
    this.depth--;
    return obj;
  }

  array(): Value | null {
    if (++this.depth > 512) return this.fail("nested too deep");
    this.i++; // [
    const arr = Value.array();
    this.space();
    if (this.i < this.s.length && this.s.charCodeAt(this.i) == 93) {
      this.i++;
      this.depth--;
      return arr;
    }
    for (;;) {
      this.space();
      const v = this.value();
      if (v == null) return null;
      arr.items.push(v);
      this.space();
      if (this.i >= this.s.length) return this.fail("unexpected end");
      const c = this.s.charCodeAt(this.i++);
      if (c == 93) break;
      if (c != 44) return this.fail("expected ',' or ']'");
    }
    this.depth--;
    return arr;
  }

  number(): Value | null {
    const start = this.i;
    if (this.s.charCodeAt(this.i) == 45) this.i++;
    let digits = 0;
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if ((c >= 48 && c <= 57) || c == 46 || c == 101 || c == 69 || c == 43 || c == 45) {
        this.i++;
        if (c >= 48 && c <= 57) digits++;
      } else {
        break;
      }
    }
    if (digits == 0) return this.fail("expected a digit");
    const v = new Value();
    v.kind = Kind.Number;
    v.number = this.s.substring(start, this.i);
    return v;
  }

  string(): string | null {
    this.i++; // "
    const parts = new Array<string>();
    let start = this.i;
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c == 34) {
        parts.push(this.s.substring(start, this.i));
        this.i++;
        return parts.join("");
      }
      if (c != 92) {
        this.i++;
        continue;
      }
      parts.push(this.s.substring(start, this.i));
      if (this.i + 1 >= this.s.length) break;
      const e = this.s.charCodeAt(this.i + 1);
      this.i += 2;
      if (e == 110) parts.push("\n");
      else if (e == 116) parts.push("\t");
      else if (e == 114) parts.push("\r");
      else if (e == 98) parts.push("\b");
      else if (e == 102) parts.push("\f");
      else if (e == 117) {
        if (this.i + 4 > this.s.length) break;
        const code = I32.parseInt(this.s.substr(this.i, 4), 16);
        this.i += 4;
        // A surrogate pair arrives as two escapes; UTF-16 keeps each half.
        parts.push(String.fromCharCode(code));
      } else parts.push(String.fromCharCode(e)); // \" \\ \/
      start = this.i;
    }
    this.fail("unterminated string");
    return null;
  }
}
