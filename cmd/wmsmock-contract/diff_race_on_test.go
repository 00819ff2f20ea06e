//go:build race

package main

// diffRaceEnabled skips the published-schema comparisons under -race.
const diffRaceEnabled = true
