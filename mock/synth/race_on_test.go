//go:build race

package synth

const raceEnabled = true
