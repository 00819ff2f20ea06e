package auth

import (
	"fmt"
	"time"
)

// Well-known token values the fake holds from the start, so that tests and
// local clients can authenticate without creating a token first. They are
// public by design: the fake guards nothing.
const (
	// DevToken is always present and never expires.
	DevToken = "wmsmock-dev-token"
	// SecondToken is a second valid token, for checks that one token's state
	// (rate-limit counters, its own tokens) does not leak into another's.
	SecondToken = "wmsmock-second-token"
	// ExpiredToken expired on 2020-01-01, for the "expired token gets 403" rule.
	ExpiredToken = "wmsmock-expired-token"
)

// Fixture is a token the server adds at start, with its value known.
type Fixture struct {
	Name    string
	Value   string
	Expires *time.Time
}

// Fixtures returns the built-in tokens, dev token first. Each call returns a
// fresh slice, so callers may modify it.
func Fixtures() []Fixture {
	expired := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	return []Fixture{
		{Name: "dev", Value: DevToken},
		{Name: "second", Value: SecondToken},
		{Name: "expired", Value: ExpiredToken, Expires: &expired},
	}
}

// Seed adds fixtures to a store in order and stops at the first failure,
// naming the fixture that failed.
func Seed(s Store, fixtures ...Fixture) error {
	for _, f := range fixtures {
		if _, err := s.Add(f.Name, f.Value, f.Expires); err != nil {
			return fmt.Errorf("auth: adding token %q: %w", f.Name, err)
		}
	}
	return nil
}
