package synth

import (
	"strings"
	"unicode/utf8"
)

// str generates a string for n. Candidates are tried from most to least
// specific (example, timestamp format, name heuristic, other format,
// pattern, generic words) and the first that satisfies every string
// constraint wins; if none does, the generic value is bent to the length
// limits as a best effort.
func (c *run) str(n *node, fd field, ot *objTimes) string {
	timeFormat := n.format == "date-time" || n.format == "date" || n.format == "time"
	if timeFormat {
		if s, _ := c.formatValue(n.format, fd.lname, ot); stringOK(n, s) {
			return s
		}
	}
	if fd.h != nil && fd.h.str != nil {
		if s := fd.h.str(c); stringOK(n, s) {
			return s
		}
	}
	if n.format != "" && !timeFormat {
		if s, ok := c.formatValue(n.format, fd.lname, ot); ok && stringOK(n, s) {
			return s
		}
	}
	if len(n.patterns) > 0 {
		return c.patternString(n)
	}
	s := pick(c, genericWords) + "-" + pick(c, scientists)
	if stringOK(n, s) {
		return s
	}
	if l := utf8.RuneCountInString(s); l < n.minLen {
		// Too short for a word: an opaque token of a fitting length reads
		// better than a padded word.
		extra := 8
		if n.maxLen >= 0 {
			extra = min(extra, n.maxLen-n.minLen)
		}
		s = IDN(c.r, n.minLen+c.r.IntN(max(extra, 0)+1))
	}
	return c.fitLength(s, n.minLen, n.maxLen)
}

// patternString generates from the first pattern and checks the rest,
// since allOf can stack several patterns on one string.
func (c *run) patternString(n *node) string {
	var s string
	for try := 0; try < 4; try++ {
		var ok bool
		s, ok = n.patterns[0].generate(c.r, n.minLen, n.maxLen)
		if ok && stringOK(n, s) {
			return s
		}
	}
	return s
}

// fitLength pads s with letters or truncates it to satisfy the length
// limits, counted in code points as JSON Schema does.
func (c *run) fitLength(s string, minLen, maxLen int) string {
	n := utf8.RuneCountInString(s)
	if n < minLen {
		var b strings.Builder
		b.WriteString(s)
		for ; n < minLen; n++ {
			b.WriteByte(letters[c.r.IntN(26)])
		}
		s = b.String()
	}
	if maxLen >= 0 && n > maxLen {
		i := 0
		for k := 0; k < maxLen; k++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		s = s[:i]
	}
	return s
}
