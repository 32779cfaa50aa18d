;; Function and parameter names, exported under other names, so that the
;; name section can be checked against the functions after the rewrite.
;; Built by the tests: wat2wasm --debug-names names.wat
(module
  (import "env" "twice" (func $twice (param $x i32) (result i32)))
  (func $add (export "e_add") (param $lhs i32) (param $rhs i32) (result i32)
    (i32.add (local.get $lhs) (local.get $rhs)))
  (func $sub (export "e_sub") (param $minuend i32) (param $subtrahend i32) (result i32)
    (i32.sub (local.get $minuend) (local.get $subtrahend)))
  (func $quadruple (export "e_quadruple") (param $value i32) (result i32)
    (call $twice (call $twice (local.get $value)))))
