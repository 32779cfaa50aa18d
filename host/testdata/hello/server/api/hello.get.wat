;; hello.wat - an Endpoints endpoint written by hand against ABI v1.
;;
;;   GET /api/hello?name=Ada  ->  200 {"hello":"Ada"}
;;   GET /api/hello           ->  200 {"hello":"world"}   (the schema default)
;;
;; Build:   wat2wasm hello.wat -o hello.get.wasm
;; Install: copy hello.get.wasm to <app>/server/api/hello.get.wasm
;;
;; The module needs no WASI and no allocator: it imports only the host
;; functions it calls, keeps its data at fixed offsets of its one memory page,
;; and lets the host write the request value straight into the response it
;; is assembling. abi/abi.go in the Endpoints repository is the specification
;; of every name and number used here.
(module
  ;; --- Imports -------------------------------------------------------------
  ;; Every host function lives in the module "endpoints". A module imports
  ;; only what it uses; the signatures must match ABI v1 exactly.

  ;; request_value(part, name, name_len, buf, buf_len) -> size
  ;; Writes the JSON encoding of one validated request value into buf when it
  ;; fits and returns its size either way; -1 (not found) when absent.
  (import "endpoints" "request_value"
    (func $request_value (param i32 i32 i32 i32 i32) (result i32)))

  ;; response_set_status(status) -> errno
  (import "endpoints" "response_set_status"
    (func $response_set_status (param i32) (result i32)))

  ;; response_write(buf, buf_len) -> errno
  ;; Appends bytes to the response body. Without a Content-Type header the
  ;; host sends an endpoint's body as application/json.
  (import "endpoints" "response_write"
    (func $response_write (param i32 i32) (result i32)))

  ;; log(level, msg, msg_len); level 3 is error.
  (import "endpoints" "log"
    (func $log (param i32 i32 i32)))

  ;; --- Memory ----------------------------------------------------------------
  ;; The host reads and writes the export named "memory". One 64 KiB page:
  ;;
  ;;   1024  the contract, 364 bytes of JSON
  ;;   1536  "name", the query parameter's name
  ;;   1600  "cannot read the name parameter", a log message (30 bytes)
  ;;   4096  the response: {"hello": then the value, then }
  (memory (export "memory") 1)

  ;; The contract (docs/spec.md §3): a query parameter "name", a string of
  ;; 1-64 characters defaulting to "world", and one declared response. The
  ;; host validates every request against it before endpoints_handle runs,
  ;; and in development checks the answer against "responses".
  (data (i32.const 1024)
    "{\"summary\":\"Say hello\",\"tags\":[\"hello\"],"
    "\"request\":{\"query\":{\"type\":\"object\",\"properties\":{\"name\":"
    "{\"type\":\"string\",\"minLength\":1,\"maxLength\":64,"
    "\"default\":\"world\",\"description\":\"Who to greet.\"}}}},"
    "\"responses\":{\"200\":{\"description\":\"The greeting\","
    "\"schema\":{\"type\":\"object\",\"properties\":{\"hello\":"
    "{\"type\":\"string\"}},\"required\":[\"hello\"],"
    "\"additionalProperties\":false}}}}")
  (data (i32.const 1536) "name")
  (data (i32.const 1600) "cannot read the name parameter")
  ;; The response prefix, 9 bytes; the host writes the value right after it.
  (data (i32.const 4096) "{\"hello\":")

  ;; --- Exports -----------------------------------------------------------------

  ;; endpoints_abi_version: the ABI this module was built for. Required.
  (func (export "endpoints_abi_version") (result i32)
    (i32.const 1))

  ;; endpoints_contract: where the contract is, packed as offset<<32 | length.
  ;; Exporting it makes this module an endpoint rather than a plain route.
  ;;   1024<<32 | 364 = 0x0000_0400_0000_016c
  (func (export "endpoints_contract") (result i64)
    (i64.const 0x000004000000016c))

  ;; endpoints_handle: called once per request, after validation. Returns 0
  ;; when it answered; anything else makes the host answer 500.
  (func (export "endpoints_handle") (result i32)
    (local $n i32)

    ;; 1. Ask for the validated query value "name" (part 1 = query), to be
    ;;    written at 4105, just after the 9-byte prefix, with room for 1024
    ;;    bytes. It arrives as JSON, quotes and escapes included, e.g. "Ada"
    ;;    with its quotes, so it can be copied into the answer as it is.
    (local.set $n
      (call $request_value
        (i32.const 1)                        ;; part: query
        (i32.const 1536) (i32.const 4)       ;; name: "name"
        (i32.const 4105) (i32.const 1024)))  ;; buf, buf_len

    ;; 2. A negative size is an error code; a size above 1024 means the host
    ;;    wrote nothing (the buffer convention). Neither can happen for a
    ;;    validated string of at most 64 characters, but a guest checks.
    (if (i32.or
          (i32.lt_s (local.get $n) (i32.const 0))
          (i32.gt_s (local.get $n) (i32.const 1024)))
      (then
        (call $log (i32.const 3) (i32.const 1600) (i32.const 30))
        (return (i32.const 1))))

    ;; 3. Close the object after the value: 4105 + n.
    (i32.store8
      (i32.add (i32.const 4105) (local.get $n))
      (i32.const 0x7d))                      ;; '}'

    ;; 4. Set the status. 200 is the default; setting it shows the call.
    (drop (call $response_set_status (i32.const 200)))

    ;; 5. Write the whole body in one call: 9 + n + 1 bytes from 4096.
    ;;    Its result, 0 or a negative error code, is the handler's result.
    (call $response_write
      (i32.const 4096)
      (i32.add (local.get $n) (i32.const 10))))
)
