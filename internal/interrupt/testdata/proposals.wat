;; Instructions of proposals wazero does not run but modules may hold:
;; threads, legacy exception handling, relaxed SIMD, multiple memories and
;; memory64. The tests instrument it and check the result with
;; wasm-validate, so that a walker that misreads an immediate fails.
;; Built by the tests: wat2wasm --enable-all proposals.wat
(module
  (memory $m0 1 1 shared)
  (memory $m1 i64 1)
  (tag $e (param i32))

  (func $callee (param i32) (result i32) (local.get 0))

  ;; atomics loops over atomic, 64-bit memory and relaxed SIMD operations.
  (func (export "atomics") (param $n i32) (result i32)
    (local $v v128)
    (loop $next
      (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
      (drop (i64.atomic.rmw8.cmpxchg_u offset=8 (i32.const 0) (i64.const 1) (i64.const 2)))
      (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
      (drop (memory.atomic.wait32 (i32.const 0) (i32.const 1) (i64.const 0)))
      (atomic.fence)
      (drop (i64.load $m1 offset=0xfffffff0 (i64.const 0)))
      (i64.store $m1 (i64.const 8) (i64.const 3))
      (drop (memory.size $m1))
      (drop (memory.grow $m1 (i64.const 0)))
      (memory.copy $m0 $m1 (i32.const 0) (i64.const 0) (i32.const 0))
      (local.set $v (f32x4.relaxed_madd (local.get $v) (local.get $v) (local.get $v)))
      (local.set $v (i8x16.relaxed_swizzle (local.get $v) (local.get $v)))
      (local.set $v (i16x8.relaxed_q15mulr_s (local.get $v) (local.get $v)))
      (local.set $v (v128.load16_lane $m1 offset=2 1 (i64.const 0) (local.get $v)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $next (local.get $n)))
    (i32x4.extract_lane 3 (local.get $v)))

  ;; exceptions loops inside try blocks, with delegate and rethrow, and
  ;; calls: it also gets an entry check.
  (func (export "exceptions") (param $n i32) (result i32)
    (try (result i32)
      (do
        (loop $l (br_if $l (i32.eqz (call $callee (local.get $n)))))
        (try (do (throw $e (i32.const 7))) (delegate 0))
        (i32.const 0))
      (catch $e
        (drop)
        (try (result i32)
          (do (loop $m (br_if $m (i32.eqz (local.get $n)))) (rethrow 1))
          (catch_all (i32.const 1))))
      (catch_all (i32.const 0)))))
