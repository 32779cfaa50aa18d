;; Loops made of tail calls: no loop opcode and no stack growth.
;; Built by the tests: wat2wasm --enable-tail-call tailcall.wat
(module
  (import "env" "twice" (func $twice (param i32) (result i32)))
  (type $unary (func (param i32) (result i32)))
  (table 1 funcref)
  (elem (i32.const 0) $spin_indirect)

  ;; count returns acc + 3n after n tail calls.
  (func $count (export "count") (param $n i32) (param $acc i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (local.get $acc))
      (else
        (return_call $count
          (i32.sub (local.get $n) (i32.const 1))
          (i32.add (local.get $acc) (i32.const 3))))))

  ;; ping and pong tail-call each other forever.
  (func $ping (export "ping") (param $n i32) (result i32)
    (return_call $pong (i32.add (local.get $n) (i32.const 1))))
  (func $pong (param $n i32) (result i32)
    (return_call $ping (local.get $n)))

  ;; spin_indirect tail-calls itself through the table forever.
  (func $spin_indirect (export "spin_indirect") (param $n i32) (result i32)
    (return_call_indirect (type $unary) (local.get $n) (i32.const 0))))
