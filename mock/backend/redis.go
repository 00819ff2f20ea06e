package backend

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/store/redisstore"
)

// redisTimeout bounds each call to Redis: a Redis that stops answering
// fails the API call (500 with an Error ID) rather than holding it.
const redisTimeout = 2 * time.Second

// NewRedis keeps everything replicas of a fake must share in Redis, under
// keys starting with prefix: the records (prefix:records:*), the tokens
// (prefix:tokens:*, their SHA-256 only), the rate counters (prefix:rate:*),
// the clock's advance (prefix:clock) and the fault and override rules with
// their use counts (prefix:faults:*). Replicas given the same Redis
// and prefix are one fake: the first to start on an empty Redis seeds it,
// and every one puts the configured tokens in place, idempotently.
//
// A Redis that comes back empty (restarted without persistence, or
// flushed) is filled again the first time a replica meets a token it does
// not know (see refilling). The caller owns c and closes it after Close.
func NewRedis(c redis.UniversalClient, prefix string, opts ...Option) (*Backend, error) {
	if c == nil {
		return nil, errors.New("redis: nil client")
	}
	if prefix = strings.TrimSpace(prefix); prefix == "" {
		return nil, errors.New("redis: empty key prefix")
	}
	cf := newConfig(opts)
	switch {
	case cf.records != nil:
		return nil, errors.New("redis keeps the records: a store of the caller's does not go with it")
	case cf.noRecords:
		return nil, errors.New("redis keeps the records: no records does not go with it")
	}
	records := redisstore.New(c, prefix+":records", redisTimeout)
	b := &Backend{records: records, shared: true, ping: records.Ping, logger: cf.logger,
		faults: faults.NewRedis(c, prefix+":faults", redisTimeout)}
	b.clock = clock.NewOffset(cf.clock)
	b.clock.Share(&redisSkew{c: c, key: prefix + ":clock"})
	if err := b.clock.Sync(); err != nil {
		return nil, fmt.Errorf("redis: reading the shared clock: %w", err)
	}
	// The configured tokens are checked first as in memory (a name or
	// value given twice is refused at start, as without Redis), then made
	// present by Ensure, which every replica runs safely.
	if err := auth.Seed(auth.NewMemory(), cf.tokens...); err != nil {
		return nil, err
	}
	tokens := auth.NewRedis(c, prefix+":tokens", auth.WithClock(b.clock), auth.WithTimeout(redisTimeout))
	configured, err := tokens.Ensure(cf.tokens...)
	if err != nil {
		return nil, fmt.Errorf("redis: seeding the configured tokens: %w", err)
	}
	b.configured = configured
	b.tokens = &refilling{Shared: tokens, b: b, fixtures: cf.tokens}
	b.limiter = newLimiter(cf, b.clock, func(w []ratelimit.Window, o []ratelimit.Option) ratelimit.Limiter {
		return ratelimit.NewRedis(c, prefix+":rate", w, append(o, ratelimit.WithTimeout(redisTimeout))...)
	})
	return b, nil
}

// refilling is the Redis token store of a Backend that fills an emptied
// Redis again. A Redis that lost its data has lost the seed and the
// configured tokens, and every replica would answer 403 to the dev token
// from then on. So a token the store does not know makes it look for the
// seed's marker (one read, on this path only); when the marker is gone, it
// seeds the records again (once for all replicas), puts the configured
// tokens back and looks the token up again. Tokens created through the
// API and runs launched are lost with the data, as they would be on a
// single fake restarted without a state file.
type refilling struct {
	auth.Shared
	b        *Backend
	fixtures []auth.Fixture // the configured tokens, values known
}

// Lookup implements auth.Store.
func (r *refilling) Lookup(value string) (auth.Token, bool, error) {
	return r.retry(func() (auth.Token, bool, error) { return r.Shared.Lookup(value) })
}

// Use is auth.Check's one-step lookup and touch (one round trip).
func (r *refilling) Use(value string, now time.Time) (auth.Token, bool, error) {
	return r.retry(func() (auth.Token, bool, error) { return r.Shared.Use(value, now) })
}

func (r *refilling) retry(find func() (auth.Token, bool, error)) (auth.Token, bool, error) {
	tok, ok, err := find()
	if err != nil || ok {
		return tok, ok, err
	}
	refilled, err := r.refillIfEmptied()
	if err != nil || !refilled {
		return tok, false, err
	}
	return find()
}

// refillIfEmptied puts the seed and the configured tokens back when the
// seed's marker is gone, and says whether it did.
func (r *refilling) refillIfEmptied() (bool, error) {
	_, err := r.b.records.Get(metaCollection, seededID)
	switch {
	case err == nil:
		return false, nil
	case !errors.Is(err, store.ErrNotFound):
		return false, err
	}
	if err := r.b.seedOnce(); err != nil {
		return false, fmt.Errorf("seeding the emptied Redis again: %w", err)
	}
	// The configured tokens a reset goes back to stay those of the start:
	// the same names and values, which is what a reset needs.
	if _, err := r.Shared.Ensure(r.fixtures...); err != nil {
		return false, fmt.Errorf("putting the configured tokens back in the emptied Redis: %w", err)
	}
	r.b.logger.Warn("redis had lost the fake's state: seed and configured tokens put back")
	return true, nil
}

// redisSkew is the clock's advance in Redis, in nanoseconds.
type redisSkew struct {
	c   redis.UniversalClient
	key string
}

func (k *redisSkew) Load() (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	v, err := k.c.Get(ctx, k.key).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %v", redisstore.ErrUnavailable, err)
	}
	return time.Duration(v), nil
}

// advanceSkew raises the offset to at least ARGV[1], then adds ARGV[2]
// (INCRBY: exact integer arithmetic on the server).
var advanceSkew = redis.NewScript(`
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if v < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return redis.call('INCRBY', KEYS[1], ARGV[2])
`)

func (k *redisSkew) Advance(from, d time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	v, err := advanceSkew.Run(ctx, k.c, []string{k.key},
		strconv.FormatInt(int64(from), 10), strconv.FormatInt(int64(d), 10)).Int64()
	if err != nil {
		return 0, fmt.Errorf("%w: %v", redisstore.ErrUnavailable, err)
	}
	return time.Duration(v), nil
}
