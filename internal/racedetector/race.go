//go:build race

package racedetector

// Enabled is true: the program was built with -race.
const Enabled = true
