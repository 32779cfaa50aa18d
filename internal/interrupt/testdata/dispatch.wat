;; Dispatch loops, the shape Go's WebAssembly backend gives a function with
;; jumps: a loop around leading blocks and a br_table on a local; a jump
;; sets the local and branches to the loop. The rewrite checks only the
;; edges back to the loop that may go backwards (dispatch.go).
;; Built by the tests: wat2wasm dispatch.wat
(module
  ;; count returns n, counting down n to 0 in segment 1, which jumps to
  ;; itself: n checks. Its forward jumps (0 to 1, 1 to 2) are free.
  (func $count (export "count") (param $n i32) (result i32)
    (local $pc i32) (local $acc i32)
    (loop $d
      (block $s2 (block $s1 (block $s0
        (br_table $s0 $s1 $s2 (local.get $pc)))
        ;; segment 0
        (local.set $acc (i32.const 0))
        (local.set $pc (i32.const 1)) (br $d))
      ;; segment 1
      (if (i32.eqz (local.get $n))
        (then (local.set $pc (i32.const 2)) (br $d)))
      (local.set $acc (i32.add (local.get $acc) (i32.const 1)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (local.set $pc (i32.const 1)) (br $d))
      ;; segment 2
      (return (local.get $acc)))
    (unreachable))

  ;; forward returns x + 111 through forward jumps only, one of them by the
  ;; br_table's default (an index out of its range): no check at all.
  (func $forward (export "forward") (param $x i32) (result i32)
    (local $pc i32)
    (loop $d
      (block $s3 (block $s2 (block $s1 (block $s0
        (br_table $s0 $s1 $s3 $s2 (local.get $pc)))
        ;; segment 0
        (local.set $x (i32.add (local.get $x) (i32.const 1)))
        (local.set $pc (i32.const 99)) (br $d)) ;; the default: segment 2
      ;; segment 1 (never run)
      (unreachable))
      ;; segment 2
      (local.set $x (i32.add (local.get $x) (i32.const 10)))
      (local.set $pc (i32.const 2)) (br $d)) ;; segment 3
    ;; segment 3
    (local.set $x (i32.add (local.get $x) (i32.const 100))))
    (local.get $x))

  ;; spin_back jumps from segment 1 back to segment 0, forever.
  (func $spin_back (export "spin_back")
    (local $pc i32)
    (loop $d
      (block $s1 (block $s0
        (br_table $s0 $s1 (local.get $pc)))
        (local.set $pc (i32.const 1)) (br $d))
      (local.set $pc (i32.const 0)) (br $d)))

  ;; spin_self jumps from segment 0 to itself, forever.
  (func $spin_self (export "spin_self")
    (local $pc i32)
    (loop $d
      (block $s1 (block $s0
        (br_table $s0 $s1 (local.get $pc)))
        (local.set $pc (i32.const 0)) (br $d))))

  ;; spin_default jumps back through the br_table's default.
  (func $spin_default (export "spin_default")
    (local $pc i32)
    (loop $d
      (block $s1 (block $s0
        (br_table $s1 $s0 (local.get $pc)))
        (local.set $pc (i32.const 0)) (br $d)) ;; to segment 1
      (local.set $pc (i32.const 7)) (br $d))) ;; the default: segment 0

  ;; spin_br_if branches back with br_if.
  (func $spin_br_if (export "spin_br_if")
    (local $pc i32)
    (loop $d
      (block $s1 (block $s0
        (br_table $s0 $s1 (local.get $pc)))
        (local.set $pc (i32.const 1)))
      (local.set $pc (i32.const 0))
      (br_if $d (i32.const 1))))

  ;; spin_computed jumps with a target it computes: not a constant.
  (func $spin_computed (export "spin_computed") (param $zero i32)
    (local $pc i32)
    (loop $d
      (block $s1 (block $s0
        (br_table $s0 $s1 (local.get $pc)))
        (local.set $pc (i32.const 1)) (br $d))
      (local.set $pc (local.get $zero)) (br $d)))

  ;; spin_other_local sets a constant into another local than the one the
  ;; br_table reads, which stays 0.
  (func $spin_other_local (export "spin_other_local")
    (local $pc i32) (local $other i32)
    (loop $d
      (block $s1 (block $s0
        (br_table $s0 $s1 (local.get $pc)))
        (local.set $other (i32.const 1)) (br $d))))

  ;; spin_br_table branches back with a br_table inside a segment.
  (func $spin_br_table (export "spin_br_table") (param $i i32)
    (local $pc i32)
    (loop $d
      (block $s1 (block $s0
        (br_table $s0 $s1 (local.get $pc)))
        (local.set $pc (i32.const 1)) (br $d))
      (block $out
        (br_table $d $out (local.get $i)))))

  ;; spin_nested jumps from an inner dispatch loop, in segment 0 of the
  ;; outer one, to the outer loop's segment 0: backwards for the outer
  ;; loop. The inner loop's own jumps are forward.
  (func $spin_nested (export "spin_nested")
    (local $pc i32) (local $pc2 i32)
    (loop $outer
      (block $o1 (block $o0
        (br_table $o0 $o1 (local.get $pc)))
        ;; outer segment 0
        (local.set $pc2 (i32.const 0))
        (loop $inner
          (block $i1 (block $i0
            (br_table $i0 $i1 (local.get $pc2)))
            (local.set $pc2 (i32.const 1)) (br $inner))
          (local.set $pc (i32.const 0)) (br $outer)))
      (unreachable)))

  ;; spin_nested_exit leaves an inner dispatch loop through its br_table,
  ;; whose default is the outer dispatch loop: an edge back to it.
  (func $spin_nested_exit (export "spin_nested_exit")
    (local $pc i32) (local $pc2 i32)
    (loop $outer
      (block $o1 (block $o0
        (br_table $o0 $o1 (local.get $pc)))
        ;; outer segment 0
        (local.set $pc2 (i32.const 1))
        (loop $inner
          (block $i0
            (br_table $i0 $outer (local.get $pc2)))
          (unreachable)))
      (unreachable)))

  ;; spin_in_if jumps back from inside an if inside a block of segment 1.
  (func $spin_in_if (export "spin_in_if") (param $one i32)
    (local $pc i32)
    (loop $d
      (block $s1 (block $s0
        (br_table $s0 $s1 (local.get $pc)))
        (local.set $pc (i32.const 1)) (br $d))
      (block $b
        (if (local.get $one)
          (then (local.set $pc (i32.const 0)) (br $d))))))

  ;; spin_calls is a dispatch loop whose segment calls a leaf, and whose
  ;; jump back is the only edge: the entry check and the jump's.
  (func $leaf (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func $spin_calls (export "spin_calls") (param $x i32) (result i32)
    (local $pc i32)
    (loop $d
      (block $s1 (block $s0
        (br_table $s0 $s1 (local.get $pc)))
        (local.set $x (call $leaf (local.get $x)))
        (local.set $pc (i32.const 1)) (br $d))
      (local.set $pc (i32.const 0)) (br $d))
    (unreachable)))
