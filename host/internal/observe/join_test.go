package observe

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

// hooks is a struct of hooks as host.Observer is: a typed one, a span
// hook, and one of a type no Join was given for.
type hooks struct {
	Event  func(string)
	Span   func(context.Context, string) (context.Context, func(error))
	Untype func(int)
}

type ctxKey struct{}

var joiner = NewJoiner[hooks](InTurn[string](), Nested[string]())

// TestJoin: each hook of the joined struct calls those of the structs
// given, in turn; span hooks nest (the later begins in the earlier's
// context and ends first); a hook of a type without a Join is joined by
// reflection, with the same effect.
func TestJoin(t *testing.T) {
	var calls []string
	record := func(name string) *hooks {
		return &hooks{
			Event:  func(e string) { calls = append(calls, name+" event "+e) },
			Untype: func(n int) { calls = append(calls, name+" untyped") },
			Span: func(ctx context.Context, e string) (context.Context, func(error)) {
				calls = append(calls, name+" begins in "+valueOf(ctx))
				return context.WithValue(ctx, ctxKey{}, name), func(error) { calls = append(calls, name+" ends") }
			},
		}
	}
	for _, tt := range []struct {
		name string
		list []*hooks
		want []string
	}{
		{"none", nil, nil},
		{"nil structs skipped", []*hooks{nil, record("a"), nil}, []string{"a event e", "a untyped", "a begins in root", "a ends"}},
		{"two in turn, spans nested", []*hooks{record("a"), record("b")},
			[]string{"a event e", "b event e", "a untyped", "b untyped", "a begins in root", "b begins in a", "b ends", "a ends"}},
		{"nil hooks skipped", []*hooks{{}, record("a"), {Event: func(string) { calls = append(calls, "c event") }}},
			[]string{"a event e", "c event", "a untyped", "a begins in root", "a ends"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls = nil
			j := joiner.Join(tt.list...)
			if j.Event != nil {
				j.Event("e")
			}
			if j.Untype != nil {
				j.Untype(1)
			}
			if j.Span != nil {
				_, end := j.Span(context.WithValue(context.Background(), ctxKey{}, "root"), "e")
				end(nil)
			}
			if !slices.Equal(calls, tt.want) {
				t.Errorf("calls:\ngot  %q\nwant %q", calls, tt.want)
			}
		})
	}
}

func valueOf(ctx context.Context) string {
	s, _ := ctx.Value(ctxKey{}).(string)
	return s
}

// TestJoinedSpanEndMayBeNil: a span hook may return a nil end.
func TestJoinedSpanEndMayBeNil(t *testing.T) {
	quiet := &hooks{Span: func(ctx context.Context, _ string) (context.Context, func(error)) { return ctx, nil }}
	_, end := joiner.Join(quiet, quiet).Span(context.Background(), "e")
	end(nil) // must not panic
}

// TestTyped: the Joiner says which hook types it joins without
// reflection.
func TestTyped(t *testing.T) {
	for _, tt := range []struct {
		hook reflect.Type
		want bool
	}{
		{reflect.TypeFor[func(string)](), true},
		{reflect.TypeFor[func(context.Context, string) (context.Context, func(error))](), true},
		{reflect.TypeFor[func(int)](), false},
	} {
		if got := joiner.Typed(tt.hook); got != tt.want {
			t.Errorf("Typed(%s) = %v, want %v", tt.hook, got, tt.want)
		}
	}
}

// TestJoinByReflection checks the fallback for a hook type the Joiner
// has no Join for: both hooks are called, in turn, with the event.
func TestJoinByReflection(t *testing.T) {
	var got []int
	first := func(n int) { got = append(got, n) }
	second := func(n int) { got = append(got, 10*n) }
	joined, ok := joiner.join(reflect.ValueOf(first), reflect.ValueOf(second)).Interface().(func(int))
	if !ok {
		t.Fatal("the joined hook is not a func(int)")
	}
	joined(2)
	if want := []int{2, 20}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}
