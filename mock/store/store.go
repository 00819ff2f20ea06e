// Package store keeps the fake's state: the records behind the service's
// stateful operations (workflows, pipelines, compute environments...).
//
// The Store interface speaks of collections and records, never of Go maps,
// because it is the seam where a shared store (Redis, say) will go when
// several replicas of the fake must see the same state. A record's content
// is opaque JSON: the store orders and guards records, the resources package
// decides what they mean. Memory is the in-process implementation; File
// saves and loads a whole store (and other parts of the fake's state) to one
// file, atomically. A Mirror keeps the last saved copy of a store, so that a
// save holds the store's lock only to copy what changed since the one
// before (Memory is a Tracker: it notes what each write touches).
package store

import (
	"encoding/json"
	"errors"
	"time"
)

// Record is one stored item of a collection.
type Record struct {
	// ID is unique within the collection; the caller chooses it.
	ID string `json:"id"`
	// Seq is the store's insertion counter, assigned on Insert. It breaks
	// ties between records created at the same instant (a fake clock does
	// not move between two launches), so "newest first" is always defined.
	Seq uint64 `json:"seq"`
	// Created and Updated are stamped by the caller, from the fake's clock.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Data is the record's content, as JSON. The store never looks inside.
	Data json.RawMessage `json:"data"`
}

// Errors a Store returns; callers map them to the service's answers.
var (
	ErrNotFound = errors.New("store: no such record")
	ErrExists   = errors.New("store: a record with this id already exists")
	ErrInvalid  = errors.New("store: invalid record")
)

// Store keeps records in named collections. Every method is safe for
// concurrent use, and every Record it returns is a copy the caller may keep
// or change.
type Store interface {
	// Insert adds r to the collection, assigning r.Seq. It fails with
	// ErrExists when the id is taken, ErrInvalid when the id or the
	// collection name is empty.
	Insert(coll string, r Record) (Record, error)
	// Get returns one record or ErrNotFound.
	Get(coll, id string) (Record, error)
	// Update reads, changes and writes one record atomically: no other
	// change to the record can happen between the read and the write. fn
	// may change everything but the ID and Seq; an error from fn leaves
	// the record unchanged and is returned as it is.
	Update(coll, id string, fn func(*Record) error) (Record, error)
	// Delete removes one record or returns ErrNotFound.
	Delete(coll, id string) error
	// List returns every record of the collection, newest first (by
	// Created, then by Seq).
	List(coll string) ([]Record, error)
	// Version returns a number that changes whenever the collection does
	// (a record inserted, updated or deleted, a snapshot restored). Readers
	// that keep something derived from a whole collection compare it to
	// know whether theirs is current; read it before listing, so that a
	// change made in between is seen as one on the next call.
	Version(coll string) (uint64, error)
	// NextSeq returns the next value of a counter named after the
	// collection, starting at 1, for collections whose ids are numbers.
	NextSeq(coll string) (int64, error)
	// Index sets the collection's indexer (nil drops it) and files the
	// records already stored by it. From then on every write of the
	// collection keeps its lists in order.
	Index(coll string, ix Indexer) error
	// Pack asks the store to keep coll's records in less memory: for a
	// collection of many records of a few shapes (a run's tasks), read a
	// page at a time. Every read still gives back the bytes written. A
	// store whose records do not live in this process's memory may take
	// it as a no-op.
	Pack(coll string) error
	// Page returns one page of one of the collection's ordered lists,
	// newest first (by Created, then by Seq), and the list's length (with
	// q.Contains: the matches within the search window). A list no record
	// is filed under is empty. Lists are read far more than anything else,
	// so a store may hand out its own bytes here: a page's Data is for
	// reading only (appending to it is safe, writing into it is not).
	Page(coll string, q Query) ([]Record, int, error)
	// Snapshot returns the whole store, for saving. A save goes through a
	// Mirror, which uses Snapshot only for a store that is not a Tracker.
	Snapshot() (Snapshot, error)
	// Restore replaces the whole store with a snapshot (after checking all
	// of it: a snapshot that fails leaves the store as it was).
	Restore(Snapshot) error
}

// Snapshot is a whole store at one moment, in a form that encodes to JSON.
type Snapshot struct {
	// Collections holds each collection's records, newest first.
	Collections map[string][]Record `json:"collections"`
	// Counters holds NextSeq's counters (the last value handed out).
	Counters map[string]int64 `json:"counters,omitempty"`
	// Seq is the last insertion counter handed out.
	Seq uint64 `json:"seq"`
}

// Indexer files a record of a collection: the names of the ordered lists
// it belongs to (the runs of one workspace, say) and the text a search of
// those lists matches (already lower case). Stores call it on every write,
// so their lists stay in order as records come, change and go, and a page
// costs time in the page size rather than in the collection's size. It
// must be a pure function of the record.
type Indexer func(Record) (lists []string, text string)

// DefaultSearchWindow is how many of a list's newest records a search
// looks at when the query does not say.
const DefaultSearchWindow = 10_000

// Query asks for one page of an ordered list.
type Query struct {
	List          string
	Offset, Limit int
	// Contains, when not empty, keeps only the records whose text holds
	// it; give it in lower case. A search looks at the newest Window
	// records of the list only (0: DefaultSearchWindow), so its cost is
	// bounded by the window, not by the list's length; records older than
	// the window are not found.
	Contains string
	Window   int
}

// SearchWindow is how many of the newest records a search reads: Window,
// or DefaultSearchWindow when it is not set.
func (q Query) SearchWindow() int {
	if q.Window <= 0 {
		return DefaultSearchWindow
	}
	return q.Window
}
