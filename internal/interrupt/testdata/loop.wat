;; Plain loops: some that end, one that does not.
;; Built by the tests: wat2wasm loop.wat
(module
  ;; sum returns 1 + 2 + ... + n, wrapping.
  (func $sum (export "sum") (param $n i32) (result i32)
    (local $acc i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $acc (i32.add (local.get $acc) (local.get $n)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $acc))

  ;; inc is a leaf: it gets no fuel check.
  (func $inc (param i32) (result i32)
    (i32.add (local.get 0) (i32.const 1)))

  ;; calls calls $inc n times (n > 0) from a loop that starts the function:
  ;; the loop's fuel check covers the entry, which gets none of its own.
  (func $calls (export "calls") (param $n i32) (result i32)
    (local $acc i32)
    (loop $next
      (local.set $acc (call $inc (local.get $acc)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $next (local.get $n)))
    (local.get $acc))

  ;; spin never returns.
  (func $spin (export "spin")
    (loop $forever (br $forever))))
