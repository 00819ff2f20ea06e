// Package ratelimit counts API calls per access token against rolling windows
// (CONTRACT L1: 20 calls per second and 72000 per hour, per token).
//
// The rule is the literal reading of the contract: a call is accepted when,
// for every window, fewer than Limit accepted calls carry a timestamp in
// (now-Period, now]. The window rolls with every call instead of resetting
// on the second or the hour, so a client cannot fit two bursts around a
// boundary. Rejected calls do not use up room (unless the caller asks for
// that), so a client retrying too fast is not locked out for longer.
//
// Memory is the in-process implementation; Redis keeps the counts in Redis,
// so that several replicas of the fake share them, and decides by the same
// rule (and the same code) as Memory.
package ratelimit

import (
	"errors"
	"time"

	"github.com/wmsmock/wmsmock/internal/ratewindow"
)

// Window is one limit: at most Limit accepted calls in any rolling Period.
// Its text form ("20/s") is read by ratewindow.Parse.
type Window = ratewindow.Window

// Decision is the answer to one call, carrying what the X-RateLimit-*
// and Retry-After headers need.
type Decision struct {
	// Allowed reports whether the call was accepted (and counted).
	Allowed bool
	// Limit is the Limit of the window the headers describe: for a rejected
	// call, the window that holds the call back longest; for an accepted
	// one, the window with the fewest calls left (ties: the one that frees
	// a slot last). Zero means no limit applies; send no rate headers.
	Limit int
	// Remaining is how many more calls that window accepts right now,
	// counting this one as made; zero on a rejection.
	Remaining int
	// Reset is when that window next frees a slot: for a rejected call,
	// the moment a retry would be accepted.
	Reset time.Time
	// RetryAfter is zero for an accepted call; otherwise how long until a
	// call would be accepted, assuming no other call is accepted meanwhile.
	// It is exact, to the nanosecond: see RetryAfterSeconds for the header.
	RetryAfter time.Duration
}

// RetryAfterSeconds is the value for the Retry-After header: RetryAfter
// rounded up to whole seconds and at least 1 for a rejected call, because a
// client told "0" would retry at once and be rejected again. Zero when the
// call was allowed.
func (d Decision) RetryAfterSeconds() int64 {
	if d.Allowed {
		return 0
	}
	s := int64((d.RetryAfter + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

// ResetUnix is Reset as unix seconds for X-RateLimit-Reset, rounded up so
// that a client which waits until then finds the slot free. Zero when Reset
// is unset.
func (d Decision) ResetUnix() int64 {
	if d.Reset.IsZero() {
		return 0
	}
	s := d.Reset.Unix()
	if d.Reset.Nanosecond() > 0 {
		s++
	}
	return s
}

// Limiter decides whether a call made under a key (one per access token)
// may proceed.
//
// A limiter whose counts live elsewhere (Redis) can fail to reach them; it
// then returns an error wrapping ErrUnavailable, and the caller must answer
// the call as its own failure: neither accepting it uncounted nor refusing
// it as over the limit.
type Limiter interface {
	// Decide decides one call for key and, when it is accepted, counts it.
	Decide(key string) (Decision, error)
	// Counters reports the current use of every key the limiter holds, for
	// a control endpoint. Keys come back exactly as given to Decide, so
	// callers must pass a token's id or a hash of it, never the secret.
	Counters() ([]Counter, error)
	// Reset forgets every count, as if no call had been made.
	Reset() error
}

// ErrUnavailable wraps a failure to reach a shared limiter's store.
var ErrUnavailable = errors.New("ratelimit: counter store unavailable")

// Counter is one key's use of each window at the moment of the snapshot.
// Used[i] belongs to Windows[i]; for a bucketed window it is the
// conservative count the limiter decides on (see NewMemory).
type Counter struct {
	Key     string
	Used    []int
	Windows []Window
}

// Unlimited returns a Limiter that accepts every call and keeps nothing,
// for a fake started with rate limiting off. Its decisions have Limit 0.
func Unlimited() Limiter { return unlimited{} }

type unlimited struct{}

func (unlimited) Decide(string) (Decision, error) { return Decision{Allowed: true}, nil }
func (unlimited) Counters() ([]Counter, error)    { return nil, nil }
func (unlimited) Reset() error                    { return nil }
