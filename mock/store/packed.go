package store

import (
	"bytes"
	"encoding/binary"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
)

// Packing. The records of a collection of many like records (a run's
// tasks: hundreds of thousands of objects, each with the same twenty
// member names, and most of their values, such as the process, the
// status, the executor and the cpus, shared with many others) spend more
// bytes on what they share than on what is their own. A packed
// collection keeps each record's member names once for all the records
// that have them, in that order (a shape), and, per member of a shape,
// the short values that came up again in a row (its dictionary). A
// record is then kept as
//
//	0x01, shape (uvarint), then per member either
//	  2*len (uvarint) and the value's text, or
//	  2*i+1 (uvarint): the member's dictionary value i
//
// Reading the record writes the object back, byte for byte as it was
// written. Only an object written with nothing between its own tokens
// can be rebuilt so (jsonvalue.CompactMembers); any other record, and
// every record of a new shape once the collection's shapes are at their
// bound, is kept as it came. No JSON text starts with the byte 0x01;
// bytes that do (the store keeps whatever it is given) are kept behind a
// 0x02, as is anything starting with 0x02.
//
// Shapes and dictionaries only grow, under the store's write lock, and a
// value, once in a dictionary, keeps its number: a kept record stays
// readable (under the read lock) as long as the collection lives.
//
// Packing costs a write one pass over the record and a read one pass to
// rebuild it, a fraction of what decoding it would; it is for
// collections whose records are many and read a page at a time, not for
// those whose lists are the most read calls of the service (runs).

const (
	packedTag = 0x01
	rawTag    = 0x02
)

// The bounds of what a collection's shapes hold, whatever its records:
// past maxShapes or maxShapeBytes, records of new shapes are kept as
// written; a member's dictionary takes at most maxDict values of at most
// maxDictValue bytes.
const (
	maxShapes     = 1024
	maxShapeBytes = 4 << 20
	maxDict       = 32
	maxDictValue  = 64
)

// shapes are a packed collection's shapes.
type shapes struct {
	ids   map[string]uint32 // the names, each as written behind its length, -> shape
	all   []*shape
	bytes int // names and dictionary values held, against maxShapeBytes
	// Scratch for one pack, used under the store's write lock: the lookup
	// key, the record's values and their headers.
	key   []byte
	vals  [][]byte
	codes []uint64
}

// shape is one list of member names and what each member's values share.
type shape struct {
	names [][]byte // each name as written, quotes included
	dicts []dict   // by member
}

// dict is one member's repeated values.
type dict struct {
	vals  [][]byte
	index map[string]uint32
	last  []byte // the last value written literally, to see a repeat
}

func newShapes() *shapes { return &shapes{ids: map[string]uint32{}} }

// pack returns data as the collection keeps it: packed when it can be
// rebuilt exactly, else a copy as it came.
func (s *shapes) pack(data []byte) []byte {
	if len(data) == 0 || data[0] != '{' {
		return asWritten(data)
	}
	s.key, s.vals = s.key[:0], s.vals[:0]
	if !jsonvalue.CompactMembers(data, func(name, value []byte) {
		s.key = append(binary.AppendUvarint(s.key, uint64(len(name))), name...)
		s.vals = append(s.vals, value)
	}) {
		return asWritten(data)
	}
	id, ok := s.ids[string(s.key)]
	if !ok {
		if len(s.all) >= maxShapes || s.bytes+len(s.key) > maxShapeBytes {
			return asWritten(data)
		}
		id = s.newShape()
	}
	sh := s.all[id]
	// Each member's header, then the record in one allocation of its size.
	size := 1 + uvarintLen(uint64(id))
	if cap(s.codes) < len(s.vals) {
		s.codes = make([]uint64, len(s.vals))
	}
	codes := s.codes[:len(s.vals)]
	for i, v := range s.vals {
		d := &sh.dicts[i]
		if at, ok := d.index[string(v)]; ok {
			codes[i] = 2*uint64(at) + 1
			size += uvarintLen(codes[i])
			continue
		}
		codes[i] = 2 * uint64(len(v))
		size += uvarintLen(codes[i]) + len(v)
		s.learn(d, v)
	}
	out := make([]byte, 0, size)
	out = append(out, packedTag)
	out = binary.AppendUvarint(out, uint64(id))
	for i, v := range s.vals {
		out = binary.AppendUvarint(out, codes[i])
		if codes[i]&1 == 0 {
			out = append(out, v...)
		}
	}
	s.vals = s.vals[:0] // the scratch does not hold on to data
	return out
}

// newShape files the names in s.key as a shape and returns its number.
func (s *shapes) newShape() uint32 {
	id := uint32(len(s.all))
	key := string(s.key)
	sh := &shape{names: make([][]byte, 0, len(s.vals)), dicts: make([]dict, len(s.vals))}
	for rest := []byte(key); len(rest) > 0; {
		l, n := binary.Uvarint(rest)
		end := n + int(l)
		sh.names = append(sh.names, rest[n:end:end])
		rest = rest[end:]
	}
	s.ids[key] = id
	s.all = append(s.all, sh)
	s.bytes += len(key)
	return id
}

// learn puts v in d when it is short and came twice in a row, while d
// and the collection have room. A member whose every value is its own (a
// hash, a work directory) takes nothing; one whose values recur (a
// status, a process name) fills its dictionary with them.
func (s *shapes) learn(d *dict, v []byte) {
	if len(v) > maxDictValue || len(d.vals) >= maxDict {
		return
	}
	if !bytes.Equal(d.last, v) {
		d.last = append(d.last[:0], v...)
		return
	}
	if s.bytes+len(v) > maxShapeBytes {
		return
	}
	if d.index == nil {
		d.index = map[string]uint32{}
	}
	kept := bytes.Clone(v)
	d.index[string(kept)] = uint32(len(d.vals))
	d.vals = append(d.vals, kept)
	s.bytes += len(v)
}

// asWritten is data kept unpacked: a copy, behind rawTag when its first
// byte is one of the tags.
func asWritten(data []byte) []byte {
	if len(data) > 0 && (data[0] == packedTag || data[0] == rawTag) {
		return append([]byte{rawTag}, data...)
	}
	return bytes.Clone(data)
}

// uvarintLen is how many bytes binary.AppendUvarint writes for n.
func uvarintLen(n uint64) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// unpack returns the record's data as it was written, in bytes of its
// own.
func (s *shapes) unpack(kept []byte) []byte {
	switch {
	case len(kept) == 0:
		return bytes.Clone(kept)
	case kept[0] == rawTag:
		return bytes.Clone(kept[1:])
	case kept[0] != packedTag:
		return bytes.Clone(kept)
	}
	id, n := binary.Uvarint(kept[1:])
	sh := s.all[id]
	rest := kept[1+n:]
	// The size first, so the record is written into one allocation.
	size, r := 2+len(sh.names), rest
	for i, name := range sh.names {
		code, n := binary.Uvarint(r)
		r = r[n:]
		size += len(name)
		if code&1 == 1 {
			size += len(sh.dicts[i].vals[code>>1])
		} else {
			size += int(code >> 1)
			r = r[code>>1:]
		}
	}
	out := make([]byte, 0, size)
	out = append(out, '{')
	for i, name := range sh.names {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(append(out, name...), ':')
		code, n := binary.Uvarint(rest)
		rest = rest[n:]
		if code&1 == 1 {
			out = append(out, sh.dicts[i].vals[code>>1]...)
		} else {
			out = append(out, rest[:code>>1]...)
			rest = rest[code>>1:]
		}
	}
	return append(out, '}')
}
