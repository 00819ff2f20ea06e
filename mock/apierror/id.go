package apierror

import (
	"crypto/rand"
	"io"
	"math/big"
	"sync"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// IDLength is the length of an Error ID: a 128-bit random value written in
// base 62 needs 22 digits, which is the shape the service's IDs have.
const IDLength = 22

// IDSource mints Error IDs from a stream of random bytes. The default reads
// crypto/rand; tests give it a seeded stream to get repeatable IDs.
type IDSource struct {
	mu  sync.Mutex
	rnd io.Reader
}

// NewIDSource returns a source reading r, or crypto/rand when r is nil.
func NewIDSource(r io.Reader) *IDSource {
	if r == nil {
		r = rand.Reader
	}
	return &IDSource{rnd: r}
}

// New returns a fresh 22-character base62 ID.
func (s *IDSource) New() string {
	var b [16]byte
	s.mu.Lock()
	_, err := io.ReadFull(s.rnd, b[:])
	s.mu.Unlock()
	if err != nil {
		// A broken source must not stop the fake answering; fall back to
		// the system's randomness.
		_, _ = rand.Read(b[:])
	}
	return EncodeID(b)
}

// EncodeID writes a 128-bit value as exactly IDLength base62 digits.
func EncodeID(b [16]byte) string {
	n := new(big.Int).SetBytes(b[:])
	out := make([]byte, IDLength)
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := IDLength - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = base62[mod.Int64()]
	}
	return string(out)
}

// IsID reports whether s has the shape of an Error ID.
func IsID(s string) bool {
	if len(s) != IDLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}
