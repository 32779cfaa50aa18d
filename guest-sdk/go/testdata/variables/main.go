//go:build wasip1

// Command variables is the guest of the host's variable tests
// (host/variables_test.go): it answers the value of the variable its
// query names, or what reading it in init gave. With fail=true it reads
// the variable, then fails with an error that does not quote it, so a
// test can check that the host adds the value to no failure it reports.
// The tests build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o variables.wasm ./testdata/variables/main.go
package main

import (
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	Name string `query:"name"`
	Init bool   `query:"init" doc:"Answer what reading the variable in init gave."`
	Fail bool   `query:"fail" doc:"Read the variable, then fail."`
}

// Result is the variable's value, or the error reading it.
type Result struct {
	Value string `json:"value"`
	Error string `json:"error,omitempty"`
}

// initErr is what Variable answered in init, outside any request.
var initErr error

func init() {
	_, initErr = endpoints.Variable("region")

	endpoints.HandleFunc(endpoints.Operation{Summary: "Variables"}, func(in *input) (Result, error) {
		if in.Init {
			return Result{Error: initErr.Error()}, nil
		}
		v, err := endpoints.Variable(in.Name)
		switch {
		case in.Fail && len(v) > 0:
			panic("failing on purpose after reading the variable")
		case err != nil:
			return Result{Error: err.Error()}, nil
		}
		return Result{Value: v}, nil
	})
}

func main() {}
