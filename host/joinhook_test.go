package host

import (
	"reflect"
	"slices"
	"testing"
)

// TestJoinHookByReflection checks the fallback of JoinObservers for a hook
// type typedJoins lacks: both hooks are called, in turn, with the event.
func TestJoinHookByReflection(t *testing.T) {
	var got []int
	first := func(n int) { got = append(got, n) }
	second := func(n int) { got = append(got, 10*n) }
	joined, ok := joinHook(reflect.ValueOf(first), reflect.ValueOf(second)).Interface().(func(int))
	if !ok {
		t.Fatal("the joined hook is not a func(int)")
	}
	joined(2)
	if want := []int{2, 20}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}
