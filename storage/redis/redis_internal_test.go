package redis

import (
	"testing"
	"time"
)

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct {
		prefix, want string
		ok           bool
	}{
		{"", "", false},
		{"a", "b", true},
		{"a/", "a0", true},
		{"a\xff", "b", true},
		{"a\xfe\xff", "a\xff", true},
		{"\xff\xff", "", false},
	} {
		t.Run(c.prefix, func(t *testing.T) {
			got, ok := prefixEnd(c.prefix)
			if got != c.want || ok != c.ok {
				t.Errorf("prefixEnd(%q) = %q, %v; want %q, %v", c.prefix, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestMilliseconds(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{
		{time.Nanosecond, 1},
		{time.Millisecond, 1},
		{1500 * time.Microsecond, 2},
		{time.Minute, 60000},
	} {
		t.Run(c.d.String(), func(t *testing.T) {
			if got := milliseconds(c.d); got != c.want {
				t.Errorf("milliseconds(%v) = %d, want %d", c.d, got, c.want)
			}
		})
	}
}

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"shop", "shop"},
		{"a:b", "a%3Ab"},
		{"50%", "50%25"},
		{"%3A", "%253A"},
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := escape(c.in); got != c.want {
				t.Errorf("escape(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
