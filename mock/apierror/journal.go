package apierror

import (
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/internal/ring"
	"github.com/wmsmock/wmsmock/mock/leniency"
)

// Entry is what the journal keeps about one error answer.
type Entry struct {
	ID     string    `json:"id"`
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Status int       `json:"status"`
	Kind   string    `json:"kind"`
	Reason string    `json:"reason"`
	// Deviations name, for a body refused for differing from the
	// document where the service would have read it, each place and kind.
	Deviations []leniency.Deviation `json:"deviations,omitempty"`
}

// Journal keeps the most recent error answers by Error ID, so a developer
// holding an ID from a 400 can ask the fake what was wrong. It is bounded:
// the oldest entry goes when a new one would exceed the capacity.
type Journal struct {
	mu   sync.Mutex
	ring *ring.Buffer[held]
	// index points at the newest copy of each ID; seq tells copies apart,
	// so evicting an old copy never drops a newer one.
	index map[string]held
	seq   uint64
}

type held struct {
	Entry
	seq uint64
}

// NewJournal returns a journal that holds at most capacity entries
// (at least one).
func NewJournal(capacity int) *Journal {
	return &Journal{ring: ring.New[held](capacity), index: make(map[string]held, max(capacity, 1))}
}

// Add records e, evicting the oldest entry when the journal is full.
func (j *Journal) Add(e Entry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	h := held{e, j.seq}
	if old, evicted := j.ring.Add(h); evicted && j.index[old.ID].seq == old.seq {
		delete(j.index, old.ID)
	}
	j.index[e.ID] = h
}

// Get returns the entry for an Error ID, if it is still held.
func (j *Journal) Get(id string) (Entry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	h, ok := j.index[id]
	return h.Entry, ok
}

// Recent returns up to n entries (all when n <= 0), newest first.
func (j *Journal) Recent(n int) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	hs := j.ring.Recent(n)
	out := make([]Entry, len(hs))
	for i, h := range hs {
		out[i] = h.Entry
	}
	return out
}
