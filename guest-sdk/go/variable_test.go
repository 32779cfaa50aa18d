//go:build !wasip1

package endpoints

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

func TestVariable(t *testing.T) {
	long := strings.Repeat("v", 1000) // past the first 256-byte buffer
	tests := []struct {
		name, variable string
		fail           map[string]abi.Errno
		want           string
		wantErr        error
		wantMsg        string
	}{
		{name: "a declared variable", variable: "region", want: "eu"},
		{name: "a value longer than the first buffer", variable: "long", want: long},
		{name: "an optional variable without a value", variable: "empty", want: ""},
		{name: "an undeclared variable", variable: "regoin", wantErr: abi.ErrNotFound,
			wantMsg: `endpoints: Variable "regoin": the app declares no such variable in endpoints.json "variables": host function variable_get: not found (-1)`},
		{name: "outside a request", variable: "region", fail: map[string]abi.Errno{abi.ImportVariableGet: abi.ErrState}, wantErr: abi.ErrState,
			wantMsg: `endpoints: Variable "region": host function variable_get: not available outside a request (-6)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kvFake(t, tt.fail)
			setVariable("region", "eu", true)
			setVariable("long", long, true)
			setVariable("empty", "", true)
			got, err := Variable(tt.variable)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || err.Error() != tt.wantMsg {
					t.Fatalf("Variable(%q) error = %v\nwant %s", tt.variable, err, tt.wantMsg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Variable(%q) = %.20q, %v; want %.20q", tt.variable, got, err, tt.want)
			}
		})
	}
}
