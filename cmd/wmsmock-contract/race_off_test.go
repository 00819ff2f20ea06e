//go:build !race

package main

// raceEnabled: under -race the published-schema comparisons skip, and so
// do the whole command runs against fakes (see wholeRunOnly).
const raceEnabled = false
