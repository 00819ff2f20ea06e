//go:build race

package ratelimit

// raceEnabled: the race detector makes every call several times slower;
// tests that run many calls on miniredis run fewer.
const raceEnabled = true
