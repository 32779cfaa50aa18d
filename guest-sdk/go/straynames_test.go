package endpoints

import (
	"slices"
	"testing"
)

// dump is what runtime.Stack(buf, true) wrote (Go 1.26, linux/amd64; a
// wasip1 guest writes the same) with three goroutines left: one in
// time.Sleep, one on a channel, one in a select on a timer.
const dump = `goroutine 1 [running]:
main.main()
	/tmp/dump/main.go:16 +0xf0

goroutine 7 [sleep]:
time.Sleep(0x34630b8a000)
	/usr/local/go/src/runtime/time.go:363 +0x165
main.main.func1()
	/tmp/dump/main.go:11 +0x1d
created by main.main in goroutine 1
	/tmp/dump/main.go:11 +0x36

goroutine 8 [chan receive]:
main.main.func2()
	/tmp/dump/main.go:12 +0x19
created by main.main in goroutine 1
	/tmp/dump/main.go:12 +0x76

goroutine 9 [select]:
main.main.func3()
	/tmp/dump/main.go:13 +0x65
created by main.main in goroutine 1
	/tmp/dump/main.go:13 +0xb6
`

// TestStrayGoroutines: settle's warning names the newest goroutines of a
// dump, but the caller's, by what they wait for and where they started.
func TestStrayGoroutines(t *testing.T) {
	tests := []struct {
		name string
		dump string
		n    int
		want []string
	}{
		{
			name: "the newest one",
			dump: dump, n: 1,
			want: []string{"goroutine 9 [select], started at /tmp/dump/main.go:13 (main.main)"},
		},
		{
			name: "newest first",
			dump: dump, n: 2,
			want: []string{
				"goroutine 9 [select], started at /tmp/dump/main.go:13 (main.main)",
				"goroutine 8 [chan receive], started at /tmp/dump/main.go:12 (main.main)",
			},
		},
		{
			name: "more asked than there are",
			dump: dump, n: 5,
			want: []string{
				"goroutine 9 [select], started at /tmp/dump/main.go:13 (main.main)",
				"goroutine 8 [chan receive], started at /tmp/dump/main.go:12 (main.main)",
				"goroutine 7 [sleep], started at /tmp/dump/main.go:11 (main.main)",
			},
		},
		{
			name: "the caller alone",
			dump: "goroutine 1 [running]:\nmain.main()\n\t/tmp/dump/main.go:16 +0xf0\n", n: 1,
			want: []string{},
		},
		{
			name: "cut short by the buffer, before created by",
			dump: "goroutine 1 [running]:\nmain.main()\n\t/tmp/dump/main.go:16 +0xf0\n\ngoroutine 12 [chan receive, 3 minutes]:\nmain.work()\n\t/tmp/dump/ma", n: 1,
			want: []string{"goroutine 12 [chan receive, 3 minutes]"},
		},
		{
			name: "a header with gp and m (GOTRACEBACK=system)",
			dump: "goroutine 1 gp=0xc000002380 m=0 mp=0x5a6040 [running]:\n\ngoroutine 7 gp=0xc000007a40 m=nil [sleep]:\ntime.Sleep(0x1)\n\t/usr/local/go/src/runtime/time.go:363 +0x165\ncreated by main.main in goroutine 1\n\t/tmp/dump/main.go:11 +0x36", n: 1,
			want: []string{"goroutine 7 [sleep], started at /tmp/dump/main.go:11 (main.main)"},
		},
		{
			name: "created by without its parent (Go before 1.21)",
			dump: "goroutine 1 [running]:\n\ngoroutine 7 [sleep]:\ncreated by main.main\n\t/tmp/dump/main.go:11 +0x36", n: 1,
			want: []string{"goroutine 7 [sleep], started at /tmp/dump/main.go:11 (main.main)"},
		},
		{
			name: "not a goroutine's block",
			dump: "goroutine 1 [running]:\n\nsomething else\n\ngoroutine x [sleep]:\n", n: 2,
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strayGoroutines([]byte(tt.dump), tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("strayGoroutines(dump, %d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}
