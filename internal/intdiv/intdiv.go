// Package intdiv divides integers rounding toward minus or plus infinity,
// where Go's / truncates toward zero: the rate limiter's windows and the
// generator's multiples of a step both need it for negative values.
package intdiv

// Floor is a/b rounded down.
func Floor(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Ceil is a/b rounded up.
func Ceil(a, b int64) int64 { return -Floor(-a, b) }
