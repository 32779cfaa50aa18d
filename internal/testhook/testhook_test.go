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

func TestClosed(t *testing.T) {
	if Closed(context.Background()) != nil {
		t.Fatal("a context without the hook has one")
	}
	var got []<-chan struct{}
	ctx := WithClosed(context.Background(), func(done <-chan struct{}) { got = append(got, done) })
	c := make(chan struct{})
	Closed(context.WithoutCancel(ctx))(c) // a derived context keeps the hook
	if len(got) != 1 || got[0] != (<-chan struct{})(c) {
		t.Errorf("the hook got %v, want [%v]", got, c)
	}
}
