// Package fnv1a is the 64-bit FNV-1a hash as a value: each step returns
// the hash so far, so a key made of several parts is hashed without
// building it and without allocating (hash/fnv's hasher is an interface
// value that escapes). The fake hashes on hot paths: a generator's seed
// and key for every synthesized value, a record id for the reference
// ring, an answer's body for its ETag.
package fnv1a

// Hash is the state of an FNV-1a hash; New starts one.
type Hash uint64

const (
	offset = 14695981039346656037
	prime  = 1099511628211
)

// New is the hash of nothing.
func New() Hash { return offset }

// Byte adds one byte.
func (h Hash) Byte(c byte) Hash { return (h ^ Hash(c)) * prime }

// String adds the bytes of s.
func (h Hash) String(s string) Hash {
	for i := 0; i < len(s); i++ {
		h = (h ^ Hash(s[i])) * prime
	}
	return h
}

// Bytes adds b.
func (h Hash) Bytes(b []byte) Hash {
	for _, c := range b {
		h = (h ^ Hash(c)) * prime
	}
	return h
}

// Uint64 adds the eight bytes of v, little end first.
func (h Hash) Uint64(v uint64) Hash {
	for i := range 8 {
		h = h.Byte(byte(v >> (8 * i)))
	}
	return h
}

// Sum is the hash as a number.
func (h Hash) Sum() uint64 { return uint64(h) }
