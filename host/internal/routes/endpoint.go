package routes

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/validation"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Module is what [Compile] reads of a loaded endpoint module.
type Module struct {
	// File is the module's file, which errors after the compilation
	// name (a bundle's, for a route of a bundle).
	File string
	// Contract is the module's contract, parsed and checked.
	Contract *abi.Contract
	// JSON is the contract as the module carries it: its schemas are
	// compiled from it, at the JSON pointers of Contract's parts.
	JSON []byte
	// HookExported reports whether the module exports its validation
	// error hook (abi.ExportOnValidationError, or
	// abi.ExportOnValidationErrorRoute in a bundle).
	HookExported bool
	// InBundle is set for a route of a bundle (server/bundles).
	InBundle bool
}

// Endpoint is the operations of one endpoint module, by upper-case method.
type Endpoint map[string]*Operation

// Compile compiles the contract of the module at rf into its operations:
// one for the method of the file name (users.get.wasm), or one per entry
// of the contract's "methods" for a module without a method suffix.
//
// The error names rf.File, the JSON pointer in the contract and what to
// change: an endpoint on a catch-all or optional segment, a module without
// a method that declares no "methods", a schema that does not compile, a
// parameter the route does not have, a timeout that is not a positive
// duration, and onValidationError without the hook exported.
func Compile(rf routefile.Route, m Module) (Endpoint, error) {
	if rf.Dynamic() {
		return nil, fmt.Errorf("%s: an endpoint cannot sit on a catch-all or optional segment (%s); use [param] segments, or export no contract to make it a plain route", rf.File, rf.Pattern())
	}
	c := m.Contract
	comp, err := validation.NewContract(rf.File, m.JSON)
	if err != nil {
		return nil, err
	}
	e := Endpoint{}
	switch {
	case rf.Method != "":
		op, err := compileOperation(comp, rf, rf.Method, c, "")
		if err != nil {
			return nil, err
		}
		e[rf.Method] = op
	case len(c.Methods) > 0:
		for name, mc := range c.Methods {
			method := strings.ToUpper(name)
			op, err := compileOperation(comp, rf, method, mc, "/methods/"+name)
			if err != nil {
				return nil, err
			}
			e[method] = op
		}
	case m.InBundle:
		return nil, fmt.Errorf("%s: contract: /: a route of every method (*) must declare its operations in \"methods\" ({\"get\": {...}, \"post\": {...}}), or the route must name its method (e.g. GET %s)", rf.File, rf.Pattern())
	default:
		return nil, fmt.Errorf("%s: contract: /: a module without a method suffix must declare its operations in \"methods\" ({\"get\": {...}, \"post\": {...}}), or the file name must carry a method (e.g. %s)", rf.File, strings.TrimSuffix(rf.File, ".wasm")+".get.wasm")
	}
	for _, op := range e {
		if op.Contract.OnValidationError && !m.HookExported {
			hook := abi.ExportOnValidationError
			if m.InBundle {
				hook = abi.ExportOnValidationErrorRoute
			}
			return nil, fmt.Errorf("%s: contract: /onValidationError: true, but the module does not export %q; export the hook (Go SDK: endpoints.OnValidationError) or drop the flag", rf.File, hook)
		}
	}
	return e, nil
}

// Methods returns the endpoint's methods, sorted.
func (e Endpoint) Methods() []string { return slices.Sorted(maps.Keys(e)) }

// Allow returns the methods the endpoint serves, sorted, for a 405's Allow
// header and an OPTIONS answer: its own, HEAD with GET, and OPTIONS.
func (e Endpoint) Allow() []string {
	set := map[string]bool{"OPTIONS": true}
	for m := range e {
		set[m] = true
		if m == "GET" {
			set["HEAD"] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// CheckTimeouts refuses an endpoint whose operations ask for a timeout or
// an idle timeout over limit (limits.maxTimeout); the error names file.
func (e Endpoint) CheckTimeouts(file string, limit time.Duration) error {
	for _, m := range e.Methods() {
		op := e[m]
		for _, d := range []struct {
			name  string
			value time.Duration
		}{{"timeout", op.Timeout}, {"idleTimeout", op.IdleTimeout}} {
			if d.value > limit {
				return fmt.Errorf("%s: contract: %s/%s: %s is over limits.maxTimeout (%s); shorten it, or raise limits.maxTimeout in %s", file, op.pointer, d.name, d.value, limit, config.File)
			}
		}
	}
	return nil
}

// AddConfigResponses applies the routes configuration rc, read from
// configFile, to every operation of the endpoint at pattern: the statuses
// it declares for an operation whose answers are checked count as
// declared, after those of the contract. The error names file, the
// module's.
func (e Endpoint) AddConfigResponses(file, configFile string, rc *openapi.RoutesConfig, pattern string) error {
	for _, op := range e {
		if err := op.addConfigResponses(configFile, rc, pattern); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	return nil
}
