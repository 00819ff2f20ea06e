package intdiv

import (
	"math"
	"testing"
)

func TestFloorAndCeil(t *testing.T) {
	for _, c := range [][2]int64{{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {6, 3}, {-6, 3}, {0, 5}, {1, 1000}, {-1, 1000}} {
		a, b := c[0], c[1]
		wantF, wantC := int64(math.Floor(float64(a)/float64(b))), int64(math.Ceil(float64(a)/float64(b)))
		if got := Floor(a, b); got != wantF {
			t.Errorf("Floor(%d, %d) = %d, want %d", a, b, got, wantF)
		}
		if got := Ceil(a, b); got != wantC {
			t.Errorf("Ceil(%d, %d) = %d, want %d", a, b, got, wantC)
		}
	}
}
