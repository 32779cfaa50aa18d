;; recursion.wat instrumented with period 10000, printed by wasm2wat.
;; Refresh: go test ./internal/interrupt -run Golden -update
(module
  (type (;0;) (func (param i32) (result i32)))
  (type (;1;) (func (result i32)))
  (import "env" "twice" (func (;0;) (type 0)))
  (import "endpoints_interrupt" "check" (func (;1;) (type 1)))
  (func (;2;) (type 0) (param i32) (result i32)
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
    i32.const 2
    i32.lt_u
    if (result i32)  ;; label = @1
      local.get 0
    else
      local.get 0
      i32.const 1
      i32.sub
      call 2
      local.get 0
      i32.const 2
      i32.sub
      call 2
      i32.add
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
    i32.eqz
    if (result i32)  ;; label = @1
      i32.const 1
    else
      local.get 0
      i32.const 1
      i32.sub
      call 4
    end)
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
    i32.eqz
    if (result i32)  ;; label = @1
      i32.const 0
    else
      local.get 0
      i32.const 1
      i32.sub
      call 3
    end)
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
    call 2
    call 0)
  (global (;0;) (mut i32) (i32.const 10000))
  (export "fib" (func 2))
  (export "is_even" (func 3))
  (export "is_odd" (func 4))
  (export "twice_fib" (func 5)))
