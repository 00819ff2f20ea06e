package faults

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/profile"
)

// Redis is a Store in Redis, shared by the replicas of a fake: a rule
// added through one replica is applied by every one from its next call,
// and the uses of a rule ("the next 3 calls", "removed after 2 answers")
// are counted across them, each count one atomic step on the Redis
// server (a Lua script), so two replicas never both take the last use.
//
// Layout, under a key prefix P:
//
//	P:version  counter, raised by every change to the rules
//	P:next     counter, the number of the next added rule
//	P:rules    hash: id -> the rule (Stored, JSON)
//	P:pinned   hash: id -> a pinned rule, what Reset puts back
//	P:hits     hash: id -> uses
//	P:seen     hash: id -> calls selected, for shares
//
// Each call of the fake reads P:version (one GET) and the rules only when
// it has changed.
type Redis struct {
	c       redis.UniversalClient
	p       string
	timeout time.Duration
}

var _ Store = (*Redis)(nil)

// ErrUnavailable wraps a failure to reach Redis.
var ErrUnavailable = errors.New("faults: rule store unavailable")

// NewRedis returns a store in c under prefix; timeout bounds each call
// to Redis (0: 2s).
func NewRedis(c redis.UniversalClient, prefix string, timeout time.Duration) *Redis {
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	return &Redis{c: c, p: prefix, timeout: timeout}
}

func (r *Redis) key(name string) string { return r.p + ":" + name }

func (r *Redis) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), r.timeout)
}

func unavailable(err error) error { return fmt.Errorf("%w: %v", ErrUnavailable, err) }

// Version implements Store.
func (r *Redis) Version() (int64, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	v, err := r.c.Get(ctx, r.key("version")).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailable(err)
	}
	return v, nil
}

// Rules implements Store: the version and the rules in one transaction,
// so the rules are those of the version.
func (r *Redis) Rules() ([]Stored, int64, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	var version *redis.StringCmd
	var rules *redis.MapStringStringCmd
	_, err := r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		version = p.Get(ctx, r.key("version"))
		rules = p.HGetAll(ctx, r.key("rules"))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, unavailable(err)
	}
	v, err := version.Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, unavailable(err)
	}
	out := make([]Stored, 0, len(rules.Val()))
	for id, data := range rules.Val() {
		var s Stored
		if err := json.Unmarshal([]byte(data), &s); err != nil {
			return nil, 0, fmt.Errorf("faults: rule %s in Redis: %w", id, err)
		}
		s.ID = id
		if !s.Pinned {
			s.Seq = seqOf(id)
		}
		out = append(out, s)
	}
	return out, v, nil
}

// addScript keeps a rule under the next number unless the store is full.
// KEYS: rules, next, version. ARGV: kind, cap, the rule's JSON. The
// number in the id is the rule's order (seqOf).
var addScript = redis.NewScript(`
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[2]) then return '' end
local n = redis.call('INCR', KEYS[2])
local id = ARGV[1] .. '-' .. n
redis.call('HSET', KEYS[1], id, ARGV[3])
redis.call('INCR', KEYS[3])
return id
`)

// seqOf is an added rule's number, from its id (fault-12: 12).
func seqOf(id string) int64 {
	i := strings.LastIndexByte(id, '-')
	n, _ := strconv.ParseInt(id[i+1:], 10, 64)
	return n
}

// Add implements Store.
func (r *Redis) Add(s Stored) (Stored, error) {
	s.Seq, s.Pinned = 0, false
	data, err := json.Marshal(s)
	if err != nil {
		return Stored{}, err
	}
	ctx, cancel := r.ctx()
	defer cancel()
	id, err := addScript.Run(ctx, r.c, []string{r.key("rules"), r.key("next"), r.key("version")},
		string(s.Kind), profile.MaxFaultRules, string(data)).Text()
	if err != nil {
		return Stored{}, unavailable(err)
	}
	if id == "" {
		return Stored{}, ErrFull
	}
	s.ID, s.Seq = id, seqOf(id)
	return s, nil
}

// pinScript makes ARGV (id, rule pairs) the pinned rules: a rule pinned
// as it already was is left alone (a spent one stays spent), a new or
// changed one is kept and its counts cleared, and pinned rules not given
// are removed. KEYS: pinned, rules, hits, seen, version.
var pinScript = redis.NewScript(`
local keep = {}
for i = 1, #ARGV, 2 do
  local id, rule = ARGV[i], ARGV[i+1]
  keep[id] = true
  if redis.call('HGET', KEYS[1], id) ~= rule then
    redis.call('HSET', KEYS[1], id, rule)
    redis.call('HSET', KEYS[2], id, rule)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
  end
end
for _, id in ipairs(redis.call('HKEYS', KEYS[1])) do
  if not keep[id] then
    redis.call('HDEL', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
  end
end
return redis.call('INCR', KEYS[5])
`)

// Pin implements Store.
func (r *Redis) Pin(rules []Stored) error {
	args := make([]any, 0, 2*len(rules))
	for _, s := range rules {
		s.Pinned = true
		data, err := json.Marshal(s)
		if err != nil {
			return err
		}
		args = append(args, s.ID, string(data))
	}
	ctx, cancel := r.ctx()
	defer cancel()
	if err := pinScript.Run(ctx, r.c, r.keys("pinned", "rules", "hits", "seen", "version"), args...).Err(); err != nil {
		return unavailable(err)
	}
	return nil
}

func (r *Redis) keys(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = r.key(n)
	}
	return out
}

// removeScript removes ARGV[1] and its counts. KEYS: rules, hits, seen,
// version.
var removeScript = redis.NewScript(`
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('INCR', KEYS[4])
return 1
`)

// Remove implements Store.
func (r *Redis) Remove(id string) (bool, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	n, err := removeScript.Run(ctx, r.c, r.keys("rules", "hits", "seen", "version"), id).Int()
	if err != nil {
		return false, unavailable(err)
	}
	return n == 1, nil
}

// RemoveKind implements Store.
func (r *Redis) RemoveKind(k Kind) (int, error) {
	stored, _, err := r.Rules()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range stored {
		if s.Kind != k {
			continue
		}
		ok, err := r.Remove(s.ID)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// hitScript counts a use of ARGV[1] unless it is gone, and removes it
// with the use that reaches ARGV[2] (> 0). KEYS: rules, hits, seen,
// version.
var hitScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
local n = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
local limit = tonumber(ARGV[2])
if limit > 0 and n >= limit then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('INCR', KEYS[4])
end
return n
`)

// Hit implements Store.
func (r *Redis) Hit(id string, limit int64) (int64, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	n, err := hitScript.Run(ctx, r.c, r.keys("rules", "hits", "seen", "version"), id, limit).Int64()
	if err != nil {
		return 0, unavailable(err)
	}
	return n, nil
}

// seenScript counts a call ARGV[1] selected, unless it is gone. KEYS:
// rules, seen.
var seenScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
return redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
`)

// Seen implements Store.
func (r *Redis) Seen(id string) (int64, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	n, err := seenScript.Run(ctx, r.c, r.keys("rules", "seen"), id).Int64()
	if err != nil {
		return 0, unavailable(err)
	}
	return n, nil
}

// Hits implements Store.
func (r *Redis) Hits() (map[string]int64, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	m, err := r.c.HGetAll(ctx, r.key("hits")).Result()
	if err != nil {
		return nil, unavailable(err)
	}
	out := make(map[string]int64, len(m))
	for id, v := range m {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("faults: hits of %s in Redis: %q", id, v)
		}
		out[id] = n
	}
	return out, nil
}

// resetScript empties the rules and counts and puts the pinned rules
// back. KEYS: rules, hits, seen, pinned, version.
var resetScript = redis.NewScript(`
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
local pinned = redis.call('HGETALL', KEYS[4])
if #pinned > 0 then redis.call('HSET', KEYS[1], unpack(pinned)) end
return redis.call('INCR', KEYS[5])
`)

// Reset implements Store.
func (r *Redis) Reset() error {
	ctx, cancel := r.ctx()
	defer cancel()
	if err := resetScript.Run(ctx, r.c, r.keys("rules", "hits", "seen", "pinned", "version")).Err(); err != nil {
		return unavailable(err)
	}
	return nil
}
