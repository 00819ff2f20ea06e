package apierror

import (
	"sync"
	"time"
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
}

// Journal keeps the most recent error answers by Error ID, so a developer
// holding an ID from a 400 can ask the fake what was wrong. It is bounded:
// the oldest entry goes when a new one would exceed the capacity.
type Journal struct {
	mu    sync.Mutex
	ring  []Entry
	next  int
	full  bool
	index map[string]int
}

// NewJournal returns a journal that holds at most capacity entries
// (at least one).
func NewJournal(capacity int) *Journal {
	if capacity < 1 {
		capacity = 1
	}
	return &Journal{ring: make([]Entry, capacity), index: make(map[string]int, capacity)}
}

// Add records e, evicting the oldest entry when the journal is full.
func (j *Journal) Add(e Entry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.full {
		delete(j.index, j.ring[j.next].ID)
	}
	j.ring[j.next] = e
	j.index[e.ID] = j.next
	j.next++
	if j.next == len(j.ring) {
		j.next, j.full = 0, true
	}
}

// Get returns the entry for an Error ID, if it is still held.
func (j *Journal) Get(id string) (Entry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	i, ok := j.index[id]
	if !ok {
		return Entry{}, false
	}
	return j.ring[i], true
}

// Recent returns up to n entries, newest first.
func (j *Journal) Recent(n int) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	size := j.next
	if j.full {
		size = len(j.ring)
	}
	if n <= 0 || n > size {
		n = size
	}
	out := make([]Entry, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, j.ring[(j.next-i+len(j.ring))%len(j.ring)])
	}
	return out
}
