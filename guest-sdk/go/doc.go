// Package endpoints is the Go SDK for Endpoints routes: the routes of an
// HTTP API, served from WebAssembly modules. You write a handler with a
// typed input; the SDK derives the route's contract (JSON Schemas of the
// request and the responses) from your Go types, and the host validates
// every request against it before your handler runs, and documents it in
// the app's OpenAPI document (docs/spec.md §3-5).
//
// # A route in five minutes
//
// A route is a main package anywhere in the app whose directive names the
// route it serves, in the form `endpoints routes` prints:
//
//	//endpoints:route GET /api/users/:id
//	package main
//
//	import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
//
//	type User struct {
//		ID   int    `json:"id"`
//		Name string `json:"name" minLength:"1" maxLength:"100"`
//	}
//
//	type NotFound struct {
//		Message string `json:"message"`
//	}
//
//	type getUser struct {
//		ID int `path:"id" minimum:"1" doc:"The user's id."`
//	}
//
//	func init() {
//		endpoints.Handle(endpoints.Operation{
//			Summary: "Get a user",
//			Tags:    []string{"users"},
//			Responses: endpoints.Responses{
//				200: endpoints.JSON[User]("The user"),
//				404: endpoints.JSON[NotFound]("No such user"),
//			},
//		}, func(in *getUser) endpoints.Reply {
//			u, ok := find(in.ID)
//			if !ok {
//				return endpoints.Respond(404, NotFound{Message: "no such user"})
//			}
//			return endpoints.Respond(200, u)
//		})
//	}
//
//	func main() {}
//
// Register handlers in init; main stays empty (the host never calls it).
// `endpoints build APP` links the app's Go routes into one module,
// server/bundles/go.wasm (a bundle, abi/README.md §9), in which each route
// keeps its own contract; with "build": {"goBundle": false} in
// endpoints.json it compiles each into the module its route maps to,
// server/api/users/[id].get.wasm here, as by hand from the package
// directory:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o APP/server/api/users/[id].get.wasm .
//
// A request for /api/users/0 never reaches the handler: the host answers
// 400 with the failing rule. A request for /api/users/7 calls the handler
// with in.ID == 7.
//
// # The input struct
//
// Each field of the input struct says where its value comes from:
//
//	path:"id"        a path parameter (the [id] segment); always required
//	query:"limit"    a query parameter; a slice collects repeated keys
//	header:"x-tenant" a request header (the name is lower-cased)
//	Body             the field named Body is the request body (JSON unless
//	                 its content tag says otherwise; see below)
//
// Query and header parameters are optional unless tagged
// `required:"true"`; an absent one leaves the field zero (use a pointer to
// tell absent from zero, or a default). The body is required unless Body is
// a pointer or tagged `required:"false"`. Embedded structs are flattened,
// so shared parameters can live in one struct. Any other exported field is
// an error: the registration panics, naming it.
//
// A struct field tagged query is one object parameter, spelled as OpenAPI
// says (its contract's queryStyles): by default each member is a query
// parameter of its own (?color=red&size=2); `style:"deepObject"` reads
// ?filter[color]=red, `explode:"false"` reads ?filter=color,red,size,2.
// Its members are strings, numbers, booleans or slices of them.
//
// The host coerces path, query and header strings to the field's schema
// type (integer, number, boolean, arrays) and applies defaults, so the
// handler receives typed, valid values. The schema of a number states the
// range of its Go type (below): /api/users/9223372036854775808 is a 400
// from the host, like /api/users/0.
//
// # Constraint tags
//
// These tags refine a field's schema, on input fields and on the fields of
// any struct that is a body or a response:
//
//	doc:"..."                   description
//	minimum, maximum            bounds of a number ("1", "0.5")
//	exclusiveMinimum, exclusiveMaximum, multipleOf
//	minLength, maxLength        length of a string
//	pattern:"^[a-z]+$"          regular expression (ECMA 262)
//	format:"email"              date-time, date, email, uri, uuid, ...
//	enum:"asc,desc"             allowed values, comma separated
//	default:"10"                default value, applied by the host
//	example:"Ada"               an example for the documentation
//	minItems, maxItems, uniqueItems      size of a slice
//	minProperties, maxProperties         size of a map or object
//	deprecated, readOnly, writeOnly      "true" or "false"
//	required:"true"             required (query, header, body and struct fields)
//	nullable:"true"             may also be null (a pointer, slice or map field
//	                            of a body or response struct: a NULLable column)
//
// Values of enum, default and example are converted to the field's type
// ("10" is the number 10 for an int). On a slice, the value constraints
// (enum, format, pattern, minLength, maxLength, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, multipleOf) apply to its items; a
// default or example of a slice is a comma-separated list or a JSON array.
// On the Body field, minProperties and maxProperties apply to the body
// object. A tag that does not fit (minimum:"abc", minLength on an int)
// panics at registration with a message naming type, field and tag (and,
// in a bundle, the route); the host then reports the failed load, quoting
// it. In a bundle the whole bundle fails to load: `endpoints dev` keeps
// its previous version serving.
//
// A blank field _ struct{} describes the struct type itself: its doc tag is
// the type's description and each example tag (one per blank field) a
// whole example as JSON. The host copies a schema's example into the
// document's media types, where mock servers and reference pages look:
//
//	type User struct {
//		_  struct{} `doc:"A user." example:"{\"id\":1}"`
//		ID int      `json:"id" example:"1"`
//	}
//
// Numbers have the range of their Go type as minimum and maximum (below).
// A minimum or maximum tag replaces the type's bound, so it may only be
// tighter: minimum:"-1" or maximum:"300" on a uint8 panics, naming the
// range 0 to 255, and so does an enum, default or example value outside
// it. exclusiveMinimum and exclusiveMaximum must lie within the range
// too, and replace the type's inclusive bound on their side:
// exclusiveMinimum:"0" on a uint8 gives {"exclusiveMinimum": 0,
// "maximum": 255}.
//
// # Schemas from Go types
//
//	bool                  boolean
//	int8 ... int64        integer, minimum and maximum of the type (int8:
//	                      -128 to 127); int is 64 bits in WebAssembly
//	uint8 ... uint64      integer, minimum 0, maximum of the type; also
//	                      uint and uintptr (64 bits)
//	float32               number, ±3.4028235e+38 (math.MaxFloat32)
//	float64               number
//	string                string
//	[]byte                string, contentEncoding base64
//	time.Time             string, format date-time
//	[]T, [N]T             array of T
//	map[string]T          object, additionalProperties T
//	struct                object with its JSON fields
//	*T                    T, not required
//	any, json.RawMessage  {} (anything)
//
// Struct fields follow encoding/json: json tags name them, "-" skips them,
// embedded structs are flattened. A field is required unless it is a
// pointer or tagged omitempty or omitzero. Named struct types become
// "$defs" entries ({"$ref": "#/$defs/User"}), named after the Go type; a
// second type with the same name gets a numeric suffix (User2). Every
// object schema derived from a struct is closed ("additionalProperties":
// false): a request body with a member the struct lacks is rejected with a
// 400 naming it, rather than silently dropped. The contract is
// deterministic: the same code gives the same bytes.
//
// # Replies
//
// [Respond] builds a [Reply] from a status and a body encoded with
// encoding/json; a nil body sends none. [Reply.WithHeader] adds headers:
//
//	return endpoints.Respond(201, u).WithHeader("Location", "/api/users/4")
//	return endpoints.Respond(204, nil)
//
// JSON bodies need no Content-Type: the host sends application/json.
// [Operation.Responses] declares each status with [JSON] (schema derived
// from a Go type), [JSONAs] (the same, sent as a +json profile such as
// application/problem+json), [RawJSON] (a schema written by hand),
// [NoContent], or [Media] and [MediaOf] (below). In development the host
// checks every answer against them and answers 500 for an undeclared
// status or a body that does not match. Without Responses nothing is
// checked.
//
// [HandleFunc] suits handlers that return a value or an error:
//
//	endpoints.HandleFunc(endpoints.Operation{Summary: "Create a user", Status: 201},
//		func(in *createUser) (User, error) {
//			if taken(in.Body.Email) {
//				return User{}, endpoints.Error(409, Conflict{Message: "email taken"})
//			}
//			return store.Create(in.Body)
//		})
//
// The value answers [Operation.Status] (200 by default); [Error] answers
// its own status and body; a [KV] error wrapping [ErrStorageUnavailable]
// and a database's [ErrDatabaseUnavailable] or [ErrBusy] answer 503; any
// other error answers 500. Both are logged. When
// Responses is nil the success response is inferred from the result type.
//
// # Media and streaming
//
// A status declared with [Media] answers in other media types than JSON:
// images, files, CSV, event streams. The host never validates such a
// body; [MediaOf] adds a schema, derived from a Go type, that documents
// the payload or one event of a stream:
//
//	Responses: endpoints.Responses{
//		200: endpoints.Media("The avatar", "image/png", "image/webp"),
//		404: endpoints.JSONAs[Problem]("No such user", "application/problem+json"),
//	},
//
// When the 2xx responses of an operation offer more than one media type
// between them, the host picks one with the client's Accept header
// (answering 406 itself when none fits) and [MediaType] tells the handler
// which:
//
//	if endpoints.MediaType() == "image/webp" {
//		return endpoints.Bytes(200, "image/webp", webp)
//	}
//	return endpoints.Bytes(200, "image/png", png)
//
// [Bytes] answers a whole binary body. [Stream] answers a body written
// piece by piece: the status and headers are sent first, then every Write
// of its function goes to the client at once, flushed, for a status
// declared as media (a JSON answer is buffered, to be checked):
//
//	return endpoints.Stream(200, "text/csv", func(w io.Writer) error {
//		for _, u := range users {
//			if _, err := fmt.Fprintf(w, "%d,%s\n", u.ID, u.Name); err != nil {
//				return err // the client went away
//			}
//		}
//		return nil
//	})
//
// [EventStream] sends Server-Sent Events (text/event-stream, as the
// browser's EventSource reads them), one flushed chunk per [Event]:
//
//	200: endpoints.MediaOf[Tick]("A tick a second", "text/event-stream"),
//
//	return endpoints.EventStream(func(send func(endpoints.Event) error) error {
//		for i := range 5 {
//			if err := send(endpoints.Event{ID: strconv.Itoa(i), Data: Tick{N: i}}); err != nil {
//				return err // the client went away
//			}
//			time.Sleep(time.Second)
//		}
//		return nil
//	})
//
// time.Sleep works in a module (the host gives real clocks). A stream
// must end within the host's call deadline (10 s by default), or the host
// stops it as a failure; an EventSource reconnects when a stream ends,
// sending the last ID it saw as the Last-Event-ID header. An error
// returned from a stream's function is logged and fails the request: a
// 500 when nothing was sent yet, a response cut short otherwise, so the
// client can tell it from a complete one.
//
// # Request media types and uploads
//
// The Body field's content tag lists the media types the endpoint
// accepts, separated by commas; without it the body is application/json.
// The host answers 415 for any other type, and 413 past the maxBytes tag
// (the app's limit otherwise). Forms and multipart bodies reach the
// handler decoded into the same struct as JSON, their strings coerced to
// the fields' types:
//
//	type signup struct {
//		Body struct {
//			Email string `json:"email" format:"email"`
//			Age   int    `json:"age,omitempty" minimum:"13"`
//		} `content:"application/x-www-form-urlencoded,application/json"`
//	}
//
// A multipart body's files are fields of type [File] (*File when
// optional, []File for a repeated field); each is an io.Reader over the
// part, read from the host as it is consumed. An accept tag limits the
// part's media types:
//
//	type upload struct {
//		Body struct {
//			Caption string         `json:"caption,omitempty"`
//			Photo   endpoints.File `json:"photo" accept:"image/png,image/jpeg"`
//		} `content:"multipart/form-data" maxBytes:"5242880"`
//	}
//
//	n, err := io.Copy(store, in.Body.Photo)
//
// Any other media type (text/csv, application/octet-stream, ranges such as
// text/*) arrives raw and unvalidated: the Body is an io.Reader, streamed,
// or a []byte or string, read whole before the handler runs. [ContentType]
// tells which listed type the request carried:
//
//	type importRows struct {
//		Body io.Reader `content:"text/csv" doc:"One user a line."`
//	}
//
// The contract lists the types under "content", each with the Body's
// schema (text types: a string; other raw types: none). A content tag the
// Body's type cannot serve (a struct for text/csv, an io.Reader for JSON,
// a File without multipart/form-data, raw and decoded types together)
// panics at registration.
//
// # Validation errors
//
// The host answers a request that fails validation with 400 (or 415 for
// its media type, 406 when no response type is acceptable) and a default
// body. [OnValidationError] registers a hook that may answer instead,
// with any [Reply]; it gets the failure, its issues and the default body:
//
//	endpoints.OnValidationError(func(f *endpoints.ValidationFailure) (endpoints.Reply, bool) {
//		if f.Kind != abi.FailureSchema {
//			return endpoints.Reply{}, false // keep the default
//		}
//		return endpoints.Respond(422, Problem{Title: "Invalid " + f.Part, Issues: f.Issues}), true
//	})
//
// A hook that declines leaves the failure to the app-wide hook of the
// runtime declaration ([Runtime.OnValidationError]), then to the default
// body. Declare the answers hooks send in [Operation.Responses].
//
// A value the host passed that the input's Go type cannot hold (an
// [Operation.Request] schema wider than the type, or a host older than
// the ranges of numbers) is refused by the SDK in the same way: 400 with
// the host's body, naming the part and the path, or the module's hook's
// answer; the call does not fail, and a warning is logged:
//
//	{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be less than or equal to 9223372036854775807"}]}}
//
// The host's check of answers takes that 400 as declared, as the OpenAPI
// document lists it for every operation with a request part (hosts
// older than that check report it as a Response Contract Error in
// development; either way the instance is kept). An integer field takes
// an integral number however it is written (2, 2.0, 2e0); 2.5 is such a
// 400.
//
// # Raw schemas
//
// [Operation.Request] replaces derived request schemas with JSON Schema
// written by hand, part by part; [Operation.Defs] adds named schemas they
// can reference. The input struct is still filled by parameter name.
//
// # Several methods in one module
//
// A route whose directive names no method (//endpoints:route * /api/users/:id)
// registers one handler per method, each with [Operation.Method] set; HEAD
// requests reach the GET handler. The contract lists them under "methods".
// A package has one directive: this is how one package serves several
// methods of a path.
//
// # Plain routes
//
// [HandleRaw] registers a handler that sees the raw request and writes what
// it likes, like a net/http handler; the module exports no contract and is
// neither validated nor documented:
//
//	endpoints.HandleRaw(func(w endpoints.ResponseWriter, r *endpoints.RawRequest) {
//		w.Header().Set("Content-Type", "text/plain")
//		w.WriteHeader(200)
//		io.Copy(w, r.Body) // echo
//	})
//
// # Databases
//
// [DB] is one of the app's SQL databases (abi/README.md §4.5): SQLite under
// the app by default, PostgreSQL when endpoints.json or the environment
// say so, with the same code. It reads like database/sql:
//
//	db := endpoints.DB("main")
//	u, err := endpoints.QueryRowAs[User](db, "SELECT id, name FROM users WHERE id = $1", in.ID)
//	res, err := db.Exec("UPDATE users SET name = $1 WHERE id = $2", in.Name, in.ID)
//	err = db.Tx(func(tx *endpoints.Tx) error { ... })
//
// Errors are typed: errors.Is(err, [ErrUniqueViolation]) for a unique
// violation (answer 409), [ErrForeignKeyViolation] for a row naming one
// that does not exist (404 or 422), [ErrConstraint] for any constraint,
// [ErrNoRows] from [Row.Scan] and [QueryRowAs];
// a [HandleFunc] handler that returns [ErrDatabaseUnavailable] or
// [ErrBusy] answers 503, and a [Handle] handler answers the same with
// [ErrorReply](err).
// database/sql's sql.NullString, sql.Null[T]... work as arguments and
// destinations. Native tests get migrated SQLite files from
// endpointstest.Database.
//
// # Storage
//
// [KV] is the app's key-value store: kept by the host between requests,
// shared by every route of the app and, with a Redis store, by every host
// serving it. Values are bytes, with an optional TTL; [KVStore.Incr] is
// atomic; [KVStore.Keys] lists keys by prefix; [KVStore.GetJSON] and
// [KVStore.SetJSON] store JSON:
//
//	var s Session
//	found, err := endpoints.KV.GetJSON("session:"+in.Token, &s)
//	...
//	err = endpoints.KV.SetJSON("session:"+in.Token, s, 30*time.Minute)
//
// When the store is down or full, calls fail with an error wrapping
// [ErrStorageUnavailable]. A [HandleFunc] handler that returns it answers
// 503; a [Handle] handler tests it with errors.Is and answers its own
// reply, or [ErrorReply]'s. KV works during a request (handlers, hooks), not in init. In a
// native build it is an in-memory map, so tests can call handlers that
// use it.
//
// # Calling other services
//
// A module has no sockets: net/http's own transport fails in it. Import
// package github.com/wasmendpoints/endpoints/guest-sdk/go/outbound and
// ordinary net/http code (http.Get, http.Client.Do) sends its requests
// through the host, to the origins endpoints.json's outbound.allowedHosts
// lists, within the call's deadline:
//
//	import _ "github.com/wasmendpoints/endpoints/guest-sdk/go/outbound"
//
//	resp, err := http.Get("https://api.example.com/v1/rates")
//
// net/http is heavy (it about doubles a module, and in a bundle every
// route pays for it): a route that only sends requests should use package
// github.com/wasmendpoints/endpoints/guest-sdk/go/outbound/fetch, the
// same calls without net/http:
//
//	res, err := fetch.Send(fetch.Request{Method: "POST", URL: url, Header: h, Body: body})
//
// # Headers and logs
//
// [Header] reads any raw request header. [Logger] returns a log/slog
// logger that writes to the host's log, tagged with the route.
//
// # Who is calling
//
// Security the document declares is enforced by the host before the
// handler runs: Operation.Security (or the routes configuration, or the
// runtime declaration) names the schemes and scopes; endpoints.json
// configures their verifiers. The handler gets the verified client with
// [Auth] (Subject, Scopes, [Principal.HasScope], [Principal.DecodeClaims])
// to decide per resource, [RequestID] and [TraceID] to tie its logs to the
// host's and to the request's trace, and [Value] for what middleware
// passed on.
//
// # Middleware
//
// A main package marked //endpoints:middleware NAME that calls
// [DeclareMiddleware] builds server/middleware/NAME.wasm, or, when the app
// has Go routes, is linked into their bundle by default, which then serves
// it under NAME ([BundleMiddleware]): Before runs ahead
// of validation and the handler and may add request headers, context
// values and response headers, or answer instead; After runs once the
// handler answered; Verify checks the credentials of a security scheme
// that names the module in x-endpoints-verifier.
//
// # Testing
//
// The package builds natively too, where an in-memory stand-in replaces the
// host: route packages can be vetted and tested with go test. A test can
// check the contract with [ContractJSON], and call the handler function
// directly and inspect its [Reply]: [Reply.Status], [Reply.Header], and
// the body with [Reply.Body] or, for a stream, [Reply.WriteTo].
//
// # Notes
//
//   - A module instance serves one request at a time; package variables
//     live as long as the instance, across requests, and the host may run
//     several instances of one module. In a bundle the routes share them:
//     a variable one route sets, another reads, in the next request of
//     any client.
//   - Goroutines run only while a call waits: the guest has one thread.
//     Those a handler (a hook, a middleware phase) starts, or wakes (a
//     job sent to a worker an earlier call started), and leaves runnable
//     run before its call returns, on its deadline; those still
//     there then (waiting on a channel, a timer) are logged as a warning
//     that names each and the line of its go statement. Nothing can stop
//     them: they run during a later call of the instance, of any route of
//     a bundle, on that call's time and deadline; one sleeping on a timer
//     runs in the first call that ends, or waits, after its time. Wait
//     for them (sync.WaitGroup) before returning.
//   - A nil slice encodes as null and a nil pointer without omitempty as
//     null; neither matches the derived schema, so answers holding them fail
//     the host's response check. Return empty slices, tag such fields
//     omitempty.
//   - The module implements ABI v1 (package abi): it exports
//     endpoints_abi_version, endpoints_contract, endpoints_handle and
//     endpoints_on_validation_error. In a plain route endpoints_contract
//     returns 0, which the host reads as "no contract".
package endpoints
