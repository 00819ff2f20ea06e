package store

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Memory is the in-process Store. The zero value is not usable; call
// NewMemory.
//
// Each collection keeps its records by id, and, when it has an indexer,
// one ordered list per list name, oldest first, in blocks (see list),
// updated on every write: a new record (the newest, almost always) is
// appended, a deleted or moved one found by binary search. Reading a page
// walks the blocks from the newest end.
type Memory struct {
	mu       sync.RWMutex
	colls    map[string]*collection
	counters map[string]int64
	seq      uint64
	versions map[string]uint64 // see Version
	indexers map[string]Indexer
	packed   map[string]bool // see Pack
	track    tracking        // see Changes
}

// collection is one named collection's records and lists.
type collection struct {
	recs  map[string]*item
	lists map[string]*list // by name
	// names interns the lists items are filed under: records of one
	// workspace share one slice of names instead of holding a copy each.
	names map[string]*[]string
	// texts is where the entries' search texts are written, one after the
	// other (see entry).
	texts arena
	// shapes is set when the collection is packed (see Pack, packed.go).
	shapes *shapes
}

// item is a stored record and where its collection's indexer filed it:
// the collection's shared copy of the list names (see intern), held by
// pointer so that an item (the per-record cost of the store, a hundred
// thousand of them for one big run's tasks) fits a smaller size class.
type item struct {
	rec   Record
	filed *[]string
}

// lists are the names of the lists the item is filed under.
func (it *item) lists() []string {
	if it.filed == nil {
		return nil
	}
	return *it.filed
}

// entry is one record's place in an ordered list, with the text a search
// matches. A search reads the newest entries of a list one after the
// other; with the text in the entry, and its bytes written in filing
// order into the collection's arena, it reads two runs of consecutive
// memory rather than following a pointer to each record, wherever the
// allocator put it. That is what keeps a search of a window of 10,000 at
// the same cost in a store of 1,000,000 records (whose items are spread
// over hundreds of megabytes of heap) as in one of 100,000.
type entry struct {
	it   *item
	text []byte // in the arena; never written after it is filed
}

// arena hands out room for search texts from blocks of consecutive bytes,
// so texts filed one after the other lie one after the other. A block is
// never written again once a text is in it, and it is freed by the
// garbage collector when no entry refers to it any more; the text of a
// record refiled by an update stays in its old block until then (at most
// the text of every update since, a few dozen bytes each).
type arena struct{ block []byte }

const arenaBlock = 64 << 10

func (a *arena) add(text string) []byte {
	if len(text) > cap(a.block)-len(a.block) {
		a.block = make([]byte, 0, max(arenaBlock, len(text)))
	}
	start := len(a.block)
	a.block = append(a.block, text...)
	return a.block[start:len(a.block):len(a.block)]
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{colls: map[string]*collection{}, counters: map[string]int64{}, versions: map[string]uint64{}, indexers: map[string]Indexer{}, packed: map[string]bool{}}
}

func newCollection() *collection {
	return &collection{recs: map[string]*item{}, lists: map[string]*list{}, names: map[string]*[]string{}}
}

// keep is r as the collection holds it: a copy, packed when the
// collection is.
func (c *collection) keep(r Record) Record {
	if c.shapes == nil {
		return clone(r)
	}
	r.Data = c.shapes.pack(r.Data)
	return r
}

// view is a kept record as a caller sees it: a copy, as it was written.
func (c *collection) view(r Record) Record {
	if c.shapes == nil {
		return clone(r)
	}
	r.Data = c.shapes.unpack(r.Data)
	return r
}

// pageView is a kept record as Page hands it out: the store's own bytes
// where they are the record's text (see shared), else rebuilt.
func (c *collection) pageView(r Record) Record {
	if c.shapes == nil {
		return shared(r)
	}
	return c.view(r)
}

// pack makes the collection packed, packing the records it holds.
func (c *collection) pack() {
	if c.shapes != nil {
		return
	}
	c.shapes = newShapes()
	for _, it := range c.recs {
		it.rec.Data = c.shapes.pack(it.rec.Data)
	}
}

// older orders items oldest first.
func older(a, b *item) int {
	if c := a.rec.Created.Compare(b.rec.Created); c != 0 {
		return c
	}
	return cmp.Compare(a.rec.Seq, b.rec.Seq)
}

func olderEntry(e entry, it *item) int { return older(e.it, it) }

// intern returns the collection's shared copy of a set of list names.
func (c *collection) intern(lists []string) *[]string {
	if len(lists) == 0 {
		return nil
	}
	key := strings.Join(lists, "\x00")
	p, ok := c.names[key]
	if !ok {
		names := slices.Clone(lists)
		p = &names
		c.names[key] = p
	}
	return p
}

// file asks ix where it goes, by rec (the record as written), and adds it
// to those lists, in order.
func (c *collection) file(it *item, rec Record, ix Indexer) {
	if ix == nil {
		it.filed = nil
		return
	}
	lists, text := ix(rec)
	it.filed = c.intern(lists)
	for _, name := range it.lists() {
		l := c.lists[name]
		if l == nil {
			l = &list{}
			c.lists[name] = l
		}
		l.add(entry{it, c.texts.add(text)})
	}
}

// refileInPlace stores work as the item's record when that keeps its place in
// every list (the same time and lists: a cancel, a status set), changing
// only its entries' texts, and reports whether it did. Taking the entry
// out of a long list and putting it back would move every newer entry
// twice.
func (c *collection) refileInPlace(it *item, work Record, ix Indexer) bool {
	if ix == nil || !work.Created.Equal(it.rec.Created) {
		return false
	}
	lists, text := ix(work)
	if !slices.Equal(lists, it.lists()) {
		return false
	}
	type place struct{ b, i int }
	at := make([]place, len(it.lists()))
	for k, name := range it.lists() {
		l := c.lists[name]
		if l == nil {
			return false
		}
		b, i, found := l.find(it)
		if !found {
			return false
		}
		at[k] = place{b, i}
	}
	it.rec = c.keep(work)
	for k, name := range it.lists() {
		if e := &c.lists[name].blocks[at[k].b][at[k].i]; string(e.text) != text {
			e.text = c.texts.add(text)
		}
	}
	return true
}

// unfile removes it from the lists it is filed under.
func (c *collection) unfile(it *item) {
	for _, name := range it.lists() {
		l := c.lists[name]
		if l == nil {
			continue
		}
		l.remove(it)
		if l.len() == 0 {
			delete(c.lists, name)
		}
	}
	it.filed = nil
}

// Insert implements Store.
func (m *Memory) Insert(coll string, r Record) (Record, error) {
	if coll == "" || r.ID == "" {
		return Record{}, fmt.Errorf("%w: empty collection name or id", ErrInvalid)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.colls[coll]
	if c == nil {
		c = newCollection()
		if m.packed[coll] {
			c.shapes = newShapes()
		}
		m.colls[coll] = c
	}
	if _, dup := c.recs[r.ID]; dup {
		return Record{}, ErrExists
	}
	m.seq++
	r.Seq = m.seq
	// The store keeps its own copy; the caller keeps r, whose bytes the
	// store never sees again, so r is returned as it is.
	it := &item{rec: c.keep(r)}
	c.recs[r.ID] = it
	c.file(it, r, m.indexers[coll])
	m.versions[coll]++
	m.track.mark(coll, r.ID)
	return r, nil
}

// Get implements Store.
func (m *Memory) Get(coll, id string) (Record, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	c := m.colls[coll]
	if c == nil {
		return Record{}, ErrNotFound
	}
	it, ok := c.recs[id]
	if !ok {
		return Record{}, ErrNotFound
	}
	return c.view(it.rec), nil
}

// Update implements Store. fn runs under the store's lock, so it must not
// call back into the store.
func (m *Memory) Update(coll, id string, fn func(*Record) error) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.colls[coll]
	if c == nil {
		return Record{}, ErrNotFound
	}
	it, ok := c.recs[id]
	if !ok {
		return Record{}, ErrNotFound
	}
	work := c.view(it.rec)
	if err := fn(&work); err != nil {
		return Record{}, err
	}
	work.ID, work.Seq = it.rec.ID, it.rec.Seq
	if ix := m.indexers[coll]; !c.refileInPlace(it, work, ix) {
		// Out of the lists under the old record, back in under the new
		// one: its time or lists changed.
		c.unfile(it)
		it.rec = c.keep(work)
		c.file(it, work, ix)
	}
	m.versions[coll]++
	m.track.mark(coll, id)
	return work, nil
}

// Delete implements Store.
func (m *Memory) Delete(coll, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.colls[coll]
	if c == nil {
		return ErrNotFound
	}
	it, ok := c.recs[id]
	if !ok {
		return ErrNotFound
	}
	c.unfile(it)
	delete(c.recs, id)
	if len(c.recs) == 0 {
		delete(m.colls, coll)
	}
	m.versions[coll]++
	m.track.mark(coll, id)
	return nil
}

// Version implements Store.
func (m *Memory) Version(coll string) (uint64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.versions[coll], nil
}

// List implements Store.
func (m *Memory) List(coll string) ([]Record, error) {
	m.mu.RLock()
	out := []Record{}
	if c := m.colls[coll]; c != nil {
		out = make([]Record, 0, len(c.recs))
		for _, it := range c.recs {
			out = append(out, c.view(it.rec))
		}
	}
	m.mu.RUnlock()
	SortNewestFirst(out)
	return out, nil
}

// Index implements Store.
func (m *Memory) Index(coll string, ix Indexer) error {
	if coll == "" {
		return fmt.Errorf("%w: empty collection name", ErrInvalid)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if ix == nil {
		delete(m.indexers, coll)
	} else {
		m.indexers[coll] = ix
	}
	if c := m.colls[coll]; c != nil {
		c.refile(ix)
	}
	m.versions[coll]++
	return nil
}

// refile files every record again with ix, sorting each list once and
// then writing its texts in list order.
func (c *collection) refile(ix Indexer) {
	c.lists, c.names, c.texts = map[string]*list{}, map[string]*[]string{}, arena{}
	pending := map[string][]entry{}
	texts := map[*item]string{}
	for _, it := range c.recs {
		it.filed = nil
		if ix == nil {
			continue
		}
		lists, text := ix(c.pageView(it.rec))
		it.filed = c.intern(lists)
		texts[it] = text
		for _, name := range it.lists() {
			pending[name] = append(pending[name], entry{it: it})
		}
	}
	for name, es := range pending {
		l := sorted(es)
		for _, blk := range l.blocks {
			for i := range blk {
				blk[i].text = c.texts.add(texts[blk[i].it])
			}
		}
		c.lists[name] = l
	}
}

// Pack implements Store: coll's records are kept packed (packed.go), the
// ones it holds now and every one written from now on, and after a
// restore.
func (m *Memory) Pack(coll string) error {
	if coll == "" {
		return fmt.Errorf("%w: empty collection name", ErrInvalid)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.packed[coll] = true
	if c := m.colls[coll]; c != nil {
		c.pack()
	}
	return nil
}

// Page implements Store. A page costs time in its size; a search, in
// the search window.
func (m *Memory) Page(coll string, q Query) ([]Record, int, error) {
	if q.Offset < 0 || q.Limit < 0 {
		return nil, 0, fmt.Errorf("%w: negative offset or limit", ErrInvalid)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	l, c := &list{}, m.colls[coll]
	if c != nil && c.lists[q.List] != nil {
		l = c.lists[q.List]
	}
	n := l.len()
	var out []Record
	if q.Contains == "" {
		if q.Limit > 0 && q.Offset < n {
			out = make([]Record, 0, min(q.Limit, n-q.Offset))
			l.newest(q.Offset, func(e *entry) bool {
				out = append(out, c.pageView(e.it.rec))
				return len(out) < q.Limit
			})
		}
		return out, n, nil
	}
	// Only the entries are read here, not the records (see entry); a
	// record is read when it is on the page.
	needle := []byte(q.Contains)
	total, seen, window := 0, 0, q.SearchWindow()
	l.newest(0, func(e *entry) bool {
		if seen == window {
			return false
		}
		seen++
		if bytes.Contains(e.text, needle) {
			if total >= q.Offset && total-q.Offset < q.Limit {
				out = append(out, c.pageView(e.it.rec))
			}
			total++
		}
		return true
	})
	return out, total, nil
}

// NextSeq implements Store.
func (m *Memory) NextSeq(coll string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counters[coll]++
	return m.counters[coll], nil
}

// Snapshot implements Store.
func (m *Memory) Snapshot() (Snapshot, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	s := Snapshot{Collections: make(map[string][]Record, len(m.colls)), Counters: make(map[string]int64, len(m.counters)), Seq: m.seq}
	for name, c := range m.colls {
		rs := make([]Record, 0, len(c.recs))
		for _, it := range c.recs {
			rs = append(rs, c.view(it.rec))
		}
		SortNewestFirst(rs)
		s.Collections[name] = rs
	}
	for k, v := range m.counters {
		s.Counters[k] = v
	}
	return s, nil
}

// Restore implements Store. It refuses a snapshot with an empty collection
// name, an empty or repeated id, a repeated Seq or content that is not JSON,
// since any of those means the snapshot was damaged. The collections'
// indexers stay, and file the restored records.
func (m *Memory) Restore(s Snapshot) error {
	colls := make(map[string]*collection, len(s.Collections))
	seqs := map[uint64]bool{}
	maxSeq := s.Seq
	for name, rs := range s.Collections {
		if name == "" {
			return fmt.Errorf("%w: a collection has no name", ErrInvalid)
		}
		c := newCollection()
		for i, r := range rs {
			switch {
			case r.ID == "":
				return fmt.Errorf("%w: collection %q, record %d has no id", ErrInvalid, name, i)
			case c.recs[r.ID] != nil:
				return fmt.Errorf("%w: collection %q holds id %q twice", ErrInvalid, name, r.ID)
			case r.Seq == 0 || seqs[r.Seq]:
				return fmt.Errorf("%w: collection %q, record %q has a missing or repeated seq %d", ErrInvalid, name, r.ID, r.Seq)
			case len(r.Data) > 0 && !jsonValid(r.Data):
				return fmt.Errorf("%w: collection %q, record %q holds invalid JSON", ErrInvalid, name, r.ID)
			}
			seqs[r.Seq] = true
			maxSeq = max(maxSeq, r.Seq)
			c.recs[r.ID] = &item{rec: clone(r)}
		}
		if len(c.recs) > 0 {
			colls[name] = c
		}
	}
	counters := make(map[string]int64, len(s.Counters))
	for k, v := range s.Counters {
		if v < 0 {
			return fmt.Errorf("%w: counter %q is negative", ErrInvalid, k)
		}
		counters[k] = v
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, c := range colls {
		if m.packed[name] {
			c.pack()
		}
		c.refile(m.indexers[name])
	}
	// Every collection before or after the restore may have changed.
	for name := range m.colls {
		m.versions[name]++
	}
	for name := range colls {
		if m.colls[name] == nil {
			m.versions[name]++
		}
	}
	m.colls, m.counters, m.seq = colls, counters, maxSeq
	m.track.replaced()
	return nil
}

// SortNewestFirst puts records in the order every store lists them:
// newest Created first, then the highest Seq (the later insertion).
func SortNewestFirst(rs []Record) {
	slices.SortFunc(rs, func(a, b Record) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return cmp.Compare(b.Seq, a.Seq)
	})
}

// clone copies r so that callers never share the store's bytes.
func clone(r Record) Record {
	r.Data = bytes.Clone(r.Data)
	return r
}

// shared is r as Page hands it out: with the store's own bytes, which no
// write of the store changes in place (Insert and Update store copies), and
// with no room past its end, so that a caller's append copies instead of
// writing into the store's array.
func shared(r Record) Record {
	r.Data = r.Data[:len(r.Data):len(r.Data)]
	return r
}
