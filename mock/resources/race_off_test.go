//go:build !race

package resources

const raceEnabled = false
