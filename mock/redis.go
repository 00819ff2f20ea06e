package mock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/store/redisstore"
)

// redisTimeout bounds each call to Redis: a Redis that stops answering
// fails the API call (500 with an Error ID) rather than holding it.
const redisTimeout = 2 * time.Second

// redisSettings is WithRedis's: the client and where the fake's keys go.
type redisSettings struct {
	client redis.UniversalClient
	prefix string
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
		s.redis = &redisSettings{client: c, prefix: prefix}
		return nil
	}
}

// setupRedis checks WithRedis against the other options and puts the
// records and the clock on Redis; tokens and the limiter follow in
// setupTokens and setupLimiter.
func (s *Server) setupRedis(cfg *settings) error {
	r := cfg.redis
	if r == nil {
		return nil
	}
	switch {
	case cfg.state.records != nil:
		return errors.New("WithRedis and WithStore do not go together: WithRedis keeps the records in Redis")
	case cfg.state.file != "":
		return errors.New("WithRedis and WithStateFile do not go together: Redis keeps the state")
	case cfg.state.disabled:
		return errors.New("WithRedis and WithoutState do not go together")
	}
	cfg.state.records = redisstore.New(r.client, r.prefix+":records", redisTimeout)
	s.clock.Share(&redisSkew{c: r.client, key: r.prefix + ":clock"})
	if err := s.clock.Sync(); err != nil {
		return fmt.Errorf("redis: reading the shared clock: %w", err)
	}
	return nil
}

// seedRedisTokens puts the configured tokens in the shared token store.
// They are checked first as Memory would (a name or value given twice is
// refused at start, as without Redis), then made present in Redis by
// Ensure, which every replica runs safely.
func (s *Server) seedRedisTokens(r *redisSettings, fx []auth.Fixture) error {
	if err := auth.Seed(auth.NewMemory(), fx...); err != nil {
		return err
	}
	store := auth.NewRedis(r.client, r.prefix+":tokens", auth.WithClock(s.clock), auth.WithTimeout(redisTimeout))
	configured, err := store.Ensure(fx...)
	if err != nil {
		return fmt.Errorf("redis: seeding the configured tokens: %w", err)
	}
	s.tokens, s.configuredTokens, s.redisFixtures = store, configured, fx
	return nil
}

// recheckIfEmptied handles a token the shared store does not know. A Redis
// that came back empty (restarted without persistence, or flushed) has
// lost the seed and the configured tokens, and every replica would answer
// 403 to wmsmock-dev-token from then on. So an unknown token makes a
// replica look for the seed's marker (one read, on this error path only);
// when it is gone, the replica seeds the records again (once for all
// replicas) and puts the configured tokens back, then checks the token
// again. Tokens created through the API and runs launched are lost with
// the data, as they would be on a single fake restarted without a state
// file.
func (s *Server) recheckIfEmptied(values []string, now time.Time) (auth.Token, auth.Result, error) {
	_, err := s.state.records.Get(metaCollection, seededID)
	switch {
	case err == nil:
		return auth.Token{}, auth.Unknown, nil
	case !errors.Is(err, store.ErrNotFound):
		return auth.Token{}, auth.Unknown, err
	}
	if err := s.state.seedOnce(); err != nil {
		return auth.Token{}, auth.Unknown, fmt.Errorf("seeding the emptied Redis again: %w", err)
	}
	// The configured tokens a reset goes back to stay those of the start:
	// the same names and values, which is what a reset needs.
	if _, err := s.tokens.(*auth.Redis).Ensure(s.redisFixtures...); err != nil {
		return auth.Token{}, auth.Unknown, fmt.Errorf("putting the configured tokens back in the emptied Redis: %w", err)
	}
	s.logger.Warn("redis had lost the fake's state: seed and configured tokens put back")
	return auth.CheckHeaders(s.tokens, values, now, s.authOptions...)
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
