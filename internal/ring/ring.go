// Package ring is a fixed-size buffer that keeps the most recent entries,
// for the fake's journals (errors by ID, recent requests): bounded memory,
// however long the fake runs.
package ring

// Buffer holds up to its capacity of entries, dropping the oldest. It is not
// safe for concurrent use; the journals that embed it hold their own lock.
type Buffer[T any] struct {
	items []T
	next  int
	full  bool
}

// New returns a buffer that holds at most capacity entries (at least one).
func New[T any](capacity int) *Buffer[T] {
	return &Buffer[T]{items: make([]T, max(capacity, 1))}
}

// Add stores v and returns the entry it pushed out, if the buffer was full.
func (b *Buffer[T]) Add(v T) (evicted T, ok bool) {
	if b.full {
		evicted, ok = b.items[b.next], true
	}
	b.items[b.next] = v
	b.next++
	if b.next == len(b.items) {
		b.next, b.full = 0, true
	}
	return evicted, ok
}

// Len is the number of entries held.
func (b *Buffer[T]) Len() int {
	if b.full {
		return len(b.items)
	}
	return b.next
}

// Recent returns up to n entries (all when n <= 0), newest first.
func (b *Buffer[T]) Recent(n int) []T {
	size := b.Len()
	if n <= 0 || n > size {
		n = size
	}
	out := make([]T, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, b.items[(b.next-i+len(b.items))%len(b.items)])
	}
	return out
}
