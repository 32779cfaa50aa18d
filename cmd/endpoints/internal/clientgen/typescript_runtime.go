package clientgen

// The fixed parts of the generated TypeScript module. They are TypeScript
// source kept in Go strings (no backquotes in them); the generator places
// them around the types and tables it writes for the app. Every type,
// interface or class name they declare is in tsRuntimeNames, so that no
// schema of an app is given the same name (a test checks the list).

// tsRuntimeNames are the names the fixed parts declare or use as types:
// a schema named like one of them is renamed (see TypeScript).
var tsRuntimeNames = []string{
	// Declared by the module.
	"createClient", "EndpointAnyOptions", "EndpointBytes", "EndpointClient", "EndpointClientOptions",
	"EndpointDefaultMethod", "EndpointHeaders", "EndpointHeaderValue", "EndpointKind", "EndpointMethod",
	"EndpointOperation", "EndpointOperations", "EndpointOptions", "EndpointPath", "EndpointPathWithoutOptions",
	"EndpointRequest", "EndpointResponse", "EndpointResult", "EndpointUnexpectedResponse",
	// Declared in Vue mode.
	"EndpointReactiveOptions", "EndpointReactiveValues", "UseEndpointReturn",
	// Globals and imports the module uses as types.
	"AbortController", "AbortSignal", "Array", "ArrayBuffer", "ArrayBufferView", "AsyncGenerator", "AsyncIterable",
	"Blob", "BodyInit", "Error", "FormData", "Headers", "JSON", "MaybeRefOrGetter", "Object", "Promise", "PromiseLike",
	"ReadableStream", "ReadableStreamDefaultReader", "Record", "Ref", "RequestInit", "Response", "ShallowRef",
	"String", "TextDecoder", "TypeError", "Uint8Array", "URLSearchParams",
}

// tsPublicTypes are the types every generated module exports, whatever the
// app.
const tsPublicTypes = `/** A header value; an array is sent as one header, its items joined with ", ". */
export type EndpointHeaderValue = string | number | boolean | readonly (string | number | boolean)[];

/** Request headers: any header may be sent; undefined ones are left out. */
export type EndpointHeaders = { [name: string]: EndpointHeaderValue | undefined };

/** A request body sent as it is, with the declared media type as its Content-Type. */
export type EndpointBytes = string | Blob | ArrayBuffer | ArrayBufferView;

/** Options of createClient. */
export interface EndpointClientOptions {
  /**
   * Where the app is served, such as "https://api.example.com"; a route's
   * path is appended to it. Defaults to "": relative URLs, for a page served
   * by the same origin.
   */
  baseUrl?: string;
  /** The fetch to send requests with. Defaults to globalThis.fetch. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * Headers sent with every request, such as an Authorization header; a
   * function is called before each request. A request's own headers win.
   */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
}

/**
 * One answer an endpoint declares: its status, whether that is a 2xx, the
 * declared media type it came as, its headers and its body.
 *
 * The result of a request is a union of these, one per declared status and
 * media type, so checking status (or ok, or contentType) narrows body.
 */
export type EndpointResponse<Status extends number, Ok extends boolean, ContentType extends string | undefined, Body> = {
  /** The HTTP status. */
  readonly status: Status;
  /** Whether the status is 2xx. */
  readonly ok: Ok;
  /** The declared media type the answer matched; undefined for an answer without content. */
  readonly contentType: ContentType;
  /** The response headers. */
  readonly headers: Headers;
  /**
   * The body: parsed JSON; an async iterable of the data of Server-Sent
   * Events; a stream of bytes for any other media type; undefined when the
   * answer has no content.
   */
  readonly body: Body;
};

/**
 * A request to an endpoint. Nothing is sent until it is awaited (the
 * answer is then read and typed) or until raw() is called (the native
 * Response is given as it is). A request is read one way only: raw()
 * after awaiting, or awaiting after raw(), rejects with an Error.
 */
export interface EndpointRequest<Result> extends PromiseLike<Result> {
  /**
   * The Idempotency-Key this request sends, made once with
   * crypto.randomUUID() when the endpoint requires one; undefined when it
   * sends none. retry() sends the same key.
   */
  readonly idempotencyKey: string | undefined;
  /** Sends the request and gives the native Response, unread. */
  raw(): Promise<Response>;
  /**
   * A new request with the same options and the same Idempotency-Key, not
   * sent yet: await it (or call raw()) to send the request again. For an
   * idempotent endpoint the server then answers the first request's
   * answer again, with an Idempotent-Replayed: true header.
   */
  retry(): EndpointRequest<Result>;
}

/**
 * Thrown when an answer's status is not one the endpoint declares, or it
 * came with a media type not declared for its status: the server did not
 * keep its contract (or something between it and the client answered).
 * The body is read: parsed JSON when it is JSON, its text otherwise. Use
 * raw() to handle any answer yourself.
 */
export class EndpointUnexpectedResponse extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers. */
  readonly headers: Headers;
  /** The body: parsed JSON, or text, or undefined when it could not be read. */
  readonly body: unknown;

  constructor(message: string, status: number, headers: Headers, body: unknown) {
    super(message);
    this.name = "EndpointUnexpectedResponse";
    this.status = status;
    this.headers = headers;
    this.body = body;
  }
}
`

// tsVuePublicTypes are the types a module made with TSOptions.Vue adds.
const tsVuePublicTypes = `/**
 * The options of useEndpoint: those of $endpoint, where params, query,
 * headers and body may each be a ref or a getter, and so may each value of
 * params and query. useEndpoint sends the request again when one changes.
 */
export type EndpointReactiveOptions<Options> = {
  [K in keyof Options]: K extends "params" | "query"
    ? MaybeRefOrGetter<EndpointReactiveValues<Options[K]>>
    : K extends "headers" | "body"
      ? MaybeRefOrGetter<Options[K]>
      : Options[K];
};

/** An object whose values may each be a ref or a getter. */
export type EndpointReactiveValues<T> = T extends object ? { [K in keyof T]: MaybeRefOrGetter<T[K]> } : T;

/** What useEndpoint gives. */
export interface UseEndpointReturn<Result> {
  /** The latest answer, typed as $endpoint's result; undefined until the first one. */
  readonly data: ShallowRef<Result | undefined>;
  /**
   * Why the latest request failed: a transport error, an
   * EndpointUnexpectedResponse, or an abort by the caller's signal;
   * undefined after an answer.
   */
  readonly error: ShallowRef<unknown>;
  /** Whether a request is on its way. */
  readonly pending: Ref<boolean>;
  /** Sends the request again, with the options as they are now. */
  refresh(): Promise<void>;
}
`

// tsClientTypes are the types that read EndpointOperations, and the
// start of EndpointClient (the generator closes it, after the Vue members
// in Vue mode).
const tsClientTypes = `/** The routes of the app, in the form $endpoint takes. */
export type EndpointPath = keyof EndpointOperations;

/** The methods of a route. */
export type EndpointMethod<P extends EndpointPath> = keyof EndpointOperations[P] & string;

/** The method used when options.method is left out: GET, or the route's only method. */
export type EndpointDefaultMethod<P extends EndpointPath> = "GET" extends EndpointMethod<P> ? "GET" : EndpointMethod<P>;

/** The options of an operation. */
export type EndpointOptions<P extends EndpointPath, M extends EndpointMethod<P>> =
  EndpointOperations[P][M] extends { options: infer Options } ? Options : never;

/** What an operation answers: a union of EndpointResponse, narrowed by checking status. */
export type EndpointResult<P extends EndpointPath, M extends EndpointMethod<P>> =
  EndpointOperations[P][M] extends { result: infer Result } ? Result : never;

/** A client of the app. */
export interface EndpointClient {
  /**
   * A request to the operation at path (its client form, /api/users/:id)
   * with options.method, GET or the route's only method when left out. The
   * options are typed for that operation; awaiting the request sends it
   * and gives a union of EndpointResponse, one per declared status, so
   * checking status narrows body:
   *
   *   const res = await api.$endpoint("/api/users/:id", { params: { id: 1 } });
   *   if (res.status === 200) console.log(res.body);
   */
  $endpoint<P extends EndpointPathWithoutOptions>(path: P): EndpointRequest<EndpointResult<P, EndpointDefaultMethod<P>>>;
  $endpoint<P extends EndpointPath, M extends EndpointMethod<P> = EndpointDefaultMethod<P>>(
    path: P,
    options: { method?: M } & EndpointOptions<P, M>,
  ): EndpointRequest<EndpointResult<P, M>>;
`

// tsClientVueMembers are the members of EndpointClient in Vue mode.
const tsClientVueMembers = `
  /**
   * A Vue composable: sends the request that $endpoint(path, options)
   * would, now and again whenever a ref or getter in the options changes
   * (an answer to an older request is dropped, and that request aborted).
   * Call it in a component's setup or an effect scope; the watch stops
   * with it.
   *
   *   const id = ref(1);
   *   const { data, error, pending, refresh } = api.useEndpoint("/api/users/:id", { params: { id } });
   *   // data.value?.status === 200 narrows data.value.body
   */
  useEndpoint<P extends EndpointPathWithoutOptions>(path: P): UseEndpointReturn<EndpointResult<P, EndpointDefaultMethod<P>>>;
  useEndpoint<P extends EndpointPath, M extends EndpointMethod<P> = EndpointDefaultMethod<P>>(
    path: P,
    options: ({ method?: M } & EndpointReactiveOptions<EndpointOptions<P, M>>) | (() => { method?: M } & EndpointOptions<P, M>),
  ): UseEndpointReturn<EndpointResult<P, M>>;
`

// tsRuntime is the code of every generated module: createClient's
// helpers, after the app's operations table (endpointOperations).
const tsRuntime = `/** How a body is encoded or an answer read, by its media type. */
type EndpointKind = "json" | "events" | "text-events" | "bytes" | "form" | "multipart";

/** What the client knows of one operation at run time. */
interface EndpointOperation {
  /** Whether the operation takes an Idempotency-Key, and whether it must. */
  readonly idempotency?: "optional" | "required";
  /** The request body's media types, the default first. */
  readonly body?: { readonly [mediaType: string]: EndpointKind };
  /** The declared answers: status, then media type; {} for an answer without content. */
  readonly responses: { readonly [status: string]: { readonly [mediaType: string]: EndpointKind } };
}

/** The options of any operation, as the runtime reads them. */
interface EndpointAnyOptions {
  readonly method?: string;
  readonly params?: { readonly [name: string]: unknown };
  readonly query?: { readonly [name: string]: unknown };
  readonly headers?: { readonly [name: string]: unknown };
  readonly body?: unknown;
  readonly contentType?: string;
  readonly accept?: string;
  readonly idempotencyKey?: string | boolean;
  readonly signal?: AbortSignal;
}

/** Makes $endpoint for a client. */
function endpointFunction(client: EndpointClientOptions): (path: string, options?: EndpointAnyOptions) => EndpointRequest<unknown> {
  const baseUrl = (client.baseUrl ?? "").replace(/\/+$/, "");
  const fetchWith = client.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
  return (path, options = {}) => {
    const method = options.method?.toUpperCase() ?? endpointDefaultMethod(path);
    const operation = endpointOperations[method + " " + path];
    if (operation === undefined) {
      throw new TypeError("$endpoint: the app has no operation " + method + " " + path);
    }
    const key = endpointIdempotencyKey(operation, options);
    const send = async (): Promise<Response> => {
      const headers = new Headers();
      const defaults = typeof client.headers === "function" ? await client.headers() : client.headers;
      for (const [name, value] of Object.entries(defaults ?? {})) {
        headers.set(name, value);
      }
      for (const [name, value] of Object.entries(options.headers ?? {})) {
        if (value !== undefined && value !== null) {
          headers.set(name, Array.isArray(value) ? value.map(String).join(", ") : String(value));
        }
      }
      if (options.accept !== undefined) {
        headers.set("accept", options.accept);
      }
      if (key !== undefined) {
        headers.set("idempotency-key", key);
      }
      const init: RequestInit = { method, headers };
      if (options.signal !== undefined) {
        init.signal = options.signal;
      }
      if (options.body !== undefined && operation.body !== undefined) {
        init.body = endpointBody(operation.body, options, headers);
      }
      return fetchWith(baseUrl + endpointURL(path, options), init);
    };
    return endpointRequest(operation, send, key);
  };
}

/** The method when none is given: GET, or the only method of the path. */
function endpointDefaultMethod(path: string): string {
  const methods = Object.keys(endpointOperations)
    .filter((key) => key.endsWith(" " + path))
    .map((key) => key.slice(0, key.indexOf(" ")));
  if (methods.includes("GET")) {
    return "GET";
  }
  const only = methods[0];
  if (only === undefined || methods.length > 1) {
    throw new TypeError("$endpoint: " + path + (only === undefined ? " is not a path of the app" : " has several methods; pass method"));
  }
  return only;
}

/** The Idempotency-Key to send: the caller's, else a new one when wanted. */
function endpointIdempotencyKey(operation: EndpointOperation, options: EndpointAnyOptions): string | undefined {
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (name.toLowerCase() === "idempotency-key" && value !== undefined && value !== null) {
      return String(value);
    }
  }
  const wanted = options.idempotencyKey ?? operation.idempotency === "required";
  if (typeof wanted === "string") {
    return wanted;
  }
  return wanted ? globalThis.crypto.randomUUID() : undefined;
}

/** The URL of a request: path parameters encoded, query keys repeated for arrays. */
function endpointURL(path: string, options: EndpointAnyOptions): string {
  let url = path
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":")) {
        return segment;
      }
      const value = options.params?.[segment.slice(1)];
      if (value === undefined || value === null) {
        throw new TypeError("$endpoint: " + path + " needs params." + segment.slice(1));
      }
      return encodeURIComponent(String(value));
    })
    .join("/");
  const search = new URLSearchParams();
  for (const [name, value] of endpointFields(options.query)) {
    search.append(name, endpointText(value));
  }
  const query = search.toString();
  if (query !== "") {
    url += "?" + query;
  }
  return url;
}

/** Encodes a request body for its media type, setting Content-Type when fetch would not. */
function endpointBody(media: { readonly [mediaType: string]: EndpointKind }, options: EndpointAnyOptions, headers: Headers): BodyInit {
  const types = Object.keys(media);
  const contentType = options.contentType ?? types[0];
  const kind = contentType === undefined ? undefined : media[contentType];
  if (contentType === undefined || kind === undefined) {
    throw new TypeError("$endpoint: contentType " + String(options.contentType) + " is not one of " + types.join(", "));
  }
  const body = options.body;
  switch (kind) {
    case "json":
      headers.set("content-type", contentType);
      return JSON.stringify(body);
    case "form": {
      if (body instanceof URLSearchParams) {
        return body;
      }
      const form = new URLSearchParams();
      for (const [name, value] of endpointFields(body)) {
        form.append(name, endpointText(value));
      }
      return form;
    }
    case "multipart": {
      if (body instanceof FormData) {
        return body;
      }
      const form = new FormData();
      for (const [name, value] of endpointFields(body)) {
        if (value instanceof Blob) {
          form.append(name, value);
        } else {
          form.append(name, endpointText(value));
        }
      }
      return form;
    }
    default:
      headers.set("content-type", contentType);
      return body as BodyInit;
  }
}

/** The fields of a form given as an object: an array repeats its key; undefined and null are left out. */
function endpointFields(body: unknown): [string, unknown][] {
  const fields: [string, unknown][] = [];
  for (const [name, value] of Object.entries(body ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) {
        fields.push([name, item]);
      }
    }
  }
  return fields;
}

/** A query or form value as text: objects as JSON. */
function endpointText(value: unknown): string {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

/** A request: sent once, when awaited or when raw() is called. */
function endpointRequest(operation: EndpointOperation, send: () => Promise<Response>, key: string | undefined): EndpointRequest<unknown> {
  let raw: Promise<Response> | undefined;
  let read: Promise<unknown> | undefined;
  return {
    idempotencyKey: key,
    raw() {
      if (read !== undefined) {
        return Promise.reject(new Error("$endpoint: this request was awaited, so its Response was read; call raw() instead of awaiting, not after"));
      }
      raw ??= send();
      return raw;
    },
    then(onfulfilled, onrejected) {
      if (raw !== undefined && read === undefined) {
        return Promise.reject(new Error("$endpoint: raw() was called on this request, so its Response is the caller's; await raw() instead")).then(onfulfilled, onrejected);
      }
      read ??= send().then((response) => endpointRead(operation, response));
      return read.then(onfulfilled, onrejected);
    },
    retry() {
      return endpointRequest(operation, send, key);
    },
  };
}

/** Reads an answer as the operation declares it. */
async function endpointRead(operation: EndpointOperation, response: Response): Promise<unknown> {
  const { status, headers } = response;
  const ok = status >= 200 && status < 300;
  const declared = operation.responses[String(status)];
  if (declared === undefined) {
    throw await endpointUnexpected(response, "status " + status + " is not one the endpoint declares");
  }
  const types = Object.keys(declared);
  if (types.length === 0) {
    await response.body?.cancel();
    return { status, ok, contentType: undefined, headers, body: undefined };
  }
  const contentType = endpointMatch(types, headers.get("content-type"));
  const kind = contentType === undefined ? undefined : declared[contentType];
  if (contentType === undefined || kind === undefined) {
    throw await endpointUnexpected(response, "status " + status + " came as " + String(headers.get("content-type")) + ", not " + types.join(" or "));
  }
  let body: unknown;
  switch (kind) {
    case "json": {
      const text = await response.text();
      try {
        body = JSON.parse(text);
      } catch {
        throw new EndpointUnexpectedResponse(endpointWhere(response, "status " + status + " came with a body that is not JSON"), status, headers, text);
      }
      break;
    }
    case "events":
    case "text-events":
      body = endpointEvents(response.body, kind === "events");
      break;
    default:
      body = response.body ?? new Blob().stream();
  }
  return { status, ok, contentType, headers, body };
}

/** The declared media type an answer's Content-Type matches. */
function endpointMatch(declared: readonly string[], header: string | null): string | undefined {
  const essence = (type: string): string => (type.split(";")[0] ?? "").trim().toLowerCase();
  if (header === null) {
    return declared.length === 1 ? declared[0] : undefined;
  }
  const actual = essence(header);
  return declared.find((type) => {
    const range = essence(type);
    return range === actual || range === "*/*" || (range.endsWith("/*") && actual.startsWith(range.slice(0, -1)));
  });
}

/** The error for an answer the endpoint does not declare, with its body read. */
async function endpointUnexpected(response: Response, reason: string): Promise<EndpointUnexpectedResponse> {
  let body: unknown;
  try {
    body = await response.text();
    body = JSON.parse(body as string);
  } catch {
    // Not JSON (body stays the text), or unreadable (body stays undefined).
  }
  return new EndpointUnexpectedResponse(endpointWhere(response, reason), response.status, response.headers, body);
}

/** A message about an answer, naming its URL when it has one. */
function endpointWhere(response: Response, message: string): string {
  return response.url === "" ? "$endpoint: " + message : "$endpoint: " + response.url + ": " + message;
}

/**
 * The data of a stream of Server-Sent Events (text/event-stream, WHATWG
 * HTML section 9.2), parsed as JSON when json is set. Event names, ids and
 * retry fields are not given; leaving the loop early cancels the stream.
 */
async function* endpointEvents(stream: ReadableStream<Uint8Array> | null, json: boolean): AsyncGenerator<unknown, void, undefined> {
  if (stream === null) {
    return;
  }
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let done = false;
  try {
    while (!done) {
      const chunk = await reader.read();
      done = chunk.done;
      buffer += done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/);
        if (end < 0 || (!done && end === buffer.length - 1 && buffer[end] === "\r")) {
          break; // no whole line yet (a lone CR may be half of CRLF)
        }
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer.startsWith("\r\n", end) ? end + 2 : end + 1);
        if (line === "") {
          if (data.length > 0) {
            const text = data.join("\n");
            data = [];
            yield json ? JSON.parse(text) : text;
          }
        } else if (line === "data" || line.startsWith("data:")) {
          const value = line.slice(5);
          data.push(value.startsWith(" ") ? value.slice(1) : value);
        }
      }
    }
  } finally {
    if (done) {
      reader.releaseLock();
    } else {
      await reader.cancel().catch(() => undefined);
    }
  }
}
`

// tsVueRuntime is the code of useEndpoint, added in Vue mode.
const tsVueRuntime = `/** Makes useEndpoint for a client's $endpoint. */
function endpointComposable(endpoint: (path: string, options?: EndpointAnyOptions) => EndpointRequest<unknown>) {
  return (path: string, options?: MaybeRefOrGetter<{ readonly [name: string]: unknown }>): UseEndpointReturn<unknown> => {
    const data = shallowRef<unknown>(undefined);
    const error = shallowRef<unknown>(undefined);
    const pending = ref(false);
    let controller: AbortController | undefined;
    let latest = 0;

    // Reads every ref and getter of the options, so that watch tracks them.
    const resolve = (): EndpointAnyOptions => {
      const given = toValue(options) ?? {};
      const resolved: { [name: string]: unknown } = { ...given };
      for (const part of ["params", "query"]) {
        const values = toValue(given[part]);
        resolved[part] = values === undefined || values === null ? undefined
          : Object.fromEntries(Object.entries(values).map(([name, value]) => [name, toValue(value)]));
      }
      for (const part of ["headers", "body"]) {
        resolved[part] = toValue(given[part]);
      }
      return resolved as EndpointAnyOptions;
    };

    const load = async (resolved: EndpointAnyOptions): Promise<void> => {
      controller?.abort();
      const own = new AbortController();
      controller = own;
      resolved.signal?.addEventListener("abort", () => own.abort(resolved.signal?.reason), { once: true });
      const run = ++latest;
      pending.value = true;
      try {
        const result = await endpoint(path, { ...resolved, signal: own.signal });
        if (run === latest) {
          data.value = result;
          error.value = undefined;
        }
      } catch (failure) {
        if (run === latest) {
          error.value = failure;
        }
      } finally {
        if (run === latest) {
          pending.value = false;
        }
      }
    };

    const stop = watch(resolve, (resolved) => void load(resolved), { immediate: true, deep: true });
    if (getCurrentScope() !== undefined) {
      onScopeDispose(() => {
        stop();
        controller?.abort();
      });
    }
    return { data, error, pending, refresh: () => load(resolve()) };
  };
}
`
