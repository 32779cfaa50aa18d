package engine

import "testing"

func TestCompileWorkers(t *testing.T) {
	for _, tc := range []struct {
		slots, n, want int
	}{
		{slots: 2, n: 1, want: 2},  // a reload of one module: both cores
		{slots: 1, n: 1, want: 2},  // one core: still abandonable
		{slots: 8, n: 1, want: 8},  // every core for one module
		{slots: 8, n: 3, want: 2},  // the cores the batch leaves idle
		{slots: 2, n: 2, want: 1},  // as many modules as slots: one each
		{slots: 2, n: 50, want: 1}, // a cold start
		{slots: 4, n: 0, want: 4},
	} {
		if got := compileWorkers(tc.slots, tc.n); got != tc.want {
			t.Errorf("compileWorkers(%d slots, %d modules) = %d, want %d", tc.slots, tc.n, got, tc.want)
		}
	}
}
