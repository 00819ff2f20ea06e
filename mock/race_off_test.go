//go:build !race

package mock_test

const raceEnabled = false
