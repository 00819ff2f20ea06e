package synth

import (
	"regexp"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// regexTimeout bounds a single regexp2 match. regexp2 backtracks, so a
// hostile pattern could otherwise stall a request; patterns in API schemas are
// tiny and finish in microseconds.
const regexTimeout = 100 * time.Millisecond

// RegexpEngine compiles an OpenAPI `pattern` for JSON Schema validation
// (santhosh-tekuri/jsonschema's RegexpEngine signature, as accepted by
// libopenapi-validator's config.WithRegexEngine).
//
// OpenAPI patterns are ECMA-262 regular expressions, but Go's RE2-based regexp
// rejects look-around and back-references, which the published Seqera schema
// uses. Go's engine is tried first because it is linear-time and fast; only the
// patterns it cannot parse go to regexp2 in ECMAScript mode, where `\d` and
// `\w` stay ASCII-only as in JavaScript and look-around works.
func RegexpEngine(pattern string) (jsonschema.Regexp, error) {
	m, err := compileMatcher(pattern)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// matcher is what the generator and the internal checker need from a
// compiled pattern; both *regexp.Regexp and ecmaRegexp satisfy it.
type matcher interface {
	MatchString(string) bool
	String() string
}

// compileMatcher returns Go's regexp when it accepts the pattern and a
// regexp2 ECMAScript matcher otherwise.
func compileMatcher(pattern string) (matcher, error) {
	if re, err := regexp.Compile(pattern); err == nil {
		return re, nil
	}
	re, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	if err != nil {
		// ECMAScript mode refuses a few .NET/RE2 spellings such as (?P<name>);
		// RE2-compatibility mode keeps \d ASCII-only and still has look-around.
		var err2 error
		re, err2 = regexp2.Compile(pattern, regexp2.RE2)
		if err2 != nil {
			return nil, err
		}
	}
	re.MatchTimeout = regexTimeout
	return ecmaRegexp{re}, nil
}

// ecmaRegexp adapts regexp2 to the jsonschema.Regexp interface. A match that
// errors (only a timeout is possible) counts as no match.
type ecmaRegexp struct{ re *regexp2.Regexp }

func (e ecmaRegexp) MatchString(s string) bool {
	ok, err := e.re.MatchString(s)
	return ok && err == nil
}

func (e ecmaRegexp) String() string { return e.re.String() }
