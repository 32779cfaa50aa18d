package testhook

import (
	"context"
	"testing"
)

func TestWatching(t *testing.T) {
	Watching(context.Background(), "none") // no hook: nothing happens
	var got []string
	ctx := WithWatching(context.Background(), func(name string) { got = append(got, name) })
	Watching(ctx, "a")
	Watching(context.WithoutCancel(ctx), "b") // a derived context keeps the hook
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("the hook got %q, want [a b]", got)
	}
}
