//go:build wasip1

// Command kv is the key-value guest of TestWasmGuestKV: the query's op
// selects a KV method, run on the query's key, value, delta and ttl. The
// test builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o kv.wasm ./testdata/kv/main.go
package main

import (
	"errors"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type kvInput struct {
	Op    string `query:"op" enum:"get,set,delete,incr,keys,init"`
	Key   string `query:"key"`
	Value string `query:"value"`
	Delta int64  `query:"delta"`
	TTL   int64  `query:"ttl" doc:"In milliseconds."`
}

// Result is the answer: what the method returned.
type Result struct {
	Found bool     `json:"found,omitempty"`
	Value string   `json:"value,omitempty"`
	N     int64    `json:"n,omitempty"`
	Keys  []string `json:"keys,omitempty"`
}

// initErr is what KV answers during init, outside any request.
var initErr error

func init() {
	_, _, initErr = endpoints.KV.Get("boot")

	endpoints.HandleFunc(endpoints.Operation{Summary: "Key-value"}, func(in *kvInput) (Result, error) {
		kv := endpoints.KV
		switch in.Op {
		case "get":
			v, ok, err := kv.Get(in.Key)
			return Result{Found: ok, Value: string(v)}, err
		case "set":
			return Result{}, kv.Set(in.Key, []byte(in.Value), time.Duration(in.TTL)*time.Millisecond)
		case "delete":
			ok, err := kv.Delete(in.Key)
			return Result{Found: ok}, err
		case "incr":
			n, err := kv.Incr(in.Key, in.Delta)
			return Result{N: n}, err
		case "keys":
			var r Result
			for key, err := range kv.Keys(in.Key) {
				if err != nil {
					return Result{}, err
				}
				r.Keys = append(r.Keys, key)
			}
			return r, nil
		case "init":
			return Result{Found: errors.Is(initErr, abi.ErrState), Value: initErr.Error()}, nil
		}
		return Result{}, endpoints.Error(400, nil)
	})
}

func main() {}
