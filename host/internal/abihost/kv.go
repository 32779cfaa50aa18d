package abihost

import (
	"context"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/storage"
)

// kvCall is the call a kv_* function serves and its store, or a nil call
// outside a request (the store is the app's, in its namespace).
func kvCall(ctx context.Context) (Call, storage.Store, string) {
	c := From(ctx)
	if c == nil || c.Loading() {
		return nil, nil, ""
	}
	store, namespace, ok := c.Store()
	if !ok {
		return nil, nil, ""
	}
	return c, store, namespace
}

// hostKVGet implements kv_get (abi/README.md §3).
func hostKVGet(ctx context.Context, mod api.Module, stack []uint64) {
	key := string(read(mod, abi.ImportKVGet, uint32(stack[0]), uint32(stack[1])))
	buf, bufLen := uint32(stack[2]), uint32(stack[3])
	c, store, namespace := kvCall(ctx)
	if c == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	done := c.StoreSpan("get")
	v, ok, err := store.Get(c, namespace, key)
	endSpan(done, err)
	switch {
	case err != nil:
		stack[0] = errno(c.StoreError("get", err))
	case !ok:
		read(mod, abi.ImportKVGet, buf, bufLen)
		stack[0] = errno(abi.ErrNotFound)
	default:
		stack[0] = deliver(mod, abi.ImportKVGet, v, buf, bufLen)
	}
}

// hostKVSet implements kv_set (abi/README.md §3).
func hostKVSet(ctx context.Context, mod api.Module, stack []uint64) {
	key := read(mod, abi.ImportKVSet, uint32(stack[0]), uint32(stack[1]))
	value := read(mod, abi.ImportKVSet, uint32(stack[2]), uint32(stack[3]))
	ttl := int32(stack[4])
	c, store, namespace := kvCall(ctx)
	switch {
	case c == nil:
		stack[0] = errno(abi.ErrState)
	case len(key) == 0 || len(key) > abi.KVMaxKey || len(value) > abi.KVMaxValue || ttl < 0:
		stack[0] = errno(abi.ErrInvalid)
	default:
		done := c.StoreSpan("set")
		err := store.Set(c, namespace, string(key), value, time.Duration(ttl)*time.Second)
		endSpan(done, err)
		if err != nil {
			stack[0] = errno(c.StoreError("set", err))
			return
		}
		stack[0] = 0
	}
}

// hostKVDelete implements kv_delete (abi/README.md §3).
func hostKVDelete(ctx context.Context, mod api.Module, stack []uint64) {
	key := string(read(mod, abi.ImportKVDelete, uint32(stack[0]), uint32(stack[1])))
	c, store, namespace := kvCall(ctx)
	if c == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	done := c.StoreSpan("delete")
	existed, err := store.Delete(c, namespace, key)
	endSpan(done, err)
	switch {
	case err != nil:
		stack[0] = errno(c.StoreError("delete", err))
	case !existed:
		stack[0] = errno(abi.ErrNotFound)
	default:
		stack[0] = 0
	}
}

// hostKVIncr implements kv_incr (abi/README.md §3).
func hostKVIncr(ctx context.Context, mod api.Module, stack []uint64) {
	key := read(mod, abi.ImportKVIncr, uint32(stack[0]), uint32(stack[1]))
	delta, out := int64(stack[2]), uint32(stack[3])
	read(mod, abi.ImportKVIncr, out, 8)
	c, store, namespace := kvCall(ctx)
	switch {
	case c == nil:
		stack[0] = errno(abi.ErrState)
	case len(key) == 0 || len(key) > abi.KVMaxKey:
		stack[0] = errno(abi.ErrInvalid)
	default:
		done := c.StoreSpan("incr")
		n, err := store.Incr(c, namespace, string(key), delta)
		endSpan(done, err)
		if err != nil {
			stack[0] = errno(c.StoreError("incr", err))
			return
		}
		mod.Memory().WriteUint64Le(out, uint64(n))
		stack[0] = 0
	}
}

// hostKVList implements kv_list (abi/README.md §3).
func hostKVList(ctx context.Context, mod api.Module, stack []uint64) {
	prefix := string(read(mod, abi.ImportKVList, uint32(stack[0]), uint32(stack[1])))
	after := string(read(mod, abi.ImportKVList, uint32(stack[2]), uint32(stack[3])))
	buf, bufLen := uint32(stack[4]), uint32(stack[5])
	c, store, namespace := kvCall(ctx)
	if c == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	done := c.StoreSpan("list")
	keys, err := store.List(c, namespace, prefix, after, abi.KVListLimit)
	endSpan(done, err)
	if err != nil {
		stack[0] = errno(c.StoreError("list", err))
		return
	}
	scratch := c.Scratch()
	b := (*scratch)[:0]
	b = append(b, '[')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = jsontext.AppendQuote(b, k)
	}
	b = append(b, ']')
	*scratch = b
	stack[0] = deliver(mod, abi.ImportKVList, b, buf, bufLen)
}

// endSpan ends a span StoreSpan began, if it did.
func endSpan(end func(error), err error) {
	if end != nil {
		end(err)
	}
}
