package idempotency

import (
	"bytes"
	"testing"
)

func TestKeyTee(t *testing.T) {
	tests := []struct {
		name   string
		held   bool
		writes []int // sizes
		want   int   // bytes kept
	}{
		{name: "no key held: nothing kept", held: false, writes: []int{10}, want: 0},
		{name: "a held key keeps the stream", held: true, writes: []int{10, 20}, want: 30},
		{name: "exactly MaxReplayBody is kept", held: true, writes: []int{MaxReplayBody - 1, 1}, want: MaxReplayBody},
		{name: "past MaxReplayBody nothing is kept, even what follows", held: true, writes: []int{MaxReplayBody, 1, 1}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var k Key
			if tt.held {
				k.key, k.lease = "k", "lease"
			}
			for _, n := range tt.writes {
				k.Tee(bytes.Repeat([]byte("x"), n))
			}
			if got := len(k.Streamed()); got != tt.want {
				t.Errorf("kept %d bytes, want %d", got, tt.want)
			}
			k.Reset()
			if k.Held() || len(k.Streamed()) != 0 || k.overflow {
				t.Errorf("after Reset: held %v, %d bytes kept, overflow %v; want an empty Key", k.Held(), len(k.Streamed()), k.overflow)
			}
		})
	}
}
