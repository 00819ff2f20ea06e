package mock

import (
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/store"
)

// stateSettings are the options about the fake's state: where it is kept,
// what it starts with, and who may change it through the control API.
type stateSettings struct {
	file        string
	interval    time.Duration
	fixturesDir string
	adminToken  string
	noSeed      bool
	disabled    bool
	records     store.Store
	redis       *redisSettings
	backend     *backend.Backend // WithBackend
}

// redisSettings is WithRedis's: the client and where the fake's keys go.
type redisSettings struct {
	client redis.UniversalClient
	prefix string
}

// openBackend makes the one backend the options ask for: this is the one
// place that tells the kinds apart.
func (st stateSettings) openBackend(opts ...backend.Option) (*backend.Backend, error) {
	if st.backend != nil {
		if st.redis != nil || st.records != nil || st.file != "" || st.disabled {
			return nil, errors.New("WithBackend goes with none of WithRedis, WithStore, WithStateFile and WithoutState: the backend given is where the state is")
		}
		return st.backend, nil
	}
	if st.disabled {
		if st.file != "" {
			return nil, errors.New("a state file needs state: WithStateFile and WithoutState do not go together")
		}
		opts = append(opts, backend.WithoutRecords())
	}
	if st.records != nil {
		opts = append(opts, backend.WithRecords(st.records))
	}
	if r := st.redis; r != nil {
		switch {
		case st.records != nil:
			return nil, errors.New("WithRedis and WithStore do not go together: WithRedis keeps the records in Redis")
		case st.file != "":
			return nil, errors.New("WithRedis and WithStateFile do not go together: Redis keeps the state")
		case st.disabled:
			return nil, errors.New("WithRedis and WithoutState do not go together")
		}
		return backend.NewRedis(r.client, r.prefix, opts...)
	}
	if st.file != "" {
		return backend.NewFile(st.file, st.interval, opts...)
	}
	return backend.NewMemory(opts...)
}

// WithRedis keeps everything that replicas of the fake must share in
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
// The caller owns c and closes it after the server. WithRedis replaces
// WithStore, and does not go with WithStateFile (Redis keeps the state).
func WithRedis(c redis.UniversalClient, prefix string) Option {
	return func(s *settings) error {
		if c == nil {
			return errors.New("WithRedis: nil client")
		}
		if prefix = strings.TrimSpace(prefix); prefix == "" {
			return errors.New("WithRedis: empty key prefix")
		}
		s.state.redis = &redisSettings{client: c, prefix: prefix}
		return nil
	}
}

// WithBackend keeps the fake's state in b, opened by the caller (with
// package backend's constructors), so a Go test can reach the records and
// tokens directly, as the fake's handlers do. b's own options then decide
// the tokens, the rate windows and the clock: the server's WithTokens,
// WithRateLimit, WithClock and the profile's tokens and rate windows do
// not apply. The server closes b on Shutdown.
func WithBackend(b *backend.Backend) Option {
	return func(s *settings) error {
		if b == nil {
			return errors.New("WithBackend: nil backend")
		}
		s.state.backend = b
		return nil
	}
}

// WithStore keeps the fake's records in st instead of in this process's
// memory. Replicas of the fake given one shared store (redisstore, on one
// Redis) serve the same runs, pipelines and other records: what one
// creates, the others list, describe and change. A store that is already
// filled is not seeded again: the seed's records are only added where
// they are missing. WithStore shares the records only; WithRedis shares
// tokens, rate counters and the clock too, and is what replicas want.
func WithStore(st store.Store) Option {
	return func(s *settings) error {
		if st == nil {
			return errors.New("WithStore: nil store")
		}
		s.state.records = st
		return nil
	}
}

// WithStateFile keeps the fake's state (records, tokens, the clock's
// advance) in a file: loaded at start, saved at every interval (0: only on
// Shutdown) and on Shutdown, always atomically. A file that cannot be read
// makes New fail instead of starting empty, so state is never lost quietly.
func WithStateFile(path string, interval time.Duration) Option {
	return func(s *settings) error {
		if strings.TrimSpace(path) == "" {
			return errors.New("WithStateFile: empty path")
		}
		if interval < 0 {
			return errors.New("WithStateFile: negative interval")
		}
		s.state.file, s.state.interval = path, interval
		return nil
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

// WithoutState answers every operation by synthesis alone, with no
// records: a describe of any id succeeds. Useful to sweep a document's
// answers; a client test wants the default.
func WithoutState() Option {
	return func(s *settings) error {
		s.state.disabled = true
		return nil
	}
}
