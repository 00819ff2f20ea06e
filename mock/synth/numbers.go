package synth

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/internal/intdiv"
)

// safeInt is the largest integer every JSON decoder (including
// JavaScript's) reads exactly: int64 values stay within ±(2^53-1).
const safeInt = 1<<53 - 1

// Realistic default ranges: small non-negative numbers look like counts,
// sizes and durations, which is what most unnamed numeric fields are.
const (
	defaultIntHi = 1000
	defaultNumHi = 1000.0
)

func (c *run) integer(n *node, fd field) any {
	lo, hi := int64(-safeInt), int64(safeInt)
	if n.format == "int32" {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	if n.hasMin {
		m := math.Ceil(n.min)
		if n.exclMin && m == n.min {
			m++
		}
		lo = max(lo, clampToInt(m))
	}
	if n.hasMax {
		m := math.Floor(n.max)
		if n.exclMax && m == n.max {
			m--
		}
		hi = min(hi, clampToInt(m))
	}
	if lo > hi {
		return lo // contradictory bounds: best effort
	}
	rlo, rhi := int64(0), int64(defaultIntHi)
	if fd.h != nil && fd.h.ints != nil {
		rlo, rhi = fd.h.ints[0], fd.h.ints[1]
	}
	a, b := realistic(lo, hi, rlo, rhi)
	if n.multipleOf > 0 {
		step := integerStep(n.multipleOf)
		if step == 0 {
			return a
		}
		if v, ok := pickMultiple(c, a, b, step); ok {
			return v
		}
		if v, ok := pickMultiple(c, lo, hi, step); ok {
			return v
		}
		return a
	}
	return a + c.r.Int64N(b-a+1)
}

// realistic narrows the valid range [lo,hi] to the realistic [rlo,rhi]
// when they overlap, else to the end of the valid range nearest to it.
func realistic(lo, hi, rlo, rhi int64) (int64, int64) {
	a, b := max(lo, rlo), min(hi, rhi)
	switch {
	case a <= b:
		return a, b
	case rhi < lo:
		return lo, min(hi, lo+defaultIntHi)
	default:
		return max(lo, hi-defaultIntHi), hi
	}
}

// integerStep returns the smallest positive integer multiple of m, or 0
// if m has none that is small.
func integerStep(m float64) int64 {
	for j := 1.0; j <= 1000; j++ {
		if s := m * j; isIntegral(s) && s >= 1 && s < safeInt {
			return int64(math.Round(s))
		}
	}
	return 0
}

func pickMultiple(c *run, a, b, step int64) (int64, bool) {
	kLo, kHi := intdiv.Ceil(a, step), intdiv.Floor(b, step)
	if kLo > kHi {
		return 0, false
	}
	return (kLo + c.r.Int64N(kHi-kLo+1)) * step, true
}

func clampToInt(f float64) int64 {
	switch {
	case f >= safeInt:
		return safeInt
	case f <= -safeInt:
		return -safeInt
	}
	return int64(f)
}

func (c *run) number(n *node, fd field) any {
	limit := 1e15
	if n.format == "float" {
		limit = math.MaxFloat32
	}
	lo, hi := -limit, limit
	if n.hasMin {
		lo = math.Max(lo, n.min)
	}
	if n.hasMax {
		hi = math.Min(hi, n.max)
	}
	rlo, rhi := 0.0, defaultNumHi
	if fd.h != nil {
		switch {
		case fd.h.nums != nil:
			rlo, rhi = fd.h.nums[0], fd.h.nums[1]
		case fd.h.ints != nil:
			rlo, rhi = float64(fd.h.ints[0]), float64(fd.h.ints[1])
		}
	}
	a, b := math.Max(lo, rlo), math.Min(hi, rhi)
	if a > b {
		if rhi < lo {
			a, b = lo, math.Min(hi, lo+defaultNumHi)
		} else {
			a, b = math.Max(lo, hi-defaultNumHi), hi
		}
	}
	ok := func(f float64) bool {
		return f >= lo && f <= hi && !(n.exclMin && f == n.min) && !(n.exclMax && f == n.max)
	}
	if n.multipleOf > 0 {
		if v, found := c.decimalMultiple(n.multipleOf, a, b, ok); found {
			return v
		}
		if v, found := c.decimalMultiple(n.multipleOf, lo, hi, ok); found {
			return v
		}
		return a
	}
	for try := 0; try < 8; try++ {
		f := a + c.r.Float64()*(b-a)
		if r := math.Round(f*100) / 100; ok(r) {
			return r
		}
		if ok(f) {
			return f
		}
	}
	if mid := a + (b-a)/2; ok(mid) {
		return mid
	}
	return a
}

// decimalMultiple picks k*m in [a,b] and writes it as a json.Number with
// exactly m's decimals, so a validator comparing decimals (jsonschema uses
// big.Rat) sees an exact multiple that float64 arithmetic could miss.
func (c *run) decimalMultiple(m, a, b float64, ok func(float64) bool) (any, bool) {
	kLo, kHi := math.Ceil(a/m), math.Floor(b/m)
	if kLo > kHi || kHi-kLo > 1e15 {
		return nil, false
	}
	decimals := 0
	if s := strconv.FormatFloat(m, 'f', -1, 64); strings.Contains(s, ".") {
		decimals = len(s) - strings.IndexByte(s, '.') - 1
	}
	for try := 0; try < 4; try++ {
		k := kLo + math.Floor(c.r.Float64()*(kHi-kLo+1))
		k = math.Min(k, kHi)
		s := strconv.FormatFloat(k*m, 'f', decimals, 64)
		if f, err := strconv.ParseFloat(s, 64); err == nil && ok(f) {
			return json.Number(s), true
		}
	}
	return nil, false
}

func (c *run) boolean(n *node, fd field) bool {
	p := 0.5
	if fd.h != nil && fd.h.trueProb > 0 {
		p = fd.h.trueProb
	}
	return c.chance(p)
}
