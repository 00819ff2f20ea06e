//go:build race

package resourcestest

// RaceEnabled says the race detector is on, for tests that leave their
// slowest halves to the plain run.
const RaceEnabled = true
