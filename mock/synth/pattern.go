package synth

import (
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// pattern is a compiled `pattern` keyword: an exact matcher (the judge of
// every candidate) plus a Go regexp/syntax tree the generator walks to build
// candidates. For ECMAScript-only patterns the tree is an approximation with
// look-around and back-references removed, so candidates are checked against
// the exact matcher and retried.
type pattern struct {
	src   string
	match matcher
	tree  *syntax.Regexp // nil when not even an approximation parses
	exact bool           // tree describes exactly the language of match
}

// compilePattern prepares a pattern; it returns nil for the empty pattern
// (which matches everything) and for patterns no engine can compile, which
// are then ignored rather than making every string unacceptable.
func compilePattern(src string) *pattern {
	if src == "" {
		return nil
	}
	m, err := compileMatcher(src)
	if err != nil {
		return nil
	}
	p := &pattern{src: src, match: m}
	if t, err := syntax.Parse(src, syntax.Perl); err == nil {
		p.tree, p.exact = t, true
	} else if t, err := syntax.Parse(approximatePattern(src), syntax.Perl); err == nil {
		p.tree = t
	}
	return p
}

// fallbackCandidates are tried, in order, when walking the tree never
// produces an accepted string (e.g. a look-ahead the approximation lost
// forbids nearly everything the walk produces).
var fallbackCandidates = [...]string{
	"sample", "abc123", "a", "abc", "a1", "A", "1", "x-1", "a_b", "Ab1", "0", "aa", "a1b2c3d4", "",
}

// generate returns a string that the pattern accepts and whose rune count is
// within [minLen, maxLen] (maxLen < 0: unbounded). ok is false when no such
// string was found within the attempt budget.
func (p *pattern) generate(r *rand.Rand, minLen, maxLen int) (string, bool) {
	if p.tree != nil {
		w := walker{r: r, extra: 3, want: -1}
		for attempt := 0; attempt < 40; attempt++ {
			w.b.Reset()
			if !w.walk(p.tree, 0, 0) {
				break
			}
			s := w.b.String()
			n := utf8.RuneCountInString(s)
			if n < minLen || (maxLen >= 0 && n > maxLen) {
				// Aim the repeats at a length inside the limits next time.
				hi := minLen + 8
				if maxLen >= 0 {
					hi = min(hi, maxLen)
				}
				w.want = minLen + r.IntN(max(hi-minLen, 0)+1)
				continue
			}
			if p.exact || p.match.MatchString(s) {
				return s, true
			}
		}
	}
	for _, s := range fallbackCandidates {
		n := utf8.RuneCountInString(s)
		if n >= minLen && (maxLen < 0 || n <= maxLen) && p.match.MatchString(s) {
			return s, true
		}
	}
	return "", false
}

// walker builds one random member of a regexp's language. extra caps how
// many repetitions beyond the minimum an unbounded or wide repeat adds;
// want, when not negative, is a target length the repeats try to reach.
type walker struct {
	r     *rand.Rand
	b     strings.Builder
	extra int
	want  int
}

// walk appends a match of re. reserve is the minimum length still to come
// after re, so a repeat aiming at want leaves room for it. It reports
// false for a node that can never match (OpNoMatch) or absurd nesting.
func (w *walker) walk(re *syntax.Regexp, reserve, depth int) bool {
	if depth > 64 {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			w.b.WriteRune(c)
		}
	case syntax.OpCharClass:
		c, ok := pickFromClass(re.Rune, w.r)
		if !ok {
			return false
		}
		w.b.WriteRune(c)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		w.b.WriteByte(alnumLower[w.r.IntN(len(alnumLower))])
	case syntax.OpCapture:
		return w.walk(re.Sub[0], reserve, depth+1)
	case syntax.OpConcat:
		rest := 0
		for _, s := range re.Sub {
			rest += minLength(s)
		}
		for _, s := range re.Sub {
			rest -= minLength(s)
			if !w.walk(s, reserve+rest, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return w.walk(re.Sub[w.r.IntN(len(re.Sub))], reserve, depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := repeatBounds(re)
		n := lo
		if w.want >= 0 {
			unit := max(minLength(re.Sub[0]), 1)
			n = (w.want - utf8.RuneCountInString(w.b.String()) - reserve) / unit
			n = max(n, lo)
			if hi >= 0 {
				n = min(n, hi)
			}
		} else {
			if hi < 0 || hi-lo > w.extra {
				hi = lo + w.extra
			}
			if hi > lo {
				n += w.r.IntN(hi - lo + 1)
			}
		}
		for i := 0; i < n; i++ {
			if !w.walk(re.Sub[0], reserve, depth+1) {
				return false
			}
		}
	}
	// Empty matches and assertions (^, $, \b, \A, \z) emit nothing; the exact
	// matcher rejects the rare candidate that violates a word boundary.
	return true
}

// minLength is the length of the shortest match of re, in runes.
func minLength(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture:
		return minLength(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += minLength(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range re.Sub {
			if m := minLength(s); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	case syntax.OpPlus:
		return minLength(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLength(re.Sub[0])
	}
	return 0
}

func repeatBounds(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpStar:
		return 0, -1
	case syntax.OpPlus:
		return 1, -1
	case syntax.OpQuest:
		return 0, 1
	}
	return re.Min, re.Max
}

const (
	alnumLower = "abcdefghijklmnopqrstuvwxyz0123456789"
	letters    = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// preferredRanges are the runes a human would type into an identifier-ish
// field; a class is sampled from its overlap with these first, so `[^/]+`
// gives "k3x" rather than control characters.
var preferredRanges = [...][2]rune{{'a', 'z'}, {'0', '9'}, {'A', 'Z'}, {'-', '-'}, {'_', '_'}, {'.', '.'}}

// pickFromClass picks a rune from a char class given as [lo,hi] pairs:
// usually from its overlap with preferredRanges, else printable ASCII, else
// anything valid.
func pickFromClass(ranges []rune, r *rand.Rand) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	if c, ok := pickClipped(ranges, r, preferredRanges[:]); ok {
		return c, true
	}
	if c, ok := pickClipped(ranges, r, [][2]rune{{0x21, 0x7e}}); ok {
		return c, true
	}
	if c, ok := pickClipped(ranges, r, [][2]rune{{0x20, 0xd7ff}, {0xe000, 0x10ffff}}); ok {
		return c, true
	}
	return 0, false
}

// pickClipped picks uniformly among the runes of ranges that fall inside one
// of the windows, without allocating.
func pickClipped(ranges []rune, r *rand.Rand, windows [][2]rune) (rune, bool) {
	total := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		for _, w := range windows {
			if lo, hi := max(ranges[i], w[0]), min(ranges[i+1], w[1]); lo <= hi {
				total += int(hi-lo) + 1
			}
		}
	}
	if total == 0 {
		return 0, false
	}
	k := r.IntN(total)
	for i := 0; i+1 < len(ranges); i += 2 {
		for _, w := range windows {
			if lo, hi := max(ranges[i], w[0]), min(ranges[i+1], w[1]); lo <= hi {
				if n := int(hi-lo) + 1; k < n {
					return lo + rune(k), true
				} else {
					k -= n
				}
			}
		}
	}
	return 0, false
}

// approximatePattern rewrites an ECMAScript pattern into something Go's
// regexp/syntax parses: look-around groups and back-references are dropped
// and (?<name> becomes (?P<name>. The result accepts a superset of the
// original's matches, close enough that filtering candidates through the
// exact matcher succeeds within a few tries.
func approximatePattern(src string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src):
			next := src[i+1]
			if !inClass && next >= '1' && next <= '9' {
				i++
				for i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' {
					i++
				}
				continue
			}
			if !inClass && next == 'k' && i+2 < len(src) && src[i+2] == '<' {
				if end := strings.IndexByte(src[i:], '>'); end > 0 {
					i += end
					continue
				}
			}
			b.WriteByte(c)
			b.WriteByte(next)
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal, not the end.
			if i+1 < len(src) && src[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == '(' && isLookaround(src[i:]):
			i = groupEnd(src, i)
		case c == '(' && strings.HasPrefix(src[i:], "(?<"):
			b.WriteString("(?P<")
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isLookaround(s string) bool {
	return strings.HasPrefix(s, "(?=") || strings.HasPrefix(s, "(?!") ||
		strings.HasPrefix(s, "(?<=") || strings.HasPrefix(s, "(?<!")
}

// groupEnd returns the index of the ')' closing the group opened at
// src[start], honouring escapes, classes and nesting; len(src)-1 if unclosed.
func groupEnd(src string, start int) int {
	depth, inClass := 0, false
	for i := start; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(src) - 1
}
