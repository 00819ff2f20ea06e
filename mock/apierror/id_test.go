package apierror

import (
	"bytes"
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEncodeIDShape guards the Error ID format: every 128-bit value, the
// extremes included, is written as exactly 22 base62 digits, and the digits
// read back as the value they encode (so nothing was truncated on the way).
func TestEncodeIDShape(t *testing.T) {
	var ones [16]byte
	for i := range ones {
		ones[i] = 0xFF
	}
	var one [16]byte
	one[15] = 1
	var top [16]byte
	top[0] = 0x80
	cases := []struct {
		name string
		in   [16]byte
		want string // "" when only the shape is checked
	}{
		{"zero", [16]byte{}, strings.Repeat("0", IDLength)},
		{"one", one, strings.Repeat("0", IDLength-1) + "1"},
		// 2^128-1 in base 62.
		{"all ones", ones, "7n42DGM5Tflk9n8mt7Fhc7"},
		{"top bit", top, ""},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		var b [16]byte
		for j := range b {
			b[j] = byte(r.UintN(256))
		}
		cases = append(cases, struct {
			name string
			in   [16]byte
			want string
		}{name: "random" + string(rune('a'+i)), in: b})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := EncodeID(tc.in)
			if len(got) != IDLength || !IsID(got) {
				t.Fatalf("EncodeID(%x) = %q, not %d base62 characters", tc.in, got, IDLength)
			}
			if tc.want != "" && got != tc.want {
				t.Errorf("EncodeID(%x) = %q, want %q", tc.in, got, tc.want)
			}
			if back := decodeBase62(t, got); back.Cmp(new(big.Int).SetBytes(tc.in[:])) != 0 {
				t.Errorf("EncodeID(%x) = %q reads back as %x", tc.in, got, back.Bytes())
			}
		})
	}
}

func decodeBase62(t *testing.T, s string) *big.Int {
	t.Helper()
	n := new(big.Int)
	for _, c := range s {
		d := strings.IndexRune(base62, c)
		if d < 0 {
			t.Fatalf("%q holds %q, not a base62 digit", s, c)
		}
		n.Mul(n, big.NewInt(62))
		n.Add(n, big.NewInt(int64(d)))
	}
	return n
}

// TestEncodeIDInjective guards that different values never share an ID:
// inputs that differ in a single bit anywhere give different IDs.
func TestEncodeIDInjective(t *testing.T) {
	seen := map[string][16]byte{}
	add := func(b [16]byte) {
		id := EncodeID(b)
		if prev, ok := seen[id]; ok && prev != b {
			t.Fatalf("EncodeID(%x) and EncodeID(%x) are both %q", prev, b, id)
		}
		seen[id] = b
	}
	add([16]byte{})
	for byteIdx := range 16 {
		for bit := range 8 {
			var b [16]byte
			b[byteIdx] = 1 << bit
			add(b)
		}
	}
	if len(seen) != 1+128 {
		t.Errorf("got %d distinct IDs for 129 distinct inputs", len(seen))
	}
}

// TestIsID guards the shape check used to tell an Error ID from other text.
func TestIsID(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{strings.Repeat("a", 22), true},
		{"0123456789ABCDEFGHIJKz", true},
		{"", false},
		{strings.Repeat("a", 21), false},
		{strings.Repeat("a", 23), false},
		{strings.Repeat("a", 21) + "-", false},
		{strings.Repeat("a", 21) + "_", false},
		{strings.Repeat("a", 21) + " ", false},
		{"é" + strings.Repeat("a", 20), false}, // 22 bytes, not base62
	}
	for _, tc := range cases {
		if got := IsID(tc.in); got != tc.want {
			t.Errorf("IsID(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestIDSourceSeededIsRepeatable guards that tests can get the same IDs
// again by giving the source the same byte stream.
func TestIDSourceSeededIsRepeatable(t *testing.T) {
	stream := func() *bytes.Reader {
		r := rand.New(rand.NewPCG(7, 7))
		b := make([]byte, 16*50)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return bytes.NewReader(b)
	}
	a, b := NewIDSource(stream()), NewIDSource(stream())
	seen := map[string]bool{}
	for i := range 50 {
		x, y := a.New(), b.New()
		if x != y {
			t.Fatalf("ID %d: %q and %q from the same stream", i, x, y)
		}
		if !IsID(x) {
			t.Fatalf("ID %d: %q is not an Error ID", i, x)
		}
		seen[x] = true
	}
	if len(seen) != 50 {
		t.Errorf("50 IDs from a random stream hold only %d distinct values", len(seen))
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("broken") }

// TestIDSourceUnique guards that the default source (crypto/rand), and a
// broken one that falls back to it, mint IDs that do not repeat.
func TestIDSourceUnique(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  *IDSource
	}{
		{"crypto/rand", NewIDSource(nil)},
		{"broken reader", NewIDSource(failingReader{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 10000
			seen := make(map[string]bool, n)
			for range n {
				id := tc.src.New()
				if !IsID(id) {
					t.Fatalf("%q is not an Error ID", id)
				}
				if seen[id] {
					t.Fatalf("ID %q minted twice", id)
				}
				seen[id] = true
			}
		})
	}
}
