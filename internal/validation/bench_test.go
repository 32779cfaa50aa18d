package validation

import (
	"testing"
)

// usersParams is the params schema of GET /api/users/{id}.
const usersParams = `{"params": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1, "maximum": 9223372036854775807}}, "required": ["id"]}}`

// BenchmarkValidateParams validates the params of GET /api/users/2 as the
// host does (the id coerced from the path), through the fast path and
// through jsonschema/v6:
//
//	go test ./internal/validation -run '^$' -bench ValidateParams -benchmem
func BenchmarkValidateParams(b *testing.B) {
	s := compileAll(b, usersParams, "params")["params"]
	if s.fast == nil {
		b.Fatal("the users params schema is not on the fast path")
	}
	for _, bc := range []struct {
		name     string
		validate func(any) []Issue
	}{
		{"fast", s.Validate},
		{"jsonschema", s.validateSlow},
	} {
		b.Run(bc.name, func(b *testing.B) {
			params := map[string]any{"id": s.CoerceString("id", "2")}
			b.ReportAllocs()
			for b.Loop() {
				if issues := bc.validate(params); issues != nil {
					b.Fatal(issues)
				}
			}
		})
		b.Run(bc.name+"/invalid", func(b *testing.B) {
			params := map[string]any{"id": s.CoerceString("id", "9223372036854775808")}
			b.ReportAllocs()
			for b.Loop() {
				if issues := bc.validate(params); len(issues) != 1 {
					b.Fatal(issues)
				}
			}
		})
	}
}
