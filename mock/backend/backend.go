// Package backend is where a fake keeps its state: the records (runs,
// pipelines, the runs a client reports and their tasks...), the access
// tokens, the rate counters and the clock's advance. One constructor per
// kind of keeping (NewMemory, NewFile, NewRedis) returns the same Backend,
// so the server above chooses the kind once, at start, and never asks
// again which one it has.
//
// A Backend never sees the server. What the records start with comes
// through a Seeder, given to Load; everything else (which tokens are
// configured, which rate windows apply, which clock) through options.
package backend

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Seeder fills an empty record store with what a fake starts with. The
// server's default API version implements it over its resource handlers.
type Seeder interface {
	// Seed adds the seed's records to an empty store.
	Seed() error
	// IndexRefs learns the references held by records that are already
	// there (restored from a file, or seeded by another replica), as Seed
	// would have learnt them.
	IndexRefs() error
}

// Backend holds one fake's state. Its methods are safe for concurrent use
// once Load has returned.
type Backend struct {
	records store.Store // nil: the fake keeps no records (WithoutRecords)
	tokens  auth.Store
	limiter ratelimit.Limiter
	clock   *clock.Offset
	logger  *slog.Logger
	// faults keeps the fault and override rules and their use counts,
	// shared like the rate counters. They are a test's setting, not state
	// to keep: a state file does not save them.
	faults faults.Store
	// configured are the tokens the fake was started with (built-in,
	// profile and --token ones), pinned, as first created: a reset goes
	// back to them. This is their one copy.
	configured []auth.Token
	// shared is set when other replicas use the records too: the first to
	// start seeds them, once.
	shared bool
	// ping says whether a store outside the process answers; nil: the
	// state is in this process.
	ping func() error
	// file keeps the state on disk (NewFile); nil for the other kinds.
	file *stateFile

	mu     sync.Mutex // guards seeder
	seeder Seeder
}

// config is what the options set, shared by every kind.
type config struct {
	clock      clock.Clock
	logger     *slog.Logger
	tokens     []auth.Fixture
	windows    []ratelimit.Window
	rateOpts   []ratelimit.Option
	records    store.Store
	noRecords  bool
	redisLimit time.Duration
}

// Option configures a Backend.
type Option func(*config)

// WithClock is the clock behind token expiry, rate windows and record
// times; the Backend lays its own offset over it (Clock).
func WithClock(c clock.Clock) Option { return func(cf *config) { cf.clock = c } }

// WithLogger is where the Backend reports what it did on its own (a state
// restored, an emptied Redis filled again).
func WithLogger(l *slog.Logger) Option { return func(cf *config) { cf.logger = l } }

// WithTokens are the tokens the fake is configured with, their values
// known: created at start, pinned, and what a reset goes back to.
func WithTokens(fx ...auth.Fixture) Option {
	return func(cf *config) { cf.tokens = append(cf.tokens, fx...) }
}

// WithRateLimit counts calls over windows; none leaves calls unlimited.
func WithRateLimit(windows []ratelimit.Window, opts ...ratelimit.Option) Option {
	return func(cf *config) { cf.windows, cf.rateOpts = windows, opts }
}

// WithRecords keeps the records in st, a store of the caller's that other
// replicas may share (a redisstore on one Redis): it is seeded once, by
// the first replica to start. For NewMemory and NewFile.
func WithRecords(st store.Store) Option { return func(cf *config) { cf.records = st } }

// WithoutRecords keeps no records at all: every answer is synthesized.
// For NewMemory.
func WithoutRecords() Option { return func(cf *config) { cf.noRecords = true } }

func newConfig(opts []Option) config {
	cf := config{clock: clock.Real{}, logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cf)
	}
	return cf
}

// NewMemory keeps the state in this process's memory (the records in the
// caller's store with WithRecords): it is gone when the process ends.
func NewMemory(opts ...Option) (*Backend, error) {
	cf := newConfig(opts)
	b := &Backend{clock: clock.NewOffset(cf.clock), logger: cf.logger, faults: faults.NewMemory()}
	if !cf.noRecords {
		b.records, b.shared = cf.records, cf.records != nil
		if b.records == nil {
			b.records = store.NewMemory()
		}
		// A caller's store that lives outside the process can say
		// whether it answers.
		if p, ok := b.records.(interface{ Ping() error }); ok {
			b.ping = p.Ping
		}
	}
	tokens := auth.NewMemory(auth.WithClock(b.clock))
	if err := auth.Seed(tokens, cf.tokens...); err != nil {
		return nil, err
	}
	configured, err := tokens.Snapshot()
	if err != nil {
		return nil, err
	}
	b.tokens, b.configured = tokens, configured
	b.limiter = newLimiter(cf, b.clock, func(w []ratelimit.Window, o []ratelimit.Option) ratelimit.Limiter {
		return ratelimit.NewMemory(w, o...)
	})
	return b, nil
}

func newLimiter(cf config, c clock.Clock, build func([]ratelimit.Window, []ratelimit.Option) ratelimit.Limiter) ratelimit.Limiter {
	if len(cf.windows) == 0 {
		return ratelimit.Unlimited()
	}
	return build(cf.windows, append([]ratelimit.Option{ratelimit.WithClock(c)}, cf.rateOpts...))
}

// Records is the record store; nil with WithoutRecords.
func (b *Backend) Records() store.Store { return b.records }

// Tokens is the token store.
func (b *Backend) Tokens() auth.Store { return b.tokens }

// Limiter counts calls per key over the configured windows.
func (b *Backend) Limiter() ratelimit.Limiter { return b.limiter }

// Faults keeps the fault and override rules (mock/faults).
func (b *Backend) Faults() faults.Store { return b.faults }

// Clock is the fake's clock: the base clock plus the advance the control
// API gave it, which replicas on one Redis share.
func (b *Backend) Clock() *clock.Offset { return b.clock }

// Load brings the records to where the fake starts: the state file's when
// there is one, else the seed (once for all replicas on a shared store).
// A state file that exists but cannot be restored is an error: the fake
// must not run on, and later save over, a state it could not read.
func (b *Backend) Load(s Seeder) error {
	b.mu.Lock()
	b.seeder = s
	b.mu.Unlock()
	if b.records == nil {
		return nil
	}
	if b.file == nil {
		return b.seedOnce()
	}
	restored, err := b.file.load(b)
	if err == nil && !restored {
		err = b.seedOnce()
	}
	if err != nil {
		return err
	}
	b.file.autosave(b)
	return nil
}

// Where a shared store notes that it has been seeded.
const (
	metaCollection = "wmsmock-meta"
	seededID       = "seeded"
)

// seedOnce seeds the records, unless they are shared and another replica
// has seeded them already: the replica that inserts the marker seeds, the
// others find it and leave the store alone, but still index the references
// the seed holds (seeding builds that index for the replica that seeds).
func (b *Backend) seedOnce() error {
	b.mu.Lock()
	s := b.seeder
	b.mu.Unlock()
	if s == nil {
		return errors.New("backend: seeding before Load")
	}
	if b.shared {
		_, err := b.records.Insert(metaCollection, store.Record{ID: seededID, Created: b.clock.Now(), Data: []byte("true")})
		if errors.Is(err, store.ErrExists) {
			return s.IndexRefs()
		}
		if err != nil {
			return err
		}
	}
	return s.Seed()
}

// StateFile is the state file's path; "" for the kinds without one.
func (b *Backend) StateFile() string {
	if b.file == nil {
		return ""
	}
	return b.file.path
}

// Save writes the state file now; the other kinds keep nothing to save.
func (b *Backend) Save() error {
	if b.file == nil || b.records == nil {
		return nil
	}
	return b.file.save(b)
}

// Reset puts the fake back as it started: the seed's records, the
// configured tokens only, no call counted, no fault or override but the
// pinned ones (profile, options). The clock is left where it is. On a
// shared store every replica sees the reset.
func (b *Backend) Reset() error {
	if b.records != nil {
		if err := b.records.Restore(store.Snapshot{}); err != nil {
			return err
		}
		if err := b.seedOnce(); err != nil {
			return err
		}
	}
	if err := b.tokens.Restore(b.configured); err != nil {
		return err
	}
	if err := b.faults.Reset(); err != nil {
		return err
	}
	return b.limiter.Reset()
}

// Health is nil while the state can be served: always for a state in this
// process; for Redis, while it answers.
func (b *Backend) Health() error {
	if b.ping == nil {
		return nil
	}
	return b.ping()
}

// Close stops the periodic save and saves one last time (the server calls
// it once the last call in flight has been answered). It leaves a caller's
// Redis client open: the caller closes it.
func (b *Backend) Close() error {
	if b.file != nil {
		b.file.stop()
	}
	return b.Save()
}
