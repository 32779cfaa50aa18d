;; SIMD (constants, shuffles, lanes, memarg+lane loads) and bulk memory and
;; table instructions inside loops.
;; Built by the tests: wat2wasm simd_bulk.wat
(module
  (memory (export "memory") 1)
  (data $pattern "\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f\10")
  (table $t 2 funcref)
  (func $id (result i32) (i32.const 9))
  (elem $e func $id)

  ;; fill copies the 16-byte pattern n times to 0, then copies it to 4096
  ;; and fills 16 bytes at 8192 with 7.
  (func $fill (export "fill") (param $n i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (memory.init $pattern (i32.mul (local.get $i) (i32.const 16)) (i32.const 0) (i32.const 16))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (memory.copy (i32.const 4096) (i32.const 0) (i32.mul (local.get $n) (i32.const 16)))
    (memory.fill (i32.const 8192) (i32.const 7) (i32.const 16)))

  ;; simd_sum returns the sum of the n*16 bytes at 4096, adding four lanes
  ;; of pairwise sums per iteration.
  (func (export "simd_sum") (param $n i32) (result i32)
    (local $acc v128)
    (local $p i32)
    (local.set $p (i32.const 4096))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $acc
          (i32x4.add (local.get $acc)
            (i32x4.extadd_pairwise_i16x8_u
              (i16x8.extadd_pairwise_i8x16_u (v128.load (local.get $p))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
      (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))

  ;; lanes returns 15 (a reversed shuffle's lane 0) * 100 + 7 (a byte of
  ;; the fill, loaded into lane 3) + 16 (the last byte of the pattern,
  ;; loaded with load32_zero).
  (func (export "lanes") (result i32)
    (i32.add
      (i32.add
        (i32.mul (i32.const 100)
          (i8x16.extract_lane_u 0
            (i8x16.shuffle 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0
              (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
              (v128.const i8x16 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0))))
        (i8x16.extract_lane_u 3
          (v128.load8_lane 3 (i32.const 8192) (v128.const i32x4 0 0 0 0))))
      (i8x16.extract_lane_u 3 (v128.load32_zero (i32.const 12)))))

  ;; tables grows t by one, fills the new entry from segment e through
  ;; table.init, copies it to t[0] and calls it: 9 * 10 + the new size 3.
  (func (export "tables") (result i32)
    (drop (table.grow $t (ref.null func) (i32.const 1)))
    (table.init $t $e (i32.const 2) (i32.const 0) (i32.const 1))
    (table.copy $t $t (i32.const 0) (i32.const 2) (i32.const 1))
    (table.fill $t (i32.const 1) (ref.null func) (i32.const 1))
    (i32.add
      (i32.mul (call_indirect $t (result i32) (i32.const 0)) (i32.const 10))
      (table.size $t))))
