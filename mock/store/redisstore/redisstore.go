// Package redisstore keeps the fake's records in Redis, so that several
// replicas of the fake, behind one load balancer, share one state: a run
// launched through one replica is described, listed and cancelled through
// any other.
//
// Layout, under a key prefix (P):
//
//	P:seq                  the insertion counter (Record.Seq)
//	P:colls                the set of collection names
//	P:ids:<coll>           the set of a collection's record ids
//	P:r:<coll>:<id>        one record and where it is filed (JSON)
//	P:ver:<coll>           the collection's version (see store.Store)
//	P:ctr                  NextSeq's counters, one hash field per collection
//	P:l:<coll>:<list>      an ordered list: a sorted set whose members all
//	                       score 0 and sort by their text, which begins with
//	                       the record's time and Seq (oldest first), then
//	                       its id and search text
//
// Every change of one record is atomic: inserts run as one Lua script,
// updates and deletes as optimistic transactions on the record's key.
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/store"
)

// Store is a store.Store on Redis. Build it with New.
type Store struct {
	c       redis.UniversalClient
	p       string
	timeout time.Duration

	mu       sync.RWMutex
	indexers map[string]store.Indexer
}

var _ store.Store = (*Store)(nil)

// New returns a store on client c, keeping its keys under prefix. Each
// call to Redis is bounded by timeout (a dead server fails calls instead
// of holding them).
func New(c redis.UniversalClient, prefix string, timeout time.Duration) *Store {
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	return &Store{c: c, p: prefix, timeout: timeout, indexers: map[string]store.Indexer{}}
}

// ErrUnavailable wraps every failure to reach Redis, so callers can tell
// a store that is down from a record that is missing.
var ErrUnavailable = errors.New("redisstore: redis unavailable")

func unavailable(err error) error {
	if err == nil || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrExists) || errors.Is(err, store.ErrInvalid) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.timeout)
}

func (s *Store) seqKey() string                { return s.p + ":seq" }
func (s *Store) collsKey() string              { return s.p + ":colls" }
func (s *Store) idsKey(coll string) string     { return s.p + ":ids:" + coll }
func (s *Store) recKey(coll, id string) string { return s.p + ":r:" + coll + ":" + id }
func (s *Store) verKey(coll string) string     { return s.p + ":ver:" + coll }
func (s *Store) ctrKey() string                { return s.p + ":ctr" }
func (s *Store) listKey(coll, list string) string {
	return s.p + ":l:" + coll + ":" + list
}

// stored is a record as kept, with where it was filed.
type stored struct {
	R      store.Record `json:"r"`
	Lists  []string     `json:"lists,omitempty"`
	Member string       `json:"member,omitempty"`
}

// timeBias makes every representable time's Unix seconds positive, so
// that zero-padded decimal text sorts as the times do.
const timeBias = int64(1) << 40

// member is r's entry in its lists: its time (seconds and nanoseconds)
// and Seq as fixed-width decimals, so that text order is time order, then
// its id, and its search text after a NUL.
func member(r store.Record, text string) string {
	return fmt.Sprintf("%020d:%09d:%020d:%s\x00%s", r.Created.Unix()+timeBias, r.Created.Nanosecond(), r.Seq, r.ID, text)
}

func (s *Store) indexer(coll string) store.Indexer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.indexers[coll]
}

// file computes where r goes.
func (s *Store) file(coll string, r store.Record) stored {
	st := stored{R: r}
	if ix := s.indexer(coll); ix != nil {
		lists, text := ix(r)
		if len(lists) > 0 {
			st.Lists, st.Member = lists, member(r, text)
		}
	}
	return st
}

// insertScript adds a record unless its id is taken: KEYS are the record,
// the id set, the collection set, the version, then the lists; ARGV the
// stored JSON, the id, the collection name and the list member.
var insertScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('INCR', KEYS[4])
for i = 5, #KEYS do redis.call('ZADD', KEYS[i], 0, ARGV[4]) end
return 1
`)

// Insert implements store.Store.
func (s *Store) Insert(coll string, r store.Record) (store.Record, error) {
	if coll == "" || r.ID == "" {
		return store.Record{}, fmt.Errorf("%w: empty collection name or id", store.ErrInvalid)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	seq, err := s.c.Incr(ctx, s.seqKey()).Uint64()
	if err != nil {
		return store.Record{}, unavailable(err)
	}
	r.Seq = seq
	st := s.file(coll, r)
	b, err := json.Marshal(st)
	if err != nil {
		return store.Record{}, err
	}
	keys := []string{s.recKey(coll, r.ID), s.idsKey(coll), s.collsKey(), s.verKey(coll)}
	for _, l := range st.Lists {
		keys = append(keys, s.listKey(coll, l))
	}
	n, err := insertScript.Run(ctx, s.c, keys, b, r.ID, coll, st.Member).Int()
	if err != nil {
		return store.Record{}, unavailable(err)
	}
	if n == 0 {
		return store.Record{}, store.ErrExists
	}
	return r, nil
}

func (s *Store) read(ctx context.Context, c redis.Cmdable, coll, id string) (stored, error) {
	b, err := c.Get(ctx, s.recKey(coll, id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return stored{}, store.ErrNotFound
	}
	if err != nil {
		return stored{}, unavailable(err)
	}
	var st stored
	if err := json.Unmarshal(b, &st); err != nil {
		return stored{}, fmt.Errorf("redisstore: record %s/%s: %w", coll, id, err)
	}
	return st, nil
}

// Get implements store.Store.
func (s *Store) Get(coll, id string) (store.Record, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	st, err := s.read(ctx, s.c, coll, id)
	return st.R, err
}

// maxRetries bounds the optimistic transactions' retries under contention.
const maxRetries = 50

// change runs an optimistic transaction on one record: fn sees the stored
// record and queues the writes.
func (s *Store) change(coll, id string, fn func(ctx context.Context, st stored, pipe redis.Pipeliner) (stored, error)) (stored, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	key := s.recKey(coll, id)
	var out stored
	for range maxRetries {
		// own holds the errors that are not Redis's: a missing record, the
		// caller's function failing.
		var own error
		err := s.c.Watch(ctx, func(tx *redis.Tx) error {
			st, err := s.read(ctx, tx, coll, id)
			if err != nil {
				own = err
				return err
			}
			_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
				out, own = fn(ctx, st, pipe)
				return own
			})
			return err
		}, key)
		switch {
		case own != nil:
			return stored{}, own
		case errors.Is(err, redis.TxFailedErr):
			continue // the record changed meanwhile: read it again
		}
		return out, unavailable(err)
	}
	return stored{}, fmt.Errorf("%w: record %s/%s kept changing under %d attempts", ErrUnavailable, coll, id, maxRetries)
}

func (s *Store) unlist(ctx context.Context, pipe redis.Pipeliner, coll string, st stored) {
	for _, l := range st.Lists {
		pipe.ZRem(ctx, s.listKey(coll, l), st.Member)
	}
}

// Update implements store.Store.
func (s *Store) Update(coll, id string, fn func(*store.Record) error) (store.Record, error) {
	st, err := s.change(coll, id, func(ctx context.Context, old stored, pipe redis.Pipeliner) (stored, error) {
		work := old.R
		if err := fn(&work); err != nil {
			return stored{}, err
		}
		work.ID, work.Seq = old.R.ID, old.R.Seq
		next := s.file(coll, work)
		b, err := json.Marshal(next)
		if err != nil {
			return stored{}, err
		}
		s.unlist(ctx, pipe, coll, old)
		pipe.Set(ctx, s.recKey(coll, id), b, 0)
		for _, l := range next.Lists {
			pipe.ZAdd(ctx, s.listKey(coll, l), redis.Z{Member: next.Member})
		}
		pipe.Incr(ctx, s.verKey(coll))
		return next, nil
	})
	return st.R, err
}

// Delete implements store.Store.
func (s *Store) Delete(coll, id string) error {
	_, err := s.change(coll, id, func(ctx context.Context, old stored, pipe redis.Pipeliner) (stored, error) {
		s.unlist(ctx, pipe, coll, old)
		pipe.Del(ctx, s.recKey(coll, id))
		pipe.SRem(ctx, s.idsKey(coll), id)
		pipe.Incr(ctx, s.verKey(coll))
		return old, nil
	})
	return err
}

// List implements store.Store. It reads the whole collection: callers use
// it for small collections only (runs are read a page at a time).
func (s *Store) List(coll string) ([]store.Record, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	ids, err := s.c.SMembers(ctx, s.idsKey(coll)).Result()
	if err != nil {
		return nil, unavailable(err)
	}
	out, err := s.getAll(ctx, coll, ids)
	if err != nil {
		return nil, err
	}
	store.SortNewestFirst(out)
	return out, nil
}

// getAll reads records by id, skipping ids deleted meanwhile.
func (s *Store) getAll(ctx context.Context, coll string, ids []string) ([]store.Record, error) {
	out := make([]store.Record, 0, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = s.recKey(coll, id)
	}
	vals, err := s.c.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, unavailable(err)
	}
	for i, v := range vals {
		str, ok := v.(string)
		if !ok {
			continue
		}
		var st stored
		if err := json.Unmarshal([]byte(str), &st); err != nil {
			return nil, fmt.Errorf("redisstore: record %s/%s: %w", coll, ids[i], err)
		}
		out = append(out, st.R)
	}
	return out, nil
}

// Version implements store.Store.
func (s *Store) Version(coll string) (uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	v, err := s.c.Get(ctx, s.verKey(coll)).Uint64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return v, unavailable(err)
}

// NextSeq implements store.Store.
func (s *Store) NextSeq(coll string) (int64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	n, err := s.c.HIncrBy(ctx, s.ctrKey(), coll, 1).Result()
	return n, unavailable(err)
}

// Pack implements store.Store. The records live in Redis, whose memory
// this process does not hold, so it changes nothing.
func (s *Store) Pack(string) error { return nil }

// Index implements store.Store. Every replica registers the same indexer
// at start; records are filed by the replica that writes them.
func (s *Store) Index(coll string, ix store.Indexer) error {
	if coll == "" {
		return fmt.Errorf("%w: empty collection name", store.ErrInvalid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ix == nil {
		delete(s.indexers, coll)
	} else {
		s.indexers[coll] = ix
	}
	return nil
}

// searchScript pages through the newest ARGV[1] members of a list (KEYS[1])
// keeping those whose search text holds ARGV[2] as plain text; it returns
// the total of matches and the matching members from ARGV[3] (offset), at
// most ARGV[4] of them. Running in Redis, it sends back only the page.
var searchScript = redis.NewScript(`
local ms = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local off, lim = tonumber(ARGV[3]), tonumber(ARGV[4])
local total, page = 0, {}
for _, m in ipairs(ms) do
  local nul = string.find(m, '\0', 1, true)
  if nul and string.find(string.sub(m, nul + 1), ARGV[2], 1, true) then
    if total >= off and total - off < lim then page[#page + 1] = m end
    total = total + 1
  end
end
return {total, page}
`)

// Page implements store.Store: a page costs one range read of the sorted
// set and one read of the page's records; a search, the window.
func (s *Store) Page(coll string, q store.Query) ([]store.Record, int, error) {
	if q.Offset < 0 || q.Limit < 0 {
		return nil, 0, fmt.Errorf("%w: negative offset or limit", store.ErrInvalid)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	key := s.listKey(coll, q.List)
	var members []string
	var total int
	if q.Contains == "" {
		pipe := s.c.Pipeline()
		card := pipe.ZCard(ctx, key)
		var rng *redis.StringSliceCmd
		if q.Limit > 0 {
			rng = pipe.ZRevRange(ctx, key, int64(q.Offset), int64(q.Offset+q.Limit-1))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, 0, unavailable(err)
		}
		total = int(card.Val())
		if rng != nil {
			members = rng.Val()
		}
	} else {
		res, err := searchScript.Run(ctx, s.c, []string{key}, q.SearchWindow(), q.Contains, q.Offset, q.Limit).Slice()
		if err != nil {
			return nil, 0, unavailable(err)
		}
		if len(res) == 2 {
			t, _ := res[0].(int64)
			total = int(t)
			ms, _ := res[1].([]any)
			for _, m := range ms {
				if str, ok := m.(string); ok {
					members = append(members, str)
				}
			}
		}
	}
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = memberID(m)
	}
	recs, err := s.getAll(ctx, coll, ids)
	return recs, total, err
}

// memberID reads the id out of a list member: after the two fixed-width
// numbers and their colons, up to the NUL.
func memberID(m string) string {
	const head = 20 + 1 + 9 + 1 + 20 + 1
	if len(m) < head {
		return ""
	}
	m = m[head:]
	if i := strings.IndexByte(m, 0); i >= 0 {
		m = m[:i]
	}
	return m
}

// Snapshot implements store.Store. It reads every record: for the state
// file and the admin API, not for requests.
func (s *Store) Snapshot() (store.Snapshot, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*s.timeout)
	defer cancel()
	snap := store.Snapshot{Collections: map[string][]store.Record{}, Counters: map[string]int64{}}
	colls, err := s.c.SMembers(ctx, s.collsKey()).Result()
	if err != nil {
		return snap, unavailable(err)
	}
	for _, coll := range colls {
		ids, err := s.c.SMembers(ctx, s.idsKey(coll)).Result()
		if err != nil {
			return snap, unavailable(err)
		}
		recs, err := s.getAll(ctx, coll, ids)
		if err != nil {
			return snap, err
		}
		if len(recs) > 0 {
			store.SortNewestFirst(recs)
			snap.Collections[coll] = recs
		}
	}
	ctrs, err := s.c.HGetAll(ctx, s.ctrKey()).Result()
	if err != nil {
		return snap, unavailable(err)
	}
	for k, v := range ctrs {
		n, _ := strconv.ParseInt(v, 10, 64)
		snap.Counters[k] = n
	}
	seq, err := s.c.Get(ctx, s.seqKey()).Uint64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return snap, unavailable(err)
	}
	snap.Seq = seq
	return snap, nil
}

// Restore implements store.Store. It checks the snapshot whole (through
// an in-memory store, which refuses what a damaged one holds), then
// replaces every key under the prefix. Replicas see the change at once.
func (s *Store) Restore(snap store.Snapshot) error {
	if err := store.NewMemory().Restore(snap); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*s.timeout)
	defer cancel()
	colls, err := s.c.SMembers(ctx, s.collsKey()).Result()
	if err != nil {
		return unavailable(err)
	}
	// Versions move on rather than restart, so no reader mistakes the
	// restored collection for the one it last saw.
	vers := map[string]uint64{}
	for _, c := range colls {
		v, _ := s.c.Get(ctx, s.verKey(c)).Uint64()
		vers[c] = v
	}
	var keys []string
	iter := s.c.Scan(ctx, 0, s.p+":*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return unavailable(err)
	}
	pipe := s.c.TxPipeline()
	for i := 0; i < len(keys); i += 500 {
		pipe.Del(ctx, keys[i:min(i+500, len(keys))]...)
	}
	maxSeq := snap.Seq
	for coll, recs := range snap.Collections {
		for _, r := range recs {
			maxSeq = max(maxSeq, r.Seq)
			st := s.file(coll, r)
			b, err := json.Marshal(st)
			if err != nil {
				return err
			}
			pipe.Set(ctx, s.recKey(coll, r.ID), b, 0)
			pipe.SAdd(ctx, s.idsKey(coll), r.ID)
			for _, l := range st.Lists {
				pipe.ZAdd(ctx, s.listKey(coll, l), redis.Z{Member: st.Member})
			}
		}
		if len(recs) > 0 {
			pipe.SAdd(ctx, s.collsKey(), coll)
		}
		if _, ok := vers[coll]; !ok {
			vers[coll] = 0
		}
	}
	for c, v := range vers {
		pipe.Set(ctx, s.verKey(c), v+1, 0)
	}
	for k, v := range snap.Counters {
		pipe.HSet(ctx, s.ctrKey(), k, v)
	}
	if maxSeq > 0 {
		pipe.Set(ctx, s.seqKey(), maxSeq, 0)
	}
	_, err = pipe.Exec(ctx)
	return unavailable(err)
}

// Ping reports whether Redis answers, for the fake's health check.
func (s *Store) Ping() error {
	ctx, cancel := s.ctx()
	defer cancel()
	return unavailable(s.c.Ping(ctx).Err())
}

// Dial connects to the Redis a URL names (redis://[user:password@]host:port/db)
// and checks within timeout that it answers, so a wrong address is a clear
// error at start rather than failed calls later. The caller closes the
// client.
func Dial(url string, timeout time.Duration) (*redis.Client, error) {
	opt, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	c := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("redis at %s: %w", opt.Addr, err)
	}
	return c, nil
}

// ParseURL checks a store URL: redis:// (or rediss:// for TLS) with a
// host and port and an optional database number.
func ParseURL(url string) (*redis.Options, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("not a Redis URL (redis://HOST:PORT/DB): %w", err)
	}
	return opt, nil
}

// Close releases the connection to Redis.
func (s *Store) Close() error { return s.c.Close() }
