//go:build !race

package schemadiff_test

const raceEnabled = false
