;; tailcall.wat instrumented with period 10000, printed by wasm2wat.
;; Refresh: go test ./internal/interrupt -run Golden -update
(module
  (type (;0;) (func (param i32) (result i32)))
  (type (;1;) (func (param i32 i32) (result i32)))
  (type (;2;) (func (result i32)))
  (import "env" "twice" (func (;0;) (type 0)))
  (import "endpoints_interrupt" "check" (func (;1;) (type 2)))
  (func (;2;) (type 1) (param i32 i32) (result i32)
    global.get 0
    i32.const 1
    i32.sub
    global.set 0
    global.get 0
    i32.const 1
    i32.lt_s
    if  ;; label = @1
      call 1
      global.set 0
    end
    local.get 0
    i32.eqz
    if (result i32)  ;; label = @1
      local.get 1
    else
      local.get 0
      i32.const 1
      i32.sub
      local.get 1
      i32.const 3
      i32.add
      return_call 2
    end)
  (func (;3;) (type 0) (param i32) (result i32)
    global.get 0
    i32.const 1
    i32.sub
    global.set 0
    global.get 0
    i32.const 1
    i32.lt_s
    if  ;; label = @1
      call 1
      global.set 0
    end
    local.get 0
    i32.const 1
    i32.add
    return_call 4)
  (func (;4;) (type 0) (param i32) (result i32)
    global.get 0
    i32.const 1
    i32.sub
    global.set 0
    global.get 0
    i32.const 1
    i32.lt_s
    if  ;; label = @1
      call 1
      global.set 0
    end
    local.get 0
    return_call 3)
  (func (;5;) (type 0) (param i32) (result i32)
    global.get 0
    i32.const 1
    i32.sub
    global.set 0
    global.get 0
    i32.const 1
    i32.lt_s
    if  ;; label = @1
      call 1
      global.set 0
    end
    local.get 0
    i32.const 0
    return_call_indirect (type 0))
  (table (;0;) 1 funcref)
  (global (;0;) (mut i32) (i32.const 10000))
  (export "count" (func 2))
  (export "ping" (func 3))
  (export "spin_indirect" (func 5))
  (elem (;0;) (i32.const 0) func 5))
