package mock_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
)

// mutatedCalls is how many mutated calls TestPipelineUnderMutatedCalls
// sends: CI's plain run sends the full count (a few seconds); under -race,
// where each call is many times slower, and with -short, a tenth.
const mutatedCalls = 30_000

// TestPipelineUnderMutatedCalls holds the pipeline to FuzzPipeline's rules
// (pipelineChecker) for calls made by mutating the fuzzer's seeds and its
// corpus in testdata/fuzz with a seeded random source: the same calls on
// every run, so a failure reproduces, and another seed (WMSMOCK_MUTATE_SEED)
// explores further. It is what CI runs in place of a fuzzing session: the
// coverage-guided fuzzer needs its own instrumented build of every package
// the fake links, which took a fifth of CI's time on a fresh machine, while
// these calls reach the same code through the ordinary test binary. A call
// that breaks a rule is printed in the corpus file format, ready to be kept
// in testdata/fuzz/FuzzPipeline.
func TestPipelineUnderMutatedCalls(t *testing.T) {
	doc := embedded(t)
	base := append(seedCalls(t, doc), corpusCalls(t, filepath.Join("testdata", "fuzz", "FuzzPipeline"))...)
	check := pipelineChecker(t, doc)
	n := mutatedCalls
	if testenv.RaceEnabled || testing.Short() {
		n /= 10
	}
	r := rand.New(rand.NewPCG(mutateSeed, 0x5eed))
	failures := 0
	statuses := map[int]int{}
	answered := map[uint8]bool{} // operations that answered a success
	for i := range n {
		c := mutate(r, base[r.IntN(len(base))], len(doc.Operations))
		status, broken := check(c)
		statuses[status]++
		if status >= 200 && status < 300 {
			answered[uint8(int(c.op)%len(doc.Operations))] = true
		}
		if broken != "" {
			failures++
			t.Errorf("mutated call %d: %s\nas a corpus entry:\n%s", i, broken, corpusEntry(c))
			if failures == 5 {
				t.Fatal("stopping after 5 broken calls")
			}
		}
	}
	// Calls that all die in the router or at the token would test little:
	// a good share must get through to the handlers, and past the request
	// checks to an answer, across many operations.
	reached := 0
	for status, k := range statuses {
		if status >= 200 && status < 300 || status == 400 || status == 409 {
			reached += k
		}
	}
	t.Logf("%d mutated calls from %d seeds and corpus entries; statuses %v; %d operations answered a success",
		n, len(base), statuses, len(answered))
	if reached < n/5 || len(answered) < len(doc.Operations)/4 {
		t.Errorf("only %d of %d calls reached a handler's checks and %d of %d operations answered a success: the mutations stay at the door",
			reached, n, len(answered), len(doc.Operations))
	}
}

// mutateSeed picks the sequence of mutations; CI keeps the default.
var mutateSeed = func() uint64 {
	if s, err := strconv.ParseUint(os.Getenv("WMSMOCK_MUTATE_SEED"), 10, 64); err == nil {
		return s
	}
	return 1
}()

// tokens are pieces of text mutations splice in: JSON punctuation and
// values at the edges of their types, escapes, path segments, query syntax
// and header syntax, each a way the pipeline's parsing could go wrong.
var tokens = []string{
	"{", "}", "[", "]", `"`, ":", ",", "null", "true", "-0", "1e999", "-1", "2147483648",
	"9223372036854775808", "0.5", `"\u0000"`, `"\ud800"`, `{"launch":`, `{"name":null}`,
	"%", "%zz", "%2F", "%00", "..", "/", "\\", "?", "#", "&", "=", ";", "+",
	"\r\n", "\x00", "\xff", "é", "😀", strings.Repeat("a", 300),
	"max=", "offset=", "workspaceId=", "search=", "attributes=",
	"Content-Type: application/json\r\n", "Content-Type: text/plain\r\n", "Accept-Version: 1\r\n",
	"Accept-Version: x\r\n", "Content-Encoding: gzip\r\n", "Authorization: Bearer x\r\n",
	"Authorization: Basic Zm9vOmJhcg==\r\n", "Transfer-Encoding: chunked\r\n",
}

var methods = []string{"", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "BREW"}

// mutate returns a copy of c with one to three of its parts changed.
func mutate(r *rand.Rand, c pipelineCall, ops int) pipelineCall {
	c.body = append([]byte(nil), c.body...)
	for range 1 + r.IntN(3) {
		switch r.IntN(8) {
		case 0:
			c.op = uint8(r.IntN(ops))
		case 1:
			c.method = methods[r.IntN(len(methods))]
		case 2:
			c.param = mutateText(r, c.param)
		case 3:
			c.query = mutateText(r, c.query)
		case 4:
			c.header = mutateText(r, c.header)
		case 5:
			c.auth = !c.auth
		default: // bodies have the most structure to break
			c.body = []byte(mutateText(r, string(c.body)))
		}
	}
	return c
}

// mutateText makes one change to s: a token inserted, a span deleted or
// repeated, a byte replaced, or s emptied.
func mutateText(r *rand.Rand, s string) string {
	what := r.IntN(6)
	switch {
	case what <= 1:
		i := r.IntN(len(s) + 1)
		return s[:i] + tokens[r.IntN(len(tokens))] + s[i:]
	case what == 5:
		return ""
	case s == "":
		return s // nothing to delete, repeat or replace
	}
	// Replace the byte at i, or delete or repeat s[i:j], one to 16 bytes.
	i := r.IntN(len(s))
	if what == 4 {
		b := []byte(s)
		b[i] = byte(r.IntN(256))
		return string(b)
	}
	j := i + 1 + r.IntN(min(len(s)-i, 16))
	if what == 2 {
		return s[:i] + s[j:]
	}
	return s[:j] + s[i:j] + s[j:]
}

// corpusCalls reads the fuzzer's corpus files (the "go test fuzz v1"
// format: one typed Go literal per line, in FuzzPipeline's argument order).
func corpusCalls(t *testing.T, dir string) []pipelineCall {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("the fuzz corpus: %v", err)
	}
	var calls []pipelineCall
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 8 || lines[0] != "go test fuzz v1" {
			t.Fatalf("%s: not a FuzzPipeline corpus entry (%d lines)", e.Name(), len(lines))
		}
		vals := make([]string, 7)
		for i, line := range lines[1:] {
			open, close := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
			if open < 0 || close < open {
				t.Fatalf("%s: line %q", e.Name(), line)
			}
			kind, lit := line[:open], line[open+1:close]
			switch kind {
			case "byte", "uint8":
				if strings.HasPrefix(lit, "'") {
					v, _, _, err := strconv.UnquoteChar(strings.Trim(lit, "'"), '\'')
					if err != nil {
						t.Fatalf("%s: %q: %v", e.Name(), line, err)
					}
					lit = strconv.Itoa(int(v))
				}
				vals[i] = lit
			case "string", "[]byte":
				s, err := strconv.Unquote(lit)
				if err != nil {
					t.Fatalf("%s: %q: %v", e.Name(), line, err)
				}
				vals[i] = s
			case "bool":
				vals[i] = lit
			default:
				t.Fatalf("%s: unexpected type in %q", e.Name(), line)
			}
		}
		op, err1 := strconv.ParseUint(vals[0], 10, 8)
		auth, err2 := strconv.ParseBool(vals[6])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: op %q or auth %q unreadable", e.Name(), vals[0], vals[6])
		}
		calls = append(calls, pipelineCall{uint8(op), vals[1], vals[2], vals[3], vals[4], []byte(vals[5]), auth})
	}
	if len(calls) == 0 {
		t.Fatal("the fuzz corpus is empty")
	}
	return calls
}

// corpusEntry writes c as a FuzzPipeline corpus file.
func corpusEntry(c pipelineCall) string {
	return fmt.Sprintf("go test fuzz v1\nbyte(%q)\nstring(%q)\nstring(%q)\nstring(%q)\nstring(%q)\n[]byte(%q)\nbool(%t)\n",
		rune(c.op), c.method, c.param, c.query, c.header, c.body, c.auth)
}
