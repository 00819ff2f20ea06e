package mock

import (
	"errors"
	"strings"
	"time"

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
}

// WithStore keeps the fake's records in st instead of in this process's
// memory. Replicas of the fake given one shared store (redisstore, on one
// Redis) serve the same runs, pipelines and other records: what one
// creates, the others list, describe and change. A store that is already
// filled is not seeded again: the seed's records are only added where
// they are missing. WithStore shares the records only; WithRedis (redis.go)
// shares tokens, rate counters and the clock too, and is what replicas want.
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
