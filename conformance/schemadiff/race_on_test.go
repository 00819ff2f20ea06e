//go:build race

package schemadiff_test

const raceEnabled = true
