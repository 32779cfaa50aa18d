;; Recursion without loops: only the fuel check at function entry can stop
;; it. The import moves every defined function up by one index after the
;; rewrite, with the check import placed after it.
;; Built by the tests: wat2wasm recursion.wat
(module
  (import "env" "twice" (func $twice (param i32) (result i32)))

  ;; fib is the naive doubly recursive Fibonacci: fib(40) takes seconds.
  (func $fib (export "fib") (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else
        (i32.add
          (call $fib (i32.sub (local.get $n) (i32.const 1)))
          (call $fib (i32.sub (local.get $n) (i32.const 2)))))))

  ;; is_even and is_odd recurse into each other n times.
  (func $is_even (export "is_even") (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 1))
      (else (call $is_odd (i32.sub (local.get $n) (i32.const 1))))))
  (func $is_odd (export "is_odd") (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (call $is_even (i32.sub (local.get $n) (i32.const 1))))))

  ;; twice_fib calls the import with a defined function's result.
  (func (export "twice_fib") (param $n i32) (result i32)
    (call $twice (call $fib (local.get $n)))))
