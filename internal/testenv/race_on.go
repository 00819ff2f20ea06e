//go:build race

package testenv

// RaceEnabled reports whether the binary was built with -race, where
// tests that would take minutes under the detector check less (and
// .ci/run runs them whole without it).
const RaceEnabled = true
