package token68

import "testing"

func TestValid(t *testing.T) {
	for v, want := range map[string]bool{
		"abc":           true,
		"A-b.c_d~e+f/g": true,
		"abc==":         true,
		"a=":            true,
		"":              false,
		"=":             false,
		"=abc":          false,
		"a=b":           false,
		"a b":           false,
		"a,b":           false,
		"tök":           false,
		"abc\n":         false,
	} {
		if got := Valid(v); got != want {
			t.Errorf("Valid(%q) = %v, want %v", v, got, want)
		}
	}
}
