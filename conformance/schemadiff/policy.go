package schemadiff

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/oasdiff/oasdiff/checker"
	"go.yaml.in/yaml/v4"
)

// Severity is what a change means for a client that followed the old
// document.
type Severity string

// Severities, from the least to the most serious.
const (
	Safe     Severity = "safe"
	Review   Severity = "review"
	Breaking Severity = "breaking"
)

// rank orders severities; 0 is not a severity.
func (s Severity) rank() int {
	switch s {
	case Safe:
		return 1
	case Review:
		return 2
	case Breaking:
		return 3
	}
	return 0
}

// AtLeast reports whether s is as serious as t or more.
func (s Severity) AtLeast(t Severity) bool { return s.rank() >= t.rank() && t.rank() > 0 }

// Label is how people read the severity.
func (s Severity) Label() string {
	if s == Review {
		return "needs review"
	}
	return string(s)
}

// ParseSeverity reads a severity as a rules file or a flag writes it.
func ParseSeverity(v string) (Severity, error) {
	switch s := Severity(strings.ToLower(strings.TrimSpace(v))); s {
	case Safe, Review, Breaking:
		return s, nil
	case "needs-review", "needs review":
		return Review, nil
	}
	return "", fmt.Errorf("%q is not a severity (breaking, review or safe)", v)
}

//go:embed policy.yaml
var servicePolicy []byte

// Policy gives each oasdiff rule the severity it has for this service's
// clients. Rules it does not name keep the severity of oasdiff's level for
// the change (error: breaking, warning: review, info: safe), which oasdiff
// may lower where it knows better (a read-only property in a request).
type Policy struct {
	rules map[string]Severity
}

// DefaultPolicy is the service's compatibility policy (policy.yaml):
// new endpoints, optional request fields and parameters, response fields
// and response enum values are safe; a removed response field is breaking.
func DefaultPolicy() *Policy {
	p, err := parsePolicy(servicePolicy)
	if err != nil {
		panic("schemadiff: the embedded policy is invalid: " + err.Error())
	}
	return p
}

// WithRules returns a copy of p with the rules of a rules file laid over
// it: a YAML mapping from rule id to severity, e.g.
//
//	response-property-enum-value-added: breaking
//	request-property-removed: safe
//
// Every id must be one of oasdiff's rules (RuleIDs), so that a misspelt
// rule is an error rather than a silent no-op.
func (p *Policy) WithRules(b []byte) (*Policy, error) {
	over, err := parsePolicy(b)
	if err != nil {
		return nil, err
	}
	out := &Policy{rules: make(map[string]Severity, len(p.rules)+len(over.rules))}
	for id, s := range p.rules {
		out.rules[id] = s
	}
	for id, s := range over.rules {
		out.rules[id] = s
	}
	return out, nil
}

// WithRulesFile is WithRules on a file's contents.
func (p *Policy) WithRulesFile(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	q, err := p.WithRules(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return q, nil
}

func parsePolicy(b []byte) (*Policy, error) {
	var raw map[string]string
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("not a mapping from rule id to severity: %w", err)
	}
	p := &Policy{rules: make(map[string]Severity, len(raw))}
	known := ruleIndex()
	var errs []error
	ids := make([]string, 0, len(raw))
	for id := range raw {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, ok := known[id]; !ok {
			errs = append(errs, fmt.Errorf("unknown rule %q (wmsmock diff --list-rules lists them)", id))
			continue
		}
		s, err := ParseSeverity(raw[id])
		if err != nil {
			errs = append(errs, fmt.Errorf("rule %s: %w", id, err))
			continue
		}
		p.rules[id] = s
	}
	return p, errors.Join(errs...)
}

// severity is the severity of one change: the policy's for its rule, else
// the one oasdiff's level for it means.
func (p *Policy) severity(id string, level checker.Level) Severity {
	if s, ok := p.rules[id]; ok {
		return s
	}
	switch {
	case level >= checker.ERR:
		return Breaking
	case level >= checker.WARN:
		return Review
	}
	return Safe
}

// Rule is one of oasdiff's rules as the policy sees it.
type Rule struct {
	ID          string   `json:"id"`
	Direction   string   `json:"direction,omitempty"`
	Description string   `json:"description"`
	Level       string   `json:"level"` // oasdiff's own
	Severity    Severity `json:"severity"`
	// Policy is set when the policy, not oasdiff's level, decides.
	Policy bool `json:"policy,omitempty"`
}

// Rules lists every rule with the severity p gives it by default, sorted by
// id: what a rules file can change.
func (p *Policy) Rules() []Rule {
	idx := ruleIndex()
	loc := checker.NewDefaultLocalizer()
	out := make([]Rule, 0, len(idx))
	for id, r := range idx {
		s, ok := p.rules[id]
		if !ok {
			s = p.severity(id, r.Level)
		}
		out = append(out, Rule{
			ID: id, Direction: direction(r.Direction), Description: loc(r.Description),
			Level: r.Level.String(), Severity: s, Policy: ok,
		})
	}
	slices.SortFunc(out, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// ruleIndex is oasdiff's rules by id, built once: the checker's own table
// is rebuilt on every call.
var ruleIndex = sync.OnceValue(func() map[string]checker.BackwardCompatibilityRule {
	m := map[string]checker.BackwardCompatibilityRule{}
	for _, r := range checker.GetAllRules() {
		m[r.Id] = r
	}
	return m
})

// direction names a rule's direction: the request a client sends, the
// response it reads, or "" for a rule about the document as a whole.
func direction(d checker.Direction) string {
	switch d {
	case checker.DirectionRequest:
		return "request"
	case checker.DirectionResponse:
		return "response"
	}
	return ""
}
