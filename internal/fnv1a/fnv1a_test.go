package fnv1a

import (
	"encoding/binary"
	"hash/fnv"
	"testing"
)

// The hash is the standard library's FNV-1a, part by part.
func TestAgreesWithTheStandardLibrary(t *testing.T) {
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], 0x0123456789abcdef)
	for _, s := range []string{"", "a", "seeded /orgs/1001/members 1", "\x00\xff"} {
		std := fnv.New64a()
		std.Write(seed[:])
		std.Write([]byte(s))
		std.Write([]byte{0, 7})
		got := New().Uint64(0x0123456789abcdef).String(s).Bytes([]byte{0}).Byte(7).Sum()
		if got != std.Sum64() {
			t.Errorf("%q: %x, the standard library gives %x", s, got, std.Sum64())
		}
	}
}

func TestAllocatesNothing(t *testing.T) {
	key := "a key of some length"
	if n := testing.AllocsPerRun(100, func() { _ = New().String(key).Uint64(42).Sum() }); n != 0 {
		t.Errorf("%v allocations per hash", n)
	}
}
