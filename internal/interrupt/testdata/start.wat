;; A start function that calls the import; another function would set a
;; different value if the start index were not renumbered.
;; Built by the tests: wat2wasm start.wat
(module
  (import "env" "twice" (func $twice (param i32) (result i32)))
  (global $v (mut i32) (i32.const 0))
  (func $init (global.set $v (call $twice (i32.const 21))))
  (func $other (global.set $v (i32.const -1)))
  (start $init)
  (func (export "value") (result i32) (global.get $v)))
