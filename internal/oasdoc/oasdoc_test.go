package oasdoc

import (
	"errors"
	"fmt"
	"testing"
)

// TestOnlyCircular guards which model errors Read tolerates: circular
// reference notices alone, single or joined, and nothing else.
func TestOnlyCircular(t *testing.T) {
	circ := errors.New("infinite circular reference detected: Node")
	circ2 := errors.New("Circular Reference found at #/a")
	other := errors.New("cannot resolve reference #/b")
	cases := []struct {
		err  error
		want bool
	}{
		{circ, true},
		{errors.Join(circ, circ2), true},
		{fmt.Errorf("model: %w", errors.Join(circ, circ2)), true},
		{other, false},
		{errors.Join(circ, other), false},
		{errors.Join(other, circ), false},
	}
	for i, tc := range cases {
		if got := onlyCircular(tc.err); got != tc.want {
			t.Errorf("case %d: onlyCircular(%v) = %v, want %v", i, tc.err, got, tc.want)
		}
	}
}
