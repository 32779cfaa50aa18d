//go:build race

package host_test

// raceEnabled: the race detector multiplies memory use several times, so
// tests skip their bounds on the process's memory under it.
const raceEnabled = true
