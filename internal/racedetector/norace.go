//go:build !race

// Package racedetector says whether the program was built with the race
// detector (go test -race), which allocates on its own and multiplies
// memory use several times: tests that bound allocations or the
// process's memory skip those bounds under it.
package racedetector

// Enabled is false: the program was built without -race.
const Enabled = false
