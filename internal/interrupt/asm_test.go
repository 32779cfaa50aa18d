package interrupt

import (
	"context"
	"fmt"
	"github.com/wasmendpoints/endpoints/internal/leb128"
	"slices"
	"testing"

	"github.com/tetratelabs/wazero"
)

// A tiny assembler for modules that wat2wasm 1.0.32 cannot write (the
// current encodings of exception handling and typed function references)
// and for malformed modules. Each instruction is commented with its text.

// mod returns a module: the header and the sections.
func mod(sections ...[]byte) []byte {
	return slices.Concat(append([]byte("\x00asm"), 1, 0, 0, 0), slices.Concat(sections...))
}

// sec returns a section: its id, size and body.
func sec(id byte, body ...[]byte) []byte {
	b := slices.Concat(body...)
	return slices.Concat([]byte{id}, leb128.AppendU32(nil, uint32(len(b))), b)
}

// vec returns a vector: its count and its items.
func vec(items ...[]byte) []byte {
	return slices.Concat(leb128.AppendU32(nil, uint32(len(items))), slices.Concat(items...))
}

// fnBody returns a function body: its size, then locals and code.
func fnBody(locals []byte, code ...byte) []byte {
	b := slices.Concat(locals, code)
	return slices.Concat(leb128.AppendU32(nil, uint32(len(b))), b)
}

// str returns a name: its length and bytes.
func str(s string) []byte { return appendName(nil, s) }

// bs is shorthand for a byte slice.
func bs(b ...byte) []byte { return b }

// noLocals declares no locals.
var noLocals = bs(0x00)

// exceptions is a module using try_table, catch, catch_all_ref and
// throw_ref around loops:
//
//	(module
//	  (type (func (param i32)))                      ;; 0: the tag's type
//	  (type (func (param i32) (result i32)))         ;; 1
//	  (tag $e (type 0))
//	  (func (export "catch_loop") (type 1)           ;; loops n times, then throws 42 and catches it
//	    (block (result i32)
//	      (try_table (catch $e 0)
//	        (loop (br_if 0 (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))
//	        (throw $e (i32.const 42)))
//	      (i32.const 0)))
//	  (func (export "rethrow") (type 1)              ;; throws n, catches it as exnref, throws it again
//	    (block (result i32)
//	      (try_table (catch $e 0)
//	        (block (result exnref)
//	          (try_table (catch_all_ref 0) (throw $e (local.get 0)))
//	          (unreachable))
//	        (throw_ref))
//	      (unreachable))))
var exceptions = mod(
	sec(secType, vec(bs(0x60, 1, 0x7f, 0), bs(0x60, 1, 0x7f, 1, 0x7f))),
	sec(secFunction, vec(bs(1), bs(1))),
	sec(secTag, vec(bs(0x00, 0))),
	sec(secExport, vec(slices.Concat(str("catch_loop"), bs(0, 0)), slices.Concat(str("rethrow"), bs(0, 1)))),
	sec(secCode, vec(
		fnBody(noLocals,
			0x02, 0x7f, // block (result i32)
			0x1f, 0x40, 1, 0x00, 0, 0, // try_table (catch $e 0)
			0x03, 0x40, // loop
			0x20, 0, 0x41, 1, 0x6b, 0x22, 0, // local.tee 0 (i32.sub (local.get 0) (i32.const 1))
			0x0d, 0, // br_if 0
			0x0b,              // end loop
			0x41, 42, 0x08, 0, // throw $e (i32.const 42)
			0x0b,    // end try_table
			0x41, 0, // i32.const 0
			0x0b, // end block
			0x0b),
		fnBody(noLocals,
			0x02, 0x7f, // block (result i32)
			0x1f, 0x40, 1, 0x00, 0, 0, // try_table (catch $e 0)
			0x02, 0x69, // block (result exnref)
			0x1f, 0x40, 1, 0x03, 0, // try_table (catch_all_ref 0)
			0x20, 0, 0x08, 0, // throw $e (local.get 0)
			0x0b, // end try_table
			0x00, // unreachable
			0x0b, // end block
			0x0a, // throw_ref
			0x0b, // end try_table
			0x00, // unreachable
			0x0b, // end block
			0x0b),
	)),
)

// funcRefs is a module using typed function references and tail calls
// through them, after an import so that every defined function moves:
//
//	(module
//	  (type $t (func (param i32) (result i32)))
//	  (import "env" "twice" (func (type $t)))              ;; 0
//	  (func $double (type $t) (i32.mul (local.get 0) (i32.const 2)))  ;; 1
//	  (func (export "apply") (type $t) (local (ref null $t))          ;; 2: double(x) through call_ref
//	    (local.set 1 (ref.func $double))
//	    (call_ref $t (local.get 0) (ref.as_non_null (local.get 1))))
//	  (func (export "null_branch") (type $t)                          ;; 3: 7 when a null reference branches
//	    (block (br_on_null 0 (ref.null $t)) (drop) (return (i32.const 1)))
//	    (i32.const 7))
//	  (func (export "spin_ref") (type $t)                             ;; 4: tail-calls itself forever
//	    (return_call_ref $t (local.get 0) (ref.func 4)))
//	  (elem declare func $double 4))
var funcRefs = mod(
	sec(secType, vec(bs(0x60, 1, 0x7f, 1, 0x7f))),
	sec(secImport, vec(slices.Concat(str("env"), str("twice"), bs(0x00, 0)))),
	sec(secFunction, vec(bs(0), bs(0), bs(0), bs(0))),
	sec(secExport, vec(
		slices.Concat(str("apply"), bs(0, 2)),
		slices.Concat(str("null_branch"), bs(0, 3)),
		slices.Concat(str("spin_ref"), bs(0, 4)),
	)),
	sec(secElement, vec(bs(0x03, 0x00, 2, 1, 4))), // declarative, funcref, $double, 4
	sec(secCode, vec(
		fnBody(noLocals, 0x20, 0, 0x41, 2, 0x6c, 0x0b), // i32.mul (local.get 0) (i32.const 2)
		fnBody(bs(1, 1, 0x63, 0), // (local (ref null $t))
			0xd2, 1, 0x21, 1, // local.set 1 (ref.func $double)
			0x20, 0, 0x20, 1, 0xd4, // local.get 0, ref.as_non_null (local.get 1)
			0x14, 0, // call_ref $t
			0x0b),
		fnBody(noLocals,
			0x02, 0x40, // block
			0xd0, 0, // ref.null $t
			0xd5, 0, // br_on_null 0
			0x1a,          // drop
			0x41, 1, 0x0f, // return (i32.const 1)
			0x0b,    // end
			0x41, 7, // i32.const 7
			0x0b),
		fnBody(noLocals,
			0x20, 0, 0xd2, 4, // local.get 0, ref.func 4
			0x15, 0, // return_call_ref $t
			0x0b),
	)),
)

// dispatchCatch is a module with dispatch loops (dispatch.go) that a
// try_table's catch branches back to, which the rewrite checks before the
// try_table:
//
//	(module
//	  (type (func))                                  ;; 0: the tag's and spin_catch's type
//	  (type (func (result i32)))                     ;; 1
//	  (tag $e (type 0))
//	  (func (export "spin_catch") (type 0) (local $pc i32)   ;; throws and catches back into segment 0, forever
//	    (loop $d
//	      (block $s1 (block $s0 (br_table $s0 $s1 (local.get $pc)))
//	        (try_table (catch_all $d) (throw $e))
//	        (unreachable))
//	      (unreachable)))
//	  (func (export "catch_once") (type 1) (local $pc i32)   ;; catches back into segment 1, which returns 7
//	    (loop $d
//	      (block $s1 (block $s0 (br_table $s0 $s1 (local.get $pc)))
//	        (local.set $pc (i32.const 1))
//	        (try_table (catch_all $d) (throw $e))
//	        (unreachable))
//	      (return (i32.const 7)))
//	    (unreachable)))
var dispatchCatch = mod(
	sec(secType, vec(bs(0x60, 0, 0), bs(0x60, 0, 1, 0x7f))),
	sec(secFunction, vec(bs(0), bs(1))),
	sec(secTag, vec(bs(0x00, 0))),
	sec(secExport, vec(slices.Concat(str("spin_catch"), bs(0, 0)), slices.Concat(str("catch_once"), bs(0, 1)))),
	sec(secCode, vec(
		fnBody(bs(1, 1, 0x7f), // (local i32)
			0x03, 0x40, // loop $d
			0x02, 0x40, 0x02, 0x40, // block $s1, block $s0
			0x20, 0, 0x0e, 1, 0, 1, // br_table $s0 $s1 (local.get $pc)
			0x0b,                   // end $s0
			0x1f, 0x40, 1, 0x02, 1, // try_table (catch_all $d)
			0x08, 0, // throw $e
			0x0b, // end try_table
			0x00, // unreachable
			0x0b, // end $s1
			0x00, // unreachable
			0x0b, // end loop
			0x0b),
		fnBody(bs(1, 1, 0x7f), // (local i32)
			0x03, 0x40, // loop $d
			0x02, 0x40, 0x02, 0x40, // block $s1, block $s0
			0x20, 0, 0x0e, 1, 0, 1, // br_table $s0 $s1 (local.get $pc)
			0x0b,             // end $s0
			0x41, 1, 0x21, 0, // local.set $pc (i32.const 1)
			0x1f, 0x40, 1, 0x02, 1, // try_table (catch_all $d)
			0x08, 0, // throw $e
			0x0b,          // end try_table
			0x00,          // unreachable
			0x0b,          // end $s1
			0x41, 7, 0x0f, // return (i32.const 7)
			0x0b, // end loop
			0x00, // unreachable
			0x0b),
	)),
)

func TestInstrumentHandAssembled(t *testing.T) {
	tests := []struct {
		name   string
		wasm   []byte
		calls  []call
		runner []interruptible
		after  call
	}{
		{"exception handling", exceptions, []call{
			{"catch_loop", []uint64{5}, []uint64{42}},
			{"rethrow", []uint64{9}, []uint64{9}},
		}, []interruptible{
			{name: "loop in try_table stopped", fn: "catch_loop", args: []uint64{0}, stopped: true},
		}, call{"rethrow", []uint64{3}, []uint64{3}}},
		{"a catch back to a dispatch loop", dispatchCatch, []call{
			{"catch_once", nil, []uint64{7}},
		}, []interruptible{
			{name: "catching back forever, stopped", fn: "spin_catch", stopped: true},
		}, call{"catch_once", nil, []uint64{7}}},
		{"typed function references", funcRefs, []call{
			{"apply", []uint64{21}, []uint64{42}},
			{"null_branch", []uint64{0}, []uint64{7}},
		}, []interruptible{
			{name: "return_call_ref loop at its deadline", fn: "spin_ref", args: []uint64{0}},
		}, call{"apply", []uint64{4}, []uint64{8}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newRuntime(t, DefaultPeriod)
			t.Run("original", func(t *testing.T) {
				_, m := instantiate(t, rt, tt.wasm)
				run(t, m, tt.calls)
			})
			out := instrument(t, tt.wasm, DefaultPeriod)
			compiled, m := instantiate(t, rt, out)
			t.Run("instrumented", func(t *testing.T) { run(t, m, tt.calls) })
			expectInterrupted(t, rt, compiled, wazero.NewModuleConfig().WithName(""), tt.runner, tt.after)
		})
	}
}

// compiles compiles wasm in rt. A panic of wazero is returned as an
// error: wazero v1.12.0 panics on some malformed modules when typed
// function references are enabled (the seed
// testdata/fuzz/FuzzInstrument/054e213b9311cf94 is one).
func compiles(rt wazero.Runtime, wasm []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("wazero panicked: %v", r)
		}
	}()
	ctx := context.Background()
	c, err := rt.CompileModule(ctx, wasm)
	if err == nil {
		c.Close(ctx)
	}
	return err
}
