// Contracts declared in AssemblyScript: a Schema builder for JSON Schema
// 2020-12 and a Contract builder for the contract format of abi/README.md
// §5. The host validates the result at load and reports any problem with
// the module's file, the JSON pointer and the rule.

import { Kind, Value } from "./json";

/**
 * A JSON Schema, built by chaining:
 *
 *     Schema.object()
 *       .description("A user to create.")
 *       .property("name", Schema.string().minLength(1).description("Full name.").example(Value.str("Ada Lovelace")))
 *       .property("email", Schema.string().format("email"))
 *       .optional("nickname", Schema.string())
 *       .additionalProperties(false)
 */
export class Schema {
  /** The schema as JSON. */
  json: Value = Value.object();

  /** A schema of the given JSON type: "integer", "number", "string",
   * "boolean", "object", "array" or "null". */
  static ofType(type: string): Schema {
    const s = new Schema();
    s.json.set("type", Value.str(type));
    return s;
  }

  /** {"type": "integer"} with the range of the i64 that Request.int and
   * paramInt return as its minimum and maximum, so the host refuses a
   * value beyond it (400) instead of the handler aborting on it (500).
   * minimum and maximum narrow it. */
  static integer(): Schema {
    return Schema.ofType("integer").minimum(I64.MIN_VALUE).maximum(I64.MAX_VALUE);
  }

  /** {"type": "number"} */
  static number(): Schema {
    return Schema.ofType("number");
  }

  /** {"type": "string"} */
  static string(): Schema {
    return Schema.ofType("string");
  }

  /** {"type": "boolean"} */
  static boolean(): Schema {
    return Schema.ofType("boolean");
  }

  /** {"type": "object"}; add members with property and optional. */
  static object(): Schema {
    return Schema.ofType("object");
  }

  /** {"type": "array", "items": items} */
  static array(items: Schema): Schema {
    const s = Schema.ofType("array");
    s.json.set("items", items.json);
    return s;
  }

  /** {"$ref": "#/$defs/<name>"}: a schema the contract declares with def.
   * Names are app-wide: they become components/schemas/<name>. */
  static ref(name: string): Schema {
    const s = new Schema();
    s.json.set("$ref", Value.str("#/$defs/" + name));
    return s;
  }

  /** A schema written as JSON, for keywords the builder lacks. */
  static raw(json: Value): Schema {
    const s = new Schema();
    s.json = json;
    return s;
  }

  /** Sets any keyword. */
  with(keyword: string, value: Value): Schema {
    this.json.set(keyword, value);
    return this;
  }

  /** "minimum" */
  minimum(n: i64): Schema {
    return this.with("minimum", Value.int(n));
  }

  /** "maximum" */
  maximum(n: i64): Schema {
    return this.with("maximum", Value.int(n));
  }

  /** "minLength" */
  minLength(n: i32): Schema {
    return this.with("minLength", Value.int(n));
  }

  /** "maxLength" */
  maxLength(n: i32): Schema {
    return this.with("maxLength", Value.int(n));
  }

  /** "minItems" */
  minItems(n: i32): Schema {
    return this.with("minItems", Value.int(n));
  }

  /** "maxItems" */
  maxItems(n: i32): Schema {
    return this.with("maxItems", Value.int(n));
  }

  /** "format", e.g. "email", "date-time", "uuid". */
  format(f: string): Schema {
    return this.with("format", Value.str(f));
  }

  /** "pattern": an ECMA-262 regular expression. */
  pattern(p: string): Schema {
    return this.with("pattern", Value.str(p));
  }

  /** "description" */
  description(d: string): Schema {
    return this.with("description", Value.str(d));
  }

  /** Adds a value to "examples": the document shows the first as the
   * example of every media type the schema describes (a JSON body, a
   * parameter). Call it again for more; the host checks none of them. */
  example(v: Value): Schema {
    let examples = this.json.get("examples");
    if (examples == null || examples.kind != Kind.Array) {
      examples = Value.array();
      this.json.set("examples", examples);
    }
    examples.push(v);
    return this;
  }

  /**
   * The value may also be null: {"anyOf": [schema, {"type": "null"}]}, as
   * the Go SDK's nullable:"true" tag makes it. A column that may be NULL,
   * answered as JSON, needs it (the host checks answers against their
   * schemas), and so does a member of a body a client may send as null.
   * The description, default, examples and the deprecated, readOnly and
   * writeOnly flags move to the outer schema, where documents and
   * generated clients look for them; keywords set after nullable go there
   * too.
   *
   *     Schema.string().maxLength(200).description("A nickname, if any.").nullable()
   *     // {"anyOf":[{"type":"string","maxLength":200},{"type":"null"}],"description":"A nickname, if any."}
   */
  nullable(): Schema {
    const outer = Value.object();
    const inner = Value.object();
    const j = this.json;
    const s = new Schema();
    if (j.kind != Kind.Object) {
      s.json = outer.set("anyOf", Value.array().push(j).push(Value.object().set("type", Value.str("null"))));
      return s;
    }
    const annotations = ["description", "default", "examples", "deprecated", "readOnly", "writeOnly"];
    const moved = Value.object();
    for (let i = 0; i < j.keys.length; i++) {
      if (annotations.includes(j.keys[i])) moved.set(j.keys[i], j.values[i]);
      else inner.set(j.keys[i], j.values[i]);
    }
    outer.set("anyOf", Value.array().push(inner).push(Value.object().set("type", Value.str("null"))));
    for (let i = 0; i < moved.keys.length; i++) outer.set(moved.keys[i], moved.values[i]);
    s.json = outer;
    return s;
  }

  /** "enum" of strings. */
  oneOfStrings(values: Array<string>): Schema {
    return this.with("enum", Value.strings(values));
  }

  /** "default": the host fills it in before the handler runs. */
  defaultValue(v: Value): Schema {
    return this.with("default", v);
  }

  /** A required member of an object schema. */
  property(name: string, s: Schema): Schema {
    this.optional(name, s);
    let required = this.json.get("required");
    if (required == null) {
      required = Value.array();
      this.json.set("required", required);
    }
    required.push(Value.str(name));
    return this;
  }

  /** A member of an object schema that may be absent. */
  optional(name: string, s: Schema): Schema {
    let props = this.json.get("properties");
    if (props == null) {
      props = Value.object();
      this.json.set("properties", props);
    }
    props.set(name, s.json);
    return this;
  }

  /** "additionalProperties": false refuses members not declared. */
  additionalProperties(allowed: bool): Schema {
    return this.with("additionalProperties", Value.boolean(allowed));
  }
}

/**
 * A route's contract: what the host validates before the handler runs,
 * what it checks the answer against, and what the OpenAPI document shows.
 *
 *     new Contract()
 *       .summary("Get a user")
 *       .tag("users")
 *       .param("id", Schema.integer().minimum(1))
 *       .response(200, "The user", Schema.ref("User"))
 *       .def("User", ...)
 */
export class Contract {
  /** The contract as JSON. */
  json: Value = Value.object();

  private part(name: string): Value {
    let request = this.json.get("request");
    if (request == null) {
      request = Value.object();
      this.json.set("request", request);
    }
    let part = request.get(name);
    if (part == null) {
      part = Schema.object().json;
      request.set(name, part);
    }
    return part;
  }

  private parameter(partName: string, name: string, s: Schema, required: bool): Contract {
    const obj = Schema.raw(this.part(partName));
    if (required) obj.property(name, s);
    else obj.optional(name, s);
    return this;
  }

  /** The operation's one-line summary. */
  summary(s: string): Contract {
    this.json.set("summary", Value.str(s));
    return this;
  }

  /** The operation's description (CommonMark). */
  description(s: string): Contract {
    this.json.set("description", Value.str(s));
    return this;
  }

  /** Adds a tag, grouping the operation in the document. */
  tag(t: string): Contract {
    let tags = this.json.get("tags");
    if (tags == null) {
      tags = Value.array();
      this.json.set("tags", tags);
    }
    tags.push(Value.str(t));
    return this;
  }

  /** Marks the operation deprecated. */
  deprecated(): Contract {
    this.json.set("deprecated", Value.boolean(true));
    return this;
  }

  /** A path parameter (always required), e.g. "id" of /api/users/[id]. */
  param(name: string, s: Schema): Contract {
    return this.parameter("params", name, s, true);
  }

  /** A query parameter; optional unless required is true. */
  query(name: string, s: Schema, required: bool = false): Contract {
    return this.parameter("query", name, s, required);
  }

  /** A request header (its name in lower case); optional unless required
   * is true. */
  header(name: string, s: Schema, required: bool = false): Contract {
    return this.parameter("headers", name.toLowerCase(), s, required);
  }

  /** A JSON request body; a request without one is refused unless required
   * is false. */
  body(s: Schema, required: bool = true): Contract {
    let request = this.json.get("request");
    if (request == null) {
      request = Value.object();
      this.json.set("request", request);
    }
    const body = Value.object().set("schema", s.json);
    if (!required) body.set("required", Value.boolean(false));
    const before = request.get("body");
    if (before != null) {
      const described = before.get("description");
      if (described != null) body.set("description", described);
    }
    request.set("body", body);
    return this;
  }

  /** The request body's description in the document (CommonMark), before
   * or after body. */
  bodyDescription(d: string): Contract {
    let request = this.json.get("request");
    if (request == null) {
      request = Value.object();
      this.json.set("request", request);
    }
    let body = request.get("body");
    if (body == null) {
      body = Value.object();
      request.set("body", body);
    }
    body.set("description", Value.str(d));
    return this;
  }

  /** A declared JSON answer: the host checks the guest's answer against
   * schema (in development, or always, per the app's policy). */
  response(status: i32, description: string, s: Schema | null = null): Contract {
    const r = Value.object().set("description", Value.str(description));
    if (s != null) r.set("schema", s.json);
    this.responses().set(status.toString(), r);
    return this;
  }

  /** A declared media answer (images, CSV, event streams): streamed and not
   * checked. */
  media(status: i32, description: string, types: Array<string>): Contract {
    const r = Value.object().set("description", Value.str(description)).set("media", Value.strings(types));
    this.responses().set(status.toString(), r);
    return this;
  }

  /** Declares a header of the answer with status, e.g. Location on a 201,
   * for the document (the host does not check it); declares the status
   * too when response or media has not. */
  responseHeader(status: i32, name: string, s: Schema): Contract {
    const responses = this.responses();
    let r = responses.get(status.toString());
    if (r == null) {
      r = Value.object();
      responses.set(status.toString(), r);
    }
    let headers = r.get("headers");
    if (headers == null) {
      headers = Value.object();
      r.set("headers", headers);
    }
    headers.set(name, s.json);
    return this;
  }

  private responses(): Value {
    let responses = this.json.get("responses");
    if (responses == null) {
      responses = Value.object();
      this.json.set("responses", responses);
    }
    return responses;
  }

  /** A named schema, referenced as Schema.ref(name). */
  def(name: string, s: Schema): Contract {
    let defs = this.json.get("$defs");
    if (defs == null) {
      defs = Value.object();
      this.json.set("$defs", defs);
    }
    defs.set(name, s.json);
    return this;
  }

  /** Requires the security scheme (a name of the document's
   * components.securitySchemes) with scopes; call it again for an
   * alternative. */
  security(scheme: string, scopes: Array<string> = []): Contract {
    let sec = this.json.get("security");
    if (sec == null) {
      sec = Value.array();
      this.json.set("security", sec);
    }
    sec.push(Value.object().set(scheme, Value.strings(scopes)));
    return this;
  }

  /** Opts the operation out of the app's default security ("security": []). */
  noSecurity(): Contract {
    this.json.set("security", Value.array());
    return this;
  }

  /** Idempotency-Key support for POST, PATCH, PUT and DELETE; required
   * makes the header mandatory. */
  idempotent(required: bool = false): Contract {
    this.json.set("idempotency", Value.object().set("required", Value.boolean(required)));
    return this;
  }

  /** The deadline of one call of the operation, in milliseconds, in place
   * of the app's limits.timeout; at most its limits.maxTimeout (5 minutes
   * by default), or the module fails its load. */
  timeout(ms: i64): Contract {
    this.json.set("timeout", Value.str(millis(ms)));
    return this;
  }

  /** For an operation that streams its answer (a media response): the
   * longest the handler may go without writing, in milliseconds; each
   * write restarts it. */
  idleTimeout(ms: i64): Contract {
    this.json.set("idleTimeout", Value.str(millis(ms)));
    return this;
  }
}

/** A duration in milliseconds as the contract writes it: "30s" for whole
 * seconds, else "1500ms". */
function millis(ms: i64): string {
  return ms % 1000 == 0 ? (ms / 1000).toString() + "s" : ms.toString() + "ms";
}
