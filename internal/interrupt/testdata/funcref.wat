;; Function references in element segments of all eight encodings, in a
;; global's initialiser and in code. Each function returns its own number,
;; so a reference left unrenumbered after the rewrite calls its neighbour.
;; The ref.null entries keep wat2wasm from encoding segments 4, 6 and 7 as
;; 0, 2 and 3.
;; Built by the tests: wat2wasm funcref.wat
(module
  (import "env" "twice" (func $twice (param i32) (result i32)))
  (type $ret (func (result i32)))
  (table $t 8 funcref)
  (table $u 4 funcref)

  (func $one (result i32) (i32.const 1))
  (func $two (result i32) (i32.const 2))
  (func $three (result i32) (i32.const 3))
  (func $four (result i32) (i32.const 4))
  (func $five (result i32) (i32.const 5))
  (func $six (result i32) (i32.const 6))
  (func $seven (result i32) (i32.const 7))
  (func $eight (result i32) (i32.const 8))

  (global $g funcref (ref.func $seven))

  (elem (i32.const 0) $one)                                  ;; 0: active, table 0, indices
  (elem $p1 func $two)                                       ;; 1: passive, indices
  (elem (table $u) (i32.const 0) func $three)                ;; 2: active, table u, indices
  (elem declare func $four)                                  ;; 3: declarative, indices
  (elem (i32.const 1) funcref (ref.func $five) (ref.null func)) ;; 4: active, table 0, expressions
  (elem $p5 funcref (ref.func $six) (ref.null func))         ;; 5: passive, expressions
  (elem (table $u) (i32.const 1) funcref (ref.func $eight) (ref.null func)) ;; 6: active, table u, expressions
  (elem declare funcref (ref.func $seven) (ref.null func))   ;; 7: declarative, expressions

  ;; call and call_u call entry i of table t or u.
  (func (export "call") (param $i i32) (result i32)
    (call_indirect $t (type $ret) (local.get $i)))
  (func (export "call_u") (param $i i32) (result i32)
    (call_indirect $u (type $ret) (local.get $i)))

  ;; init copies the passive segments to t[2] and t[3], then drops them.
  (func (export "init")
    (table.init $t $p1 (i32.const 2) (i32.const 0) (i32.const 1))
    (table.init $t $p5 (i32.const 3) (i32.const 0) (i32.const 1))
    (elem.drop $p1)
    (elem.drop $p5))

  ;; via_global calls the function in the global through t[4].
  (func (export "via_global") (result i32)
    (table.set $t (i32.const 4) (global.get $g))
    (call_indirect $t (type $ret) (i32.const 4)))

  ;; via_ref calls $four, referenced in code, through t[5], and doubles it
  ;; with the import.
  (func (export "via_ref") (result i32)
    (table.set $t (i32.const 5) (ref.func $four))
    (call $twice (call_indirect $t (type $ret) (i32.const 5)))))
