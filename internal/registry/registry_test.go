package registry

import (
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New[func() int]("widget")
	if _, err := r.Lookup("a", "example.com/widget"); err == nil || !strings.Contains(err.Error(), `registered: none): import _ "example.com/widget/a"`) {
		t.Errorf("Lookup of an empty registry: %v", err)
	}
	r.Register("b", func() int { return 2 }, false)
	r.Register("a", func() int { return 1 }, false)
	if got := r.Names(); strings.Join(got, ",") != "a,b" {
		t.Errorf("Names = %v, want [a b]", got)
	}
	if f, err := r.Lookup("b", "example.com/widget"); err != nil || f() != 2 {
		t.Errorf("Lookup(b) = %v", err)
	}
	if _, err := r.Lookup("c", "example.com/widget"); err == nil || !strings.Contains(err.Error(), `widget driver "c" is not registered in this program (registered: a, b)`) {
		t.Errorf("Lookup(c): %v", err)
	}
	for _, tt := range []struct {
		name  string
		isNil bool
		want  string
	}{
		{"a", false, "widget: Register called twice for driver a"},
		{"n", true, "widget: Register driver n is nil"},
	} {
		func() {
			defer func() {
				if got := recover(); got != tt.want {
					t.Errorf("Register(%q): panic %v, want %q", tt.name, got, tt.want)
				}
			}()
			r.Register(tt.name, func() int { return 0 }, tt.isNil)
		}()
	}
}
