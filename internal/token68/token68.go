// Package token68 says which strings can travel as a bearer credential.
// The auth store, the behaviour profile and the command line all refuse a
// token value that no well-formed Authorization header could carry, and they
// must agree on the rule, so it lives here once.
package token68

// Valid reports whether v is a token68 (RFC 7235 section 2.1): one or more
// letters, digits or "-._~+/", optionally followed by "=" padding.
func Valid(v string) bool {
	i := 0
	for i < len(v) && isChar(v[i]) {
		i++
	}
	if i == 0 {
		return false
	}
	for i < len(v) && v[i] == '=' {
		i++
	}
	return i == len(v)
}

func isChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '.', '_', '~', '+', '/':
		return true
	}
	return false
}
