package auth

import (
	"context"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisStore is the Store kept in Redis, so that several replicas of the fake
// behind one load balancer hold one set of tokens: a token created through
// one replica authenticates on every other, and one revoked or deleted
// anywhere is refused everywhere.
//
// As in memory, a token's value is never stored, only its SHA-256 (as hex).
// Layout, under a key prefix P:
//
//	P:next        the last id handed out (INCR)
//	P:t:<id>      one token, a hash: name, hash, created, expires,
//	              lastUsed (Unix nanoseconds), revoked, pinned ("1")
//	P:byhash      hash: the value's SHA-256 in hex -> id
//	P:byname      hash: name -> id
//	P:ids         sorted set of ids, for List in id order
//
// Every method is one Lua script, so each change is atomic on the server
// and no two replicas can both take a name or hand out an id twice. Each
// call to Redis is bounded by the store's timeout (WithTimeout); a failure
// to reach it comes back wrapping ErrUnavailable.
type redisStore struct {
	minter
	c       redis.UniversalClient
	p       string
	timeout time.Duration
}

var _ Shared = (*redisStore)(nil)

// Shared is the token store that replicas of one fake share (NewRedis): a
// Store that also takes the one-trip lookup and touch the pipeline uses on
// every call, and seeds the configured tokens in a way every replica can
// run at start.
type Shared interface {
	Store
	// Use is Lookup, then Touch when the token is usable at now, in one
	// round trip.
	Use(value string, now time.Time) (Token, bool, error)
	// Ensure makes the configured tokens present and returns them.
	Ensure(fixtures ...Fixture) ([]Token, error)
}

// NewRedis returns a token store on client c under key prefix. It holds
// nothing of its own: every replica given the same Redis and prefix sees
// the same tokens.
func NewRedis(c redis.UniversalClient, prefix string, opts ...Option) Shared {
	cf := newConfig(opts)
	return &redisStore{minter: minter{clock: cf.clock, rand: cf.rand}, c: c, p: prefix, timeout: cf.timeout}
}

func (r *redisStore) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), r.timeout)
}

// keys are the four index keys every script takes, in this order.
func (r *redisStore) keys() []string {
	return []string{r.p + ":next", r.p + ":byname", r.p + ":byhash", r.p + ":ids"}
}

func (r *redisStore) tokPrefix() string { return r.p + ":t:" }

func unavailable(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}

func nanos(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

func optNanos(t *time.Time) string {
	if t == nil {
		return ""
	}
	return nanos(*t)
}

// insertScript adds a token unless its name or hash is taken (-1, -2).
// KEYS: next, byname, byhash, ids. ARGV: name, hash, created, expires,
// pinned, the token key prefix, and the id (one reserved with INCR on
// next) or "" to take the next.
var insertScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return -1 end
if redis.call('HEXISTS', KEYS[3], ARGV[2]) == 1 then return -2 end
local id = tonumber(ARGV[7])
if not id then id = redis.call('INCR', KEYS[1]) end
local k = ARGV[6] .. id
redis.call('HSET', k, 'name', ARGV[1], 'hash', ARGV[2], 'created', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', k, 'expires', ARGV[4]) end
if ARGV[5] == '1' then redis.call('HSET', k, 'pinned', '1') end
redis.call('HSET', KEYS[2], ARGV[1], id)
redis.call('HSET', KEYS[3], ARGV[2], id)
redis.call('ZADD', KEYS[4], id, id)
return id
`)

// Add implements Store.
func (r *redisStore) Add(name, value string, expires *time.Time) (Token, error) {
	hash, err := addable(name, value)
	if err != nil {
		return Token{}, err
	}
	return r.insert(name, hash, expires, true, "")
}

// Create implements Store. As in memory, the value is in the service's
// format and carries the token's id, so the id is reserved first (an id
// reserved for a name already taken is skipped, never reused).
func (r *redisStore) Create(name string) (Token, string, error) {
	if name == "" {
		return Token{}, "", ErrInvalidName
	}
	sig, err := r.signature()
	if err != nil {
		return Token{}, "", err
	}
	ctx, cancel := r.ctx()
	id, err := r.c.Incr(ctx, r.p+":next").Result()
	cancel()
	if err != nil {
		return Token{}, "", unavailable(err)
	}
	value := ServiceValue(id, sig)
	t, err := r.insert(name, HashValue(value), nil, false, strconv.FormatInt(id, 10))
	if err != nil {
		return Token{}, "", err
	}
	return t, value, nil
}

// insert runs insertScript; id is the token's id, or "" for the next.
func (r *redisStore) insert(name string, hash [32]byte, expires *time.Time, pinned bool, id string) (Token, error) {
	now := r.clock.Now().UTC()
	pin := ""
	if pinned {
		pin = "1"
	}
	ctx, cancel := r.ctx()
	defer cancel()
	got, err := insertScript.Run(ctx, r.c, r.keys(), name, hex.EncodeToString(hash[:]), nanos(now),
		optNanos(expires), pin, r.tokPrefix(), id).Int64()
	switch {
	case err != nil:
		return Token{}, unavailable(err)
	case got == -1:
		return Token{}, ErrDuplicateName
	case got == -2:
		return Token{}, ErrDuplicateValue
	}
	return Token{ID: got, Name: name, Hash: hash, Created: now, Expires: copyTime(utc(expires)), Pinned: pinned}, nil
}

// lookupScript finds a token by hash: {id, fields...} or nil.
// KEYS: byhash. ARGV: hash, the token key prefix.
var lookupScript = redis.NewScript(`
local id = redis.call('HGET', KEYS[1], ARGV[1])
if not id then return false end
return {id, redis.call('HGETALL', ARGV[2] .. id)}
`)

// Lookup implements Store. As in memory, it finds the token by the
// value's hash, and the final comparison of hashes is constant-time.
func (r *redisStore) Lookup(value string) (Token, bool, error) {
	return r.find(lookupScript, value)
}

// find runs script, one of the scripts that find a token by its value's
// hash (ARGV[1]) under the token key prefix (ARGV[2]), with any further
// arguments, and checks the hash it returns.
func (r *redisStore) find(script *redis.Script, value string, more ...any) (Token, bool, error) {
	h := HashValue(value)
	ctx, cancel := r.ctx()
	defer cancel()
	args := append([]any{hex.EncodeToString(h[:]), r.tokPrefix()}, more...)
	res, err := script.Run(ctx, r.c, []string{r.p + ":byhash"}, args...).Slice()
	if errors.Is(err, redis.Nil) {
		return Token{}, false, nil
	}
	if err != nil {
		return Token{}, false, unavailable(err)
	}
	t, ok, err := decodeEntry(res)
	if err != nil || !ok {
		return Token{}, false, err
	}
	if subtle.ConstantTimeCompare(t.Hash[:], h[:]) != 1 {
		return Token{}, false, nil
	}
	return t, true, nil
}

// useScript is lookupScript that also sets lastUsed to ARGV[3] when the
// token is usable then: not revoked, and not expired (an expiry at or
// before now). Times are Unix nanoseconds as decimal text, compared by
// length, then as text, so no precision is lost to Lua's doubles.
var useScript = redis.NewScript(`
local id = redis.call('HGET', KEYS[1], ARGV[1])
if not id then return false end
local k = ARGV[2] .. id
local f = redis.call('HGETALL', k)
local revoked = redis.call('HGET', k, 'revoked')
local expires = redis.call('HGET', k, 'expires')
local now = ARGV[3]
local expired = expires and (#expires < #now or (#expires == #now and expires <= now))
if #f > 0 and revoked ~= '1' and not expired then redis.call('HSET', k, 'lastUsed', now) end
return {id, f}
`)

// Use implements the one-step check of auth.Check (see user).
func (r *redisStore) Use(value string, now time.Time) (Token, bool, error) {
	return r.find(useScript, value, nanos(now))
}

// touchScript sets lastUsed on a token that still exists.
var touchScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'lastUsed', ARGV[1]) end
return 1
`)

// Touch implements Store.
func (r *redisStore) Touch(id int64, at time.Time) error {
	ctx, cancel := r.ctx()
	defer cancel()
	return unavailable(touchScript.Run(ctx, r.c, []string{r.tokKey(id)}, nanos(at)).Err())
}

func (r *redisStore) tokKey(id int64) string { return r.tokPrefix() + strconv.FormatInt(id, 10) }

// revokeScript marks a token revoked: 1, or 0 when there is none.
var revokeScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'revoked', '1')
return 1
`)

// Revoke implements Store.
func (r *redisStore) Revoke(id int64) error {
	ctx, cancel := r.ctx()
	defer cancel()
	n, err := revokeScript.Run(ctx, r.c, []string{r.tokKey(id)}).Int()
	if err != nil {
		return unavailable(err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// listScript returns every token, in id order: {id, fields, id, fields...}.
// KEYS: ids. ARGV: the token key prefix.
var listScript = redis.NewScript(`
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGETALL', ARGV[1] .. id)
end
return out
`)

// List implements Store.
func (r *redisStore) List() ([]Token, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	res, err := listScript.Run(ctx, r.c, []string{r.p + ":ids"}, r.tokPrefix()).Slice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, unavailable(err)
	}
	out := make([]Token, 0, len(res)/2)
	for i := 0; i+1 < len(res); i += 2 {
		t, ok, err := decodeEntry(res[i : i+2])
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// dropLua deletes token x and its index entries (KEYS as in the scripts
// that embed it; ARGV[1] is the token key prefix).
const dropLua = `
local function drop(x)
  local k = ARGV[1] .. x
  local f = redis.call('HMGET', k, 'name', 'hash')
  if f[1] then redis.call('HDEL', KEYS[2], f[1]) end
  if f[2] then redis.call('HDEL', KEYS[3], f[2]) end
  redis.call('DEL', k)
  redis.call('ZREM', KEYS[4], x)
end
`

// deleteScript removes one token: 1, or 0 when there is none.
// ARGV: the token key prefix, the id.
var deleteScript = redis.NewScript(dropLua + `
if redis.call('EXISTS', ARGV[1] .. ARGV[2]) == 0 then return 0 end
drop(ARGV[2])
return 1
`)

// Delete implements Store.
func (r *redisStore) Delete(id int64) error {
	ctx, cancel := r.ctx()
	defer cancel()
	n, err := deleteScript.Run(ctx, r.c, r.keys(), r.tokPrefix(), id).Int()
	if err != nil {
		return unavailable(err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// deleteAllScript removes every token that is not pinned; it returns how
// many. ARGV: the token key prefix.
var deleteAllScript = redis.NewScript(dropLua + `
local n = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  if redis.call('HGET', ARGV[1] .. id, 'pinned') ~= '1' then
    drop(id)
    n = n + 1
  end
end
return n
`)

// DeleteAll implements Store.
func (r *redisStore) DeleteAll() (int, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	n, err := deleteAllScript.Run(ctx, r.c, r.keys(), r.tokPrefix()).Int()
	return n, unavailable(err)
}

// Snapshot implements Store.
func (r *redisStore) Snapshot() ([]Token, error) { return r.List() }

// restoreScript replaces every token with the ones given. ARGV: the token
// key prefix, the highest id given, then eight values per token: id, name,
// hash, created, expires, lastUsed, revoked, pinned.
var restoreScript = redis.NewScript(`
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do redis.call('DEL', ARGV[1] .. id) end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
local next = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[2]) > next then redis.call('SET', KEYS[1], ARGV[2]) end
for i = 3, #ARGV, 8 do
  local id = ARGV[i]
  local k = ARGV[1] .. id
  redis.call('HSET', k, 'name', ARGV[i+1], 'hash', ARGV[i+2], 'created', ARGV[i+3])
  if ARGV[i+4] ~= '' then redis.call('HSET', k, 'expires', ARGV[i+4]) end
  if ARGV[i+5] ~= '' then redis.call('HSET', k, 'lastUsed', ARGV[i+5]) end
  if ARGV[i+6] == '1' then redis.call('HSET', k, 'revoked', '1') end
  if ARGV[i+7] == '1' then redis.call('HSET', k, 'pinned', '1') end
  redis.call('HSET', KEYS[2], ARGV[i+1], id)
  redis.call('HSET', KEYS[3], ARGV[i+2], id)
  redis.call('ZADD', KEYS[4], id, id)
end
return 1
`)

// Restore implements Store. The snapshot is checked whole first (by the
// same rules as memory's), then swapped in by one script, so every replica
// sees either the old tokens or the new ones. Ids never go back: new ones
// continue after the highest ever handed out.
func (r *redisStore) Restore(tokens []Token) error {
	if err := NewMemory().Restore(tokens); err != nil {
		return err
	}
	var maxID int64
	args := []any{r.tokPrefix(), 0}
	for _, t := range tokens {
		maxID = max(maxID, t.ID)
		args = append(args, t.ID, t.Name, hex.EncodeToString(t.Hash[:]), nanos(t.Created),
			optNanos(t.Expires), optNanos(t.LastUsed), flag(t.Revoked), flag(t.Pinned))
	}
	args[1] = maxID
	ctx, cancel := r.ctx()
	defer cancel()
	return unavailable(restoreScript.Run(ctx, r.c, r.keys(), args...).Err())
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return ""
}

// ensureScript puts a configured token in place, idempotently: the token
// holding the hash, else the one holding the name, is made this one
// (name, hash, expiry; pinned, not revoked), and another token holding the
// name is dropped; with neither, a new one is added. It returns the id.
// ARGV: the token key prefix, name, hash, created, expires.
var ensureScript = redis.NewScript(dropLua + `
local id = redis.call('HGET', KEYS[3], ARGV[3])
local byName = redis.call('HGET', KEYS[2], ARGV[2])
if not id then id = byName end
if id and byName and byName ~= id then drop(byName) end
local k
if id then
  k = ARGV[1] .. id
  local f = redis.call('HMGET', k, 'name', 'hash')
  if f[1] then redis.call('HDEL', KEYS[2], f[1]) end
  if f[2] then redis.call('HDEL', KEYS[3], f[2]) end
else
  id = redis.call('INCR', KEYS[1])
  k = ARGV[1] .. id
  redis.call('HSET', k, 'created', ARGV[4])
end
redis.call('HSET', k, 'name', ARGV[2], 'hash', ARGV[3], 'pinned', '1')
redis.call('HDEL', k, 'revoked')
if ARGV[5] ~= '' then redis.call('HSET', k, 'expires', ARGV[5]) else redis.call('HDEL', k, 'expires') end
redis.call('HSET', KEYS[2], ARGV[2], id)
redis.call('HSET', KEYS[3], ARGV[3], id)
redis.call('ZADD', KEYS[4], id, id)
return id
`)

// Ensure puts the fake's configured tokens in the shared store and returns
// them as stored. Unlike Add it is idempotent, because every replica
// starting on the same Redis runs it: a token already held (by value, or
// by name) is made the configured one, pinned and not revoked, keeping its
// id, creation time and last use; only a missing one is added. So the
// configuration a replica starts with wins over what the store held, as it
// does over a state file (a replica started with other tokens replaces
// those of the same name).
func (r *redisStore) Ensure(fixtures ...Fixture) ([]Token, error) {
	out := make([]Token, 0, len(fixtures))
	for _, f := range fixtures {
		if f.Name == "" {
			return nil, fmt.Errorf("token fixture: %w", ErrInvalidName)
		}
		if !ValidValue(f.Value) {
			return nil, fmt.Errorf("token fixture %q: %w", f.Name, ErrInvalidValue)
		}
		h := HashValue(f.Value)
		ctx, cancel := r.ctx()
		_, err := ensureScript.Run(ctx, r.c, r.keys(), r.tokPrefix(), f.Name, hex.EncodeToString(h[:]),
			nanos(r.clock.Now().UTC()), optNanos(f.Expires)).Int64()
		cancel()
		if err != nil {
			return nil, unavailable(err)
		}
		t, ok, err := r.Lookup(f.Value)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("token fixture %q: %w: it went missing right after it was stored", f.Name, ErrUnavailable)
		}
		out = append(out, t)
	}
	return out, nil
}

// decodeEntry reads {id, {field, value, ...}} as a script returns it; ok is
// false for a token deleted between the index read and the hash read.
func decodeEntry(res []any) (Token, bool, error) {
	if len(res) != 2 {
		return Token{}, false, fmt.Errorf("%w: unexpected reply %v", ErrUnavailable, res)
	}
	idText, _ := res[0].(string)
	fields, _ := res[1].([]any)
	if len(fields) == 0 {
		return Token{}, false, nil
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return Token{}, false, fmt.Errorf("auth: stored token id %q: %w", idText, err)
	}
	t := Token{ID: id}
	for i := 0; i+1 < len(fields); i += 2 {
		k, _ := fields[i].(string)
		v, _ := fields[i+1].(string)
		switch k {
		case "name":
			t.Name = v
		case "hash":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != len(t.Hash) {
				return Token{}, false, fmt.Errorf("auth: stored token %d has a damaged hash", id)
			}
			copy(t.Hash[:], b)
		case "created", "expires", "lastUsed":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return Token{}, false, fmt.Errorf("auth: stored token %d: %s %q: %w", id, k, v, err)
			}
			at := time.Unix(0, n).UTC()
			switch k {
			case "created":
				t.Created = at
			case "expires":
				t.Expires = &at
			default:
				t.LastUsed = &at
			}
		case "revoked":
			t.Revoked = v == "1"
		case "pinned":
			t.Pinned = v == "1"
		}
	}
	return t, true, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
