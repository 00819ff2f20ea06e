package synth

import (
	"math/rand/v2"
	"regexp"
	"testing"
	"unicode/utf8"
)

func TestPatternGeneration(t *testing.T) {
	tests := []struct {
		name, pattern  string
		minLen, maxLen int
		distinct       int // at least this many different strings in 200 tries
	}{
		{"anchored class repeat", `^[a-z][a-z0-9-]{2,10}$`, 0, -1, 5},
		{"look-ahead (published user name)", `^[a-zA-Z\d](?:[a-zA-Z\d]|[-_](?=[a-zA-Z\d])){1,38}$`, 0, -1, 5},
		{"negative look-ahead with back-reference (published identifier)", `^[a-zA-Z_](?:[0-9A-Za-z]+|(_)(?!\1)){1,49}$`, 0, -1, 5},
		{"look-behind", `^[a-z]+(?<!x)$`, 0, -1, 5},
		{"named group, ECMAScript spelling", `^(?<year>\d{4})-(?<month>\d{2})$`, 0, -1, 5},
		{"unanchored", `ab+c`, 0, -1, 4},
		{"alternation", `^(alpha|beta|gamma)-\d+$`, 0, -1, 5},
		{"dot star with length", `^.*$`, 5, 8, 5},
		{"negated class", `^[^/]+/[^/]+$`, 0, -1, 5},
		{"escapes", `^\w+\.\w+@\w+\.(com|org)$`, 0, -1, 5},
		{"long minimum", `^[0-9a-f]+$`, 40, 40, 5},
		{"unicode class", `^\p{Greek}{3}$`, 0, -1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := compilePattern(tc.pattern)
			if p == nil {
				t.Fatalf("pattern %q did not compile", tc.pattern)
			}
			m, err := RegexpEngine(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for seed := uint64(0); seed < 200; seed++ {
				r := rand.New(rand.NewPCG(seed, 7))
				s, ok := p.generate(r, tc.minLen, tc.maxLen)
				if !ok {
					t.Fatalf("seed %d: no string generated", seed)
				}
				if !m.MatchString(s) {
					t.Fatalf("seed %d: %q does not match %s", seed, s, tc.pattern)
				}
				if n := utf8.RuneCountInString(s); n < tc.minLen || (tc.maxLen >= 0 && n > tc.maxLen) {
					t.Fatalf("seed %d: %q has length %d", seed, s, n)
				}
				seen[s] = true
			}
			if len(seen) < tc.distinct {
				t.Errorf("only %d distinct strings: %v", len(seen), seen)
			}
		})
	}
}

func TestRegexpEngine(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		reject  []string
	}{
		{`^[a-zA-Z\d](?:[a-zA-Z\d]|[-_](?=[a-zA-Z\d])){1,38}$`, []string{"ab", "a-b", "my_org-1"}, []string{"a-", "a--b", "-ab", "a"}},
		{`^[a-zA-Z_](?:[0-9A-Za-z]+|(_)(?!\1)){1,49}$`, []string{"ab", "a_b", "_a"}, []string{"a__b", "1a"}},
		// \d is ASCII-only in ECMAScript, as in Go.
		{`^\d+(?=x)`, []string{"12x"}, []string{"١٢x", "12y"}},
		{`^\d{3}$`, []string{"123"}, []string{"١٢٣", "12"}},
	}
	for _, tc := range tests {
		re, err := RegexpEngine(tc.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		for _, s := range tc.match {
			if !re.MatchString(s) {
				t.Errorf("%s should match %q", tc.pattern, s)
			}
		}
		for _, s := range tc.reject {
			if re.MatchString(s) {
				t.Errorf("%s should not match %q", tc.pattern, s)
			}
		}
	}
	if _, err := RegexpEngine(`(`); err == nil {
		t.Error("an invalid pattern compiled")
	}
	if re, _ := RegexpEngine(`^a+$`); re == nil {
		t.Error("plain pattern failed")
	} else if _, isGo := re.(*regexp.Regexp); !isGo {
		t.Error("patterns Go accepts should use Go's linear-time engine")
	}
}
