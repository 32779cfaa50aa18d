;; Block types with several parameters and results (encoded as type
;; indices) around a loop that carries its state on the stack.
;; Built by the tests: wat2wasm multivalue.wat
(module
  (type $pair (func (param i32 i32) (result i32 i32)))

  ;; step maps (a, b) to (b, a + b).
  (func $step (type $pair)
    (local.get 1)
    (i32.add (local.get 0) (local.get 1)))

  ;; fib_iter returns the n-th Fibonacci number, looping with (a, b) as
  ;; the loop's parameters.
  (func (export "fib_iter") (param $n i32) (result i32)
    (i32.const 0)
    (i32.const 1)
    (loop $next (type $pair)
      (if (type $pair) (local.get $n)
        (then
          (local.set $n (i32.sub (local.get $n) (i32.const 1)))
          (call $step)
          (br $next))
        (else)))
    (drop))

  ;; swap_sum returns 10 * b + a through a block with two results.
  (func (export "swap_sum") (param $a i32) (param $b i32) (result i32)
    (block (result i32 i32)
      (local.get $b)
      (local.get $a))
    (local.set $a)
    (i32.mul (i32.const 10))
    (local.get $a)
    (i32.add)))
