package mock

import (
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/store"
)

// State says where the fake keeps its state: its records (runs,
// pipelines, compute environments...), its tokens, its per-token rate
// counters and the clock's advance. It is given to WithState, which takes
// one: the kinds exclude each other, so there is one value to choose
// rather than several options that could be combined wrongly.
//
// A State opens a backend (package backend) with the options New gives
// it: the server's clock and logger, the configured tokens and the rate
// windows. The constructors below cover the usual kinds; a State of the
// caller's own, a function of this shape, opens any other, e.g. a state
// file over a store of the caller's:
//
//	mock.WithState(func(opts ...backend.Option) (*backend.Backend, error) {
//		return backend.NewFile(path, 0, append(opts, backend.WithRecords(st))...)
//	})
type State func(opts ...backend.Option) (*backend.Backend, error)

// WithState keeps the fake's state where st says (InMemory, InStore,
// InFile, InRedis, NoRecords, InBackend, or a State of the caller's).
// Without it the state is in this process's memory. A later WithState
// replaces an earlier one, as every option that sets one thing does.
func WithState(st State) Option {
	return func(s *settings) error {
		if st == nil {
			return errors.New("WithState: nil state")
		}
		s.state.where = st
		return nil
	}
}

// InMemory keeps the state in this process's memory, gone when it ends:
// the default.
func InMemory() State { return backend.NewMemory }

// InStore keeps the fake's records in st, and its tokens, rate counters
// and clock in this process's memory. Replicas of the fake given one
// shared store (redisstore, on one Redis) serve the same runs, pipelines
// and other records: what one creates, the others list, describe and
// change. A store that is already filled is not seeded again: the seed's
// records are only added where they are missing. InStore shares the
// records only; InRedis shares tokens, rate counters and the clock too,
// and is what replicas want.
func InStore(st store.Store) State {
	return func(opts ...backend.Option) (*backend.Backend, error) {
		if st == nil {
			return nil, errors.New("InStore: nil store")
		}
		return backend.NewMemory(append(opts, backend.WithRecords(st))...)
	}
}

// InFile keeps the fake's state (records, tokens, the clock's advance) in
// the file at path: loaded at start, saved at every interval (0: only on
// Shutdown) and on Shutdown, always atomically. A file that cannot be
// read makes New fail instead of starting empty, so state is never lost
// quietly. An empty path or a negative interval makes New fail.
func InFile(path string, interval time.Duration) State {
	return func(opts ...backend.Option) (*backend.Backend, error) {
		return backend.NewFile(path, interval, opts...)
	}
}

// InRedis keeps everything that replicas of the fake must share in
// Redis, under keys starting with prefix (e.g. "wmsmock"): the records
// (runs, pipelines, compute environments...: prefix:records:*), the tokens
// (prefix:tokens:*, their SHA-256 only), the per-token rate counters
// (prefix:rate:*) and the clock's advance (prefix:clock). Replicas given
// the same Redis and prefix behave as one fake behind a load balancer: a
// token created through one authenticates on all, a run launched on one is
// cancelled through another, the rate limit holds across all of them
// together, and a clock move or an admin reset through one is seen by all.
//
// The first replica to start on an empty Redis seeds it; the configured
// tokens are put in place by every replica, idempotently. While Redis does
// not answer, API calls get the internal-error reply (500 with an Error
// ID) and /_mock/health reports it; nothing is decided on stale state.
// The caller owns c and closes it after the server. A nil client or an
// empty prefix makes New fail.
func InRedis(c redis.UniversalClient, prefix string) State {
	return func(opts ...backend.Option) (*backend.Backend, error) {
		return backend.NewRedis(c, prefix, opts...)
	}
}

// NoRecords keeps no records: every operation is answered by synthesis
// alone, and a describe of any id succeeds. Tokens and rate counters are
// still kept, in this process's memory. Useful to sweep a document's
// answers; a client test wants the default.
func NoRecords() State {
	return func(opts ...backend.Option) (*backend.Backend, error) {
		return backend.NewMemory(append(opts, backend.WithoutRecords())...)
	}
}

// InBackend keeps the fake's state in b, opened by the caller (with
// package backend's constructors), so a Go test can reach the records and
// tokens directly, as the fake's handlers do. b's own options then decide
// the tokens, the rate windows and the clock: the server's WithTokens,
// WithRateLimit, WithClock and the profile's tokens and rate windows do
// not apply. The server closes b on Shutdown.
func InBackend(b *backend.Backend) State {
	return func(...backend.Option) (*backend.Backend, error) {
		if b == nil {
			return nil, errors.New("InBackend: nil backend")
		}
		return b, nil
	}
}

// WithFixturesDir seeds a fresh fake from the seed files in dir (the
// shape of fixtures/seed: user.yaml, pipelines.yaml, workflows.yaml...)
// instead of the embedded ones.
func WithFixturesDir(dir string) Option {
	return func(s *settings) error {
		s.state.fixturesDir = dir
		return nil
	}
}

// WithAdminToken opens the control API's admin endpoints (/_mock/admin/)
// to callers from anywhere that send "Authorization: Bearer <token>".
// Without it they answer only calls from loopback.
func WithAdminToken(token string) Option {
	return func(s *settings) error {
		s.state.adminToken = token
		return nil
	}
}

// WithoutSeed starts the fake with no data at all.
func WithoutSeed() Option {
	return func(s *settings) error {
		s.state.noSeed = true
		return nil
	}
}
