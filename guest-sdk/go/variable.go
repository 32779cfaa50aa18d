package endpoints

import (
	"errors"
	"fmt"

	"github.com/wasmendpoints/endpoints/abi"
)

// Variable returns the value of the app's variable name: one that
// endpoints.json declares under "variables", which the host resolved from
// its environment, a file or a default when the app loaded.
//
//	url, err := endpoints.Variable("webhookUrl")
//	if err != nil {
//		return err
//	}
//	if url != "" { // an optional variable without a value is ""
//		...
//	}
//
// A name the app does not declare is an error wrapping [abi.ErrNotFound];
// outside a request (in init, where the host gives no variables, since a
// reload may change them) one wrapping [abi.ErrState].
//
// # Notes
//
//   - Secret variables read the same way. The host never writes their
//     values anywhere; a handler that logs one, or puts one in an answer,
//     gives it away.
//   - In native tests, endpointstest.SetVariable gives the values.
func Variable(name string) (string, error) {
	buf := make([]byte, 256)
	for range 3 {
		n := variableGet(name, buf)
		if n < 0 {
			err := check(abi.ImportVariableGet, n)
			if errors.Is(err, abi.ErrNotFound) {
				return "", fmt.Errorf("endpoints: Variable %q: the app declares no such variable in endpoints.json \"variables\": %w", name, err)
			}
			return "", fmt.Errorf("endpoints: Variable %q: %w", name, err)
		}
		if int(n) <= len(buf) {
			return string(buf[:n]), nil
		}
		buf = make([]byte, n)
	}
	return "", fmt.Errorf("endpoints: Variable %q: host function %s: the value's size kept changing", name, abi.ImportVariableGet)
}
