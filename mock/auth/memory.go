package auth

import (
	"cmp"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/mock/clock"
)

// valueBytes is how much randomness a created token carries: 256 bits, so
// guessing one is hopeless and two never collide in practice.
const valueBytes = 32

// memStore is the in-process Store, built by NewMemory.
type memStore struct {
	minter

	mu     sync.RWMutex
	nextID int64
	byID   map[int64]*Token
	byHash map[[32]byte]int64
	byName map[string]int64
}

var _ Store = (*memStore)(nil)

// Option configures a Store (NewMemory's or NewRedis's).
type Option func(*config)

type config struct {
	clock   clock.Clock
	rand    io.Reader
	timeout time.Duration
}

func newConfig(opts []Option) config {
	c := config{clock: clock.Real{}, rand: rand.Reader, timeout: 2 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithClock sets the clock that stamps Created (default: the system clock).
func WithClock(c clock.Clock) Option { return func(cf *config) { cf.clock = c } }

// WithRand sets the source of new token values (default: crypto/rand), so a
// test can make Create deterministic.
func WithRand(r io.Reader) Option { return func(cf *config) { cf.rand = r } }

// WithTimeout bounds each call a Redis store makes (default 2s), so a
// Redis that stops answering fails calls instead of holding them. The
// in-process store ignores it.
func WithTimeout(d time.Duration) Option {
	return func(cf *config) {
		if d > 0 {
			cf.timeout = d
		}
	}
}

// minter stamps and makes new tokens: the part of a store that is the
// same wherever the tokens are kept.
type minter struct {
	clock  clock.Clock
	randMu sync.Mutex // an injected reader need not be safe for concurrent use
	rand   io.Reader
}

// signature is the random part of a new token: 32 bytes, so guessing one
// is hopeless.
func (m *minter) signature() ([]byte, error) {
	b := make([]byte, valueBytes)
	m.randMu.Lock()
	_, err := io.ReadFull(m.rand, b)
	m.randMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("auth: generating a token value: %w", err)
	}
	return b, nil
}

// ServiceValue is an access key in the service's own format: base64 of
// {"tid":<id>} followed by a dot and a hex signature. Clients that look
// inside a token treat such a key as the service's: Nextflow's Tower
// client (plugin nf-tower, TowerClient) decodes a token from base64 and,
// when what comes before the first dot is a JSON object, sends it as
// Bearer; any other token goes as Basic. The id is the token's, as on the
// service.
func ServiceValue(id int64, signature []byte) string {
	plain := `{"tid":` + strconv.FormatInt(id, 10) + `}.` + hex.EncodeToString(signature)
	return base64.StdEncoding.EncodeToString([]byte(plain))
}

// NewMemory returns an empty store. IDs start at 1.
func NewMemory(opts ...Option) Store {
	c := newConfig(opts)
	return &memStore{
		minter: minter{clock: c.clock, rand: c.rand},
		nextID: 1,
		byID:   map[int64]*Token{},
		byHash: map[[32]byte]int64{},
		byName: map[string]int64{},
	}
}

// Add implements Store.
func (m *memStore) Add(name, value string, expires *time.Time) (Token, error) {
	hash, err := addable(name, value)
	if err != nil {
		return Token{}, err
	}
	return m.insert(name, func(int64) [32]byte { return hash }, expires, true)
}

// Create implements Store. The value is in the service's format (see
// ServiceValue), so it carries the token's id.
func (m *memStore) Create(name string) (Token, string, error) {
	if name == "" {
		return Token{}, "", ErrInvalidName
	}
	sig, err := m.signature()
	if err != nil {
		return Token{}, "", err
	}
	var value string
	t, err := m.insert(name, func(id int64) [32]byte {
		value = ServiceValue(id, sig)
		return HashValue(value)
	}, nil, false)
	if err != nil {
		return Token{}, "", err
	}
	return t, value, nil
}

// insert stores a token under the next id; hashOf gives its value's hash
// from that id.
func (m *memStore) insert(name string, hashOf func(id int64) [32]byte, expires *time.Time, pinned bool) (Token, error) {
	now := m.clock.Now().UTC()
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.byName[name]; dup {
		return Token{}, ErrDuplicateName
	}
	hash := hashOf(m.nextID)
	if _, dup := m.byHash[hash]; dup {
		return Token{}, ErrDuplicateValue
	}
	t := &Token{ID: m.nextID, Name: name, Hash: hash, Created: now, Expires: copyTime(expires), Pinned: pinned}
	m.nextID++
	m.put(t)
	return t.clone(), nil
}

func (m *memStore) put(t *Token) {
	m.byID[t.ID] = t
	m.byHash[t.Hash] = t.ID
	m.byName[t.Name] = t.ID
}

func (m *memStore) remove(t *Token) {
	delete(m.byID, t.ID)
	delete(m.byHash, t.Hash)
	delete(m.byName, t.Name)
}

// Lookup implements Store.
//
// The index is keyed by the SHA-256 of the value, not the value. A map lookup
// does take time that depends on its key, but what it could leak is bits of a
// hash; knowing those does not help an attacker build a value with that hash
// (SHA-256 is preimage resistant), so timing cannot be used to guess a token
// byte by byte. The final comparison of the stored and presented hashes is
// constant-time all the same, so no code path compares secrets with an
// early-exit loop.
func (m *memStore) Lookup(value string) (Token, bool, error) {
	h := HashValue(value)
	m.mu.RLock()
	defer m.mu.RUnlock()
	t := m.find(h)
	if t == nil {
		return Token{}, false, nil
	}
	return t.clone(), true, nil
}

// find is the stored token whose hash is h, or nil; callers hold m.mu.
func (m *memStore) find(h [32]byte) *Token {
	id, ok := m.byHash[h]
	if !ok {
		return nil
	}
	t := m.byID[id]
	if subtle.ConstantTimeCompare(t.Hash[:], h[:]) != 1 {
		return nil
	}
	return t
}

// Use is Check's lookup and touch in one step (see user): one lock taken
// once per call rather than a read lock, then a write lock, and one map
// read fewer. The token comes back as it was before, but for LastUsed when
// it is usable: Check sets that to now, so no copy of the old time is
// made only to be replaced.
func (m *memStore) Use(value string, now time.Time) (Token, bool, error) {
	h := HashValue(value)
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.find(h)
	if t == nil {
		return Token{}, false, nil
	}
	if t.Revoked || t.Expired(now) {
		return t.clone(), true, nil
	}
	c := *t
	c.Expires = copyTime(t.Expires)
	c.LastUsed = nil
	if t.LastUsed == nil {
		t.LastUsed = new(time.Time)
	}
	*t.LastUsed = now.UTC() // safe: callers only ever see copies
	return c, true, nil
}

// Touch implements Store.
func (m *memStore) Touch(id int64, at time.Time) error {
	at = at.UTC()
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.byID[id]
	if !ok {
		return nil
	}
	if t.LastUsed == nil {
		t.LastUsed = new(time.Time)
	}
	*t.LastUsed = at // safe: callers only ever see copies
	return nil
}

// Revoke implements Store.
func (m *memStore) Revoke(id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.byID[id]
	if !ok {
		return ErrNotFound
	}
	t.Revoked = true
	return nil
}

// List implements Store.
func (m *memStore) List() ([]Token, error) { return m.list(), nil }

func (m *memStore) list() []Token {
	m.mu.RLock()
	out := make([]Token, 0, len(m.byID))
	for _, t := range m.byID {
		out = append(out, t.clone())
	}
	m.mu.RUnlock()
	slices.SortFunc(out, func(a, b Token) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Delete implements Store.
func (m *memStore) Delete(id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.byID[id]
	if !ok {
		return ErrNotFound
	}
	m.remove(t)
	return nil
}

// DeleteAll implements Store.
func (m *memStore) DeleteAll() (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, t := range m.byID {
		if !t.Pinned {
			m.remove(t)
			n++
		}
	}
	return n, nil
}

// Snapshot implements Store.
func (m *memStore) Snapshot() ([]Token, error) { return m.list(), nil }

// Restore implements Store. New ids continue after the highest one seen, so
// a restored store never hands out an id twice.
func (m *memStore) Restore(tokens []Token) error {
	byID := make(map[int64]*Token, len(tokens))
	byHash := make(map[[32]byte]int64, len(tokens))
	byName := make(map[string]int64, len(tokens))
	var maxID int64
	for i := range tokens {
		t := tokens[i].clone()
		switch {
		case t.ID <= 0:
			return fmt.Errorf("auth: restore: token %d has id %d", i, t.ID)
		case t.Name == "":
			return fmt.Errorf("auth: restore: token %d: %w", t.ID, ErrInvalidName)
		}
		if _, dup := byID[t.ID]; dup {
			return fmt.Errorf("auth: restore: id %d appears twice", t.ID)
		}
		if _, dup := byName[t.Name]; dup {
			return fmt.Errorf("auth: restore: token %d: %w", t.ID, ErrDuplicateName)
		}
		if _, dup := byHash[t.Hash]; dup {
			return fmt.Errorf("auth: restore: token %d: %w", t.ID, ErrDuplicateValue)
		}
		byID[t.ID], byHash[t.Hash], byName[t.Name] = &t, t.ID, t.ID
		maxID = max(maxID, t.ID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byID, m.byHash, m.byName = byID, byHash, byName
	m.nextID = max(m.nextID, maxID+1)
	return nil
}

// clone copies t so that no caller shares the store's time pointers.
func (t *Token) clone() Token {
	c := *t
	c.Expires = copyTime(t.Expires)
	c.LastUsed = copyTime(t.LastUsed)
	return c
}

func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
