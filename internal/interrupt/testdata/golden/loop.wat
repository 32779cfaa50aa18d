;; loop.wat instrumented with period 10000, printed by wasm2wat.
;; Refresh: go test ./internal/interrupt -run Golden -update
(module
  (type (;0;) (func (param i32) (result i32)))
  (type (;1;) (func))
  (type (;2;) (func (result i32)))
  (import "endpoints_interrupt" "check" (func (;0;) (type 2)))
  (func (;1;) (type 0) (param i32) (result i32)
    (local i32)
    block  ;; label = @1
      loop  ;; label = @2
        global.get 0
        i32.const 1
        i32.sub
        global.set 0
        global.get 0
        i32.const 1
        i32.lt_s
        if  ;; label = @3
          call 0
          global.set 0
        end
        local.get 0
        i32.eqz
        br_if 1 (;@1;)
        local.get 1
        local.get 0
        i32.add
        local.set 1
        local.get 0
        i32.const 1
        i32.sub
        local.set 0
        br 0 (;@2;)
      end
    end
    local.get 1)
  (func (;2;) (type 0) (param i32) (result i32)
    local.get 0
    i32.const 1
    i32.add)
  (func (;3;) (type 0) (param i32) (result i32)
    (local i32)
    loop  ;; label = @1
      global.get 0
      i32.const 1
      i32.sub
      global.set 0
      global.get 0
      i32.const 1
      i32.lt_s
      if  ;; label = @2
        call 0
        global.set 0
      end
      local.get 1
      call 2
      local.set 1
      local.get 0
      i32.const 1
      i32.sub
      local.set 0
      local.get 0
      br_if 0 (;@1;)
    end
    local.get 1)
  (func (;4;) (type 1)
    loop  ;; label = @1
      global.get 0
      i32.const 1
      i32.sub
      global.set 0
      global.get 0
      i32.const 1
      i32.lt_s
      if  ;; label = @2
        call 0
        global.set 0
      end
      br 0 (;@1;)
    end)
  (global (;0;) (mut i32) (i32.const 10000))
  (export "sum" (func 1))
  (export "calls" (func 3))
  (export "spin" (func 4)))
