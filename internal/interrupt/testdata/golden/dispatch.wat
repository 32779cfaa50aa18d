;; dispatch.wat instrumented with period 10000, printed by wasm2wat.
;; Refresh: go test ./internal/interrupt -run Golden -update
(module
  (type (;0;) (func (param i32) (result i32)))
  (type (;1;) (func))
  (type (;2;) (func (param i32)))
  (type (;3;) (func (result i32)))
  (import "endpoints_interrupt" "check" (func (;0;) (type 3)))
  (func (;1;) (type 0) (param i32) (result i32)
    (local i32 i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          block  ;; label = @4
            local.get 1
            br_table 0 (;@4;) 1 (;@3;) 2 (;@2;)
          end
          i32.const 0
          local.set 2
          i32.const 1
          local.set 1
          br 2 (;@1;)
        end
        local.get 0
        i32.eqz
        if  ;; label = @3
          i32.const 2
          local.set 1
          br 2 (;@1;)
        end
        local.get 2
        i32.const 1
        i32.add
        local.set 2
        local.get 0
        i32.const 1
        i32.sub
        local.set 0
        i32.const 1
        local.set 1
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
        br 1 (;@1;)
      end
      local.get 2
      return
    end
    unreachable)
  (func (;2;) (type 0) (param i32) (result i32)
    (local i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          block  ;; label = @4
            block  ;; label = @5
              local.get 1
              br_table 0 (;@5;) 1 (;@4;) 3 (;@2;) 2 (;@3;)
            end
            local.get 0
            i32.const 1
            i32.add
            local.set 0
            i32.const 99
            local.set 1
            br 3 (;@1;)
          end
          unreachable
        end
        local.get 0
        i32.const 10
        i32.add
        local.set 0
        i32.const 2
        local.set 1
        br 1 (;@1;)
      end
      local.get 0
      i32.const 100
      i32.add
      local.set 0
    end
    local.get 0)
  (func (;3;) (type 1)
    (local i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 0
          br_table 0 (;@3;) 1 (;@2;)
        end
        i32.const 1
        local.set 0
        br 1 (;@1;)
      end
      i32.const 0
      local.set 0
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
  (func (;4;) (type 1)
    (local i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 0
          br_table 0 (;@3;) 1 (;@2;)
        end
        i32.const 0
        local.set 0
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
        br 1 (;@1;)
      end
    end)
  (func (;5;) (type 1)
    (local i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 0
          br_table 1 (;@2;) 0 (;@3;)
        end
        i32.const 0
        local.set 0
        br 1 (;@1;)
      end
      i32.const 7
      local.set 0
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
  (func (;6;) (type 1)
    (local i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 0
          br_table 0 (;@3;) 1 (;@2;)
        end
        i32.const 1
        local.set 0
      end
      i32.const 0
      local.set 0
      i32.const 1
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
      br_if 0 (;@1;)
    end)
  (func (;7;) (type 2) (param i32)
    (local i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 1
          br_table 0 (;@3;) 1 (;@2;)
        end
        i32.const 1
        local.set 1
        br 1 (;@1;)
      end
      local.get 0
      local.set 1
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
  (func (;8;) (type 1)
    (local i32 i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 0
          br_table 0 (;@3;) 1 (;@2;)
        end
        i32.const 1
        local.set 1
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
        br 1 (;@1;)
      end
    end)
  (func (;9;) (type 2) (param i32)
    (local i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 1
          br_table 0 (;@3;) 1 (;@2;)
        end
        i32.const 1
        local.set 1
        br 1 (;@1;)
      end
      block  ;; label = @2
        local.get 0
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
        br_table 1 (;@1;) 0 (;@2;)
      end
    end)
  (func (;10;) (type 1)
    (local i32 i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 0
          br_table 0 (;@3;) 1 (;@2;)
        end
        i32.const 0
        local.set 1
        loop  ;; label = @3
          block  ;; label = @4
            block  ;; label = @5
              local.get 1
              br_table 0 (;@5;) 1 (;@4;)
            end
            i32.const 1
            local.set 1
            br 1 (;@3;)
          end
          i32.const 0
          local.set 0
          global.get 0
          i32.const 1
          i32.sub
          global.set 0
          global.get 0
          i32.const 1
          i32.lt_s
          if  ;; label = @4
            call 0
            global.set 0
          end
          br 2 (;@1;)
        end
      end
      unreachable
    end)
  (func (;11;) (type 1)
    (local i32 i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 0
          br_table 0 (;@3;) 1 (;@2;)
        end
        i32.const 1
        local.set 1
        loop  ;; label = @3
          block  ;; label = @4
            local.get 1
            global.get 0
            i32.const 1
            i32.sub
            global.set 0
            global.get 0
            i32.const 1
            i32.lt_s
            if  ;; label = @5
              call 0
              global.set 0
            end
            br_table 0 (;@4;) 3 (;@1;)
          end
          unreachable
        end
      end
      unreachable
    end)
  (func (;12;) (type 2) (param i32)
    (local i32)
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 1
          br_table 0 (;@3;) 1 (;@2;)
        end
        i32.const 1
        local.set 1
        br 1 (;@1;)
      end
      block  ;; label = @2
        local.get 0
        if  ;; label = @3
          i32.const 0
          local.set 1
          global.get 0
          i32.const 1
          i32.sub
          global.set 0
          global.get 0
          i32.const 1
          i32.lt_s
          if  ;; label = @4
            call 0
            global.set 0
          end
          br 2 (;@1;)
        end
      end
    end)
  (func (;13;) (type 0) (param i32) (result i32)
    local.get 0
    i32.const 1
    i32.add)
  (func (;14;) (type 0) (param i32) (result i32)
    (local i32)
    global.get 0
    i32.const 1
    i32.sub
    global.set 0
    global.get 0
    i32.const 1
    i32.lt_s
    if  ;; label = @1
      call 0
      global.set 0
    end
    loop  ;; label = @1
      block  ;; label = @2
        block  ;; label = @3
          local.get 1
          br_table 0 (;@3;) 1 (;@2;)
        end
        local.get 0
        call 13
        local.set 0
        i32.const 1
        local.set 1
        br 1 (;@1;)
      end
      i32.const 0
      local.set 1
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
    end
    unreachable)
  (global (;0;) (mut i32) (i32.const 10000))
  (export "count" (func 1))
  (export "forward" (func 2))
  (export "spin_back" (func 3))
  (export "spin_self" (func 4))
  (export "spin_default" (func 5))
  (export "spin_br_if" (func 6))
  (export "spin_computed" (func 7))
  (export "spin_other_local" (func 8))
  (export "spin_br_table" (func 9))
  (export "spin_nested" (func 10))
  (export "spin_nested_exit" (func 11))
  (export "spin_in_if" (func 12))
  (export "spin_calls" (func 14)))
