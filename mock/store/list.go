package store

import "slices"

// blockLen is the most entries one block of a list holds. Inserting or
// removing an entry moves at most a block's entries, and finding a place
// reads one pointer per block, so with a million entries both stay in the
// microseconds.
const blockLen = 512

// list is one ordered list of a collection, oldest first (by Created,
// then Seq), cut into blocks of at most blockLen entries. A flat slice
// would make removing an old entry (a delete) move every newer one: 32 MB
// at a million runs.
type list struct {
	blocks [][]entry // none empty
	n      int
}

func (l *list) len() int { return l.n }

// block returns the index of the block where it belongs: the first whose
// newest entry is not older than it (the last block when it is newer than
// all).
func (l *list) block(it *item) int {
	b, _ := slices.BinarySearchFunc(l.blocks, it, func(blk []entry, it *item) int {
		return older(blk[len(blk)-1].it, it)
	})
	return min(b, len(l.blocks)-1)
}

// add files e in order.
func (l *list) add(e entry) {
	l.n++
	if len(l.blocks) == 0 {
		l.blocks = append(l.blocks, []entry{e})
		return
	}
	b := l.block(e.it)
	blk := l.blocks[b]
	if last := blk[len(blk)-1]; older(last.it, e.it) < 0 {
		// The usual case: the newest record, at the end.
		if len(blk) < blockLen {
			l.blocks[b] = append(blk, e)
			return
		}
		l.blocks = append(l.blocks, []entry{e})
		return
	}
	i, _ := slices.BinarySearchFunc(blk, e.it, olderEntry)
	blk = slices.Insert(blk, i, e)
	if len(blk) <= blockLen {
		l.blocks[b] = blk
		return
	}
	// Split a full block in two halves.
	half := len(blk) / 2
	newer := slices.Clone(blk[half:])
	clear(blk[half:])
	l.blocks[b] = blk[:half]
	l.blocks = slices.Insert(l.blocks, b+1, newer)
}

// find returns where it is filed, or false.
func (l *list) find(it *item) (b, i int, ok bool) {
	if len(l.blocks) == 0 {
		return 0, 0, false
	}
	b = l.block(it)
	i, ok = slices.BinarySearchFunc(l.blocks[b], it, olderEntry)
	return b, i, ok
}

// remove takes it out of the list, if it is there.
func (l *list) remove(it *item) {
	b, i, ok := l.find(it)
	if !ok {
		return
	}
	l.n--
	blk := slices.Delete(l.blocks[b], i, i+1)
	if len(blk) == 0 {
		l.blocks = slices.Delete(l.blocks, b, b+1)
		return
	}
	l.blocks[b] = blk
}

// newest calls fn with the entries from the k-th newest (0: the newest)
// towards the oldest, until fn returns false. Reaching the k-th reads one
// length per block passed over.
func (l *list) newest(k int, fn func(*entry) bool) {
	b := len(l.blocks) - 1
	for ; b >= 0 && k >= len(l.blocks[b]); b-- {
		k -= len(l.blocks[b])
	}
	for ; b >= 0; b-- {
		blk := l.blocks[b]
		for i := len(blk) - 1 - k; i >= 0; i-- {
			if !fn(&blk[i]) {
				return
			}
		}
		k = 0
	}
}

// sorted builds a list from entries, sorting them.
func sorted(es []entry) *list {
	slices.SortFunc(es, func(a, b entry) int { return older(a.it, b.it) })
	l := &list{n: len(es)}
	for len(es) > 0 {
		k := min(len(es), blockLen)
		l.blocks = append(l.blocks, slices.Clone(es[:k]))
		es = es[k:]
	}
	return l
}
