package faults

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-openapi/jsonpointer"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// Injector decides, call by call, which fault and which override apply. It
// reads the rules from its Store only when their version has changed, so
// a call costs one version read while the rules stay as they are (an
// atomic read in memory, one round trip to a shared Redis).
type Injector struct {
	store Store
	seed  uint64
	// read is the rules last read and their version; nil until the first
	// read. Swapped whole, so a call reads it without a lock.
	read atomic.Pointer[versioned]
}

type versioned struct {
	version int64
	rules   *Rules
}

// NewInjector returns an injector over st. seed draws the shares and the
// delays of random ranges: the same seed picks the same calls.
func NewInjector(st Store, seed int64) *Injector {
	return &Injector{store: st, seed: uint64(seed)}
}

// Store is where the injector's rules are kept.
func (in *Injector) Store() Store { return in.store }

// Rules are the rules at one version, decoded once, in the order they are
// tried.
type Rules struct {
	faults    []faultRule
	overrides []overrideRule
}

// Empty reports whether there is no rule at all, the common case.
func (rs *Rules) Empty() bool { return rs == nil || len(rs.faults)+len(rs.overrides) == 0 }

type selector struct {
	operation, tag string
	token          [32]byte
	hasToken       bool
}

type faultRule struct {
	id, source string
	sel        selector
	f          Fault
}

type overrideRule struct {
	id, source string
	sel        selector
	o          Override
	pointers   []jsonpointer.Pointer
	values     []any
}

// Current returns the rules as they are now.
func (in *Injector) Current() (*Rules, error) {
	v, err := in.store.Version()
	if err != nil {
		return nil, err
	}
	if r := in.read.Load(); r != nil && r.version == v {
		return r.rules, nil
	}
	stored, v, err := in.store.Rules()
	if err != nil {
		return nil, err
	}
	rs, err := compile(stored)
	if err != nil {
		return nil, err
	}
	// Calls racing here each read the rules; the newest version stays.
	for {
		old := in.read.Load()
		if old != nil && old.version > v || in.read.CompareAndSwap(old, &versioned{v, rs}) {
			return rs, nil
		}
	}
}

func compile(stored []Stored) (*Rules, error) {
	order(stored)
	rs := &Rules{}
	for _, s := range stored {
		switch s.Kind {
		case KindFault:
			var f Fault
			if err := json.Unmarshal(s.Rule, &f); err != nil {
				return nil, fmt.Errorf("faults: rule %s: %w", s.ID, err)
			}
			sel, err := newSelector(f.Operation, f.Tag, f.TokenSHA256)
			if err != nil {
				return nil, fmt.Errorf("faults: rule %s: %w", s.ID, err)
			}
			rs.faults = append(rs.faults, faultRule{id: s.ID, source: s.Source, sel: sel, f: f})
		case KindOverride:
			var o Override
			if err := json.Unmarshal(s.Rule, &o); err != nil {
				return nil, fmt.Errorf("faults: rule %s: %w", s.ID, err)
			}
			sel, err := newSelector(o.Operation, "", o.TokenSHA256)
			if err != nil {
				return nil, fmt.Errorf("faults: rule %s: %w", s.ID, err)
			}
			r := overrideRule{id: s.ID, source: s.Source, sel: sel, o: o}
			for _, m := range o.Match.Body {
				p, err := jsonpointer.New(m.Pointer)
				if err != nil {
					return nil, fmt.Errorf("faults: rule %s: %w", s.ID, err)
				}
				var v any
				if err := json.Unmarshal(m.Value, &v); err != nil {
					return nil, fmt.Errorf("faults: rule %s: %w", s.ID, err)
				}
				r.pointers, r.values = append(r.pointers, p), append(r.values, v)
			}
			rs.overrides = append(rs.overrides, r)
		}
	}
	return rs, nil
}

func newSelector(operation, tag, tokenSHA256 string) (selector, error) {
	s := selector{operation: operation, tag: tag}
	if tokenSHA256 != "" {
		b, err := hex.DecodeString(tokenSHA256)
		if err != nil || len(b) != len(s.token) {
			return s, fmt.Errorf("tokenSha256 %q is not a SHA-256 in hex", tokenSHA256)
		}
		copy(s.token[:], b)
		s.hasToken = true
	}
	return s, nil
}

// Call is what the rules select on.
type Call struct {
	Op *spec.Operation
	// Token is the SHA-256 of the call's token; HasToken is false for a
	// call without a usable one.
	Token    [32]byte
	HasToken bool
	// Now is the fake's time.
	Now time.Time
	// Path, Query and Body are what overrides match on.
	Path  map[string]string
	Query url.Values
	Body  []byte
}

func (s selector) selects(c *Call) bool {
	if s.hasToken && (!c.HasToken || c.Token != s.token) {
		return false
	}
	switch {
	case s.operation != "":
		return OperationIs(c.Op, s.operation)
	case s.tag != "":
		return c.Op != nil && c.Op.Op != nil && slices.Contains(c.Op.Op.Tags, s.tag)
	}
	return true
}

// OperationIs reports whether name names op: its operationId, or its
// method and path template ("GET /workflow/{workflowId}").
func OperationIs(op *spec.Operation, name string) bool {
	if op == nil {
		return false
	}
	if name == op.ID {
		return true
	}
	method, path, ok := strings.Cut(name, " ")
	return ok && strings.EqualFold(method, op.Method) && strings.TrimSpace(path) == op.Path
}

// Injection is a fault acting on one call.
type Injection struct {
	Rule, Source string
	Fault        Fault
	// Hit is which of the rule's uses this is, from 1.
	Hit int64
	// Delay is the time the answer is held, drawn for this hit.
	Delay time.Duration
}

// What says what the fault does to the call, for the journal.
func (i *Injection) What() string {
	var parts []string
	if i.Delay > 0 {
		parts = append(parts, "delay "+i.Delay.String())
	}
	switch {
	case i.Fault.Status != 0 && i.Fault.RetryAfter > 0:
		parts = append(parts, fmt.Sprintf("status %d (maintenance, Retry-After %s)", i.Fault.Status, i.Fault.RetryAfter))
	case i.Fault.Status != 0:
		parts = append(parts, fmt.Sprintf("status %d", i.Fault.Status))
	case i.Fault.Connection != "":
		parts = append(parts, "connection "+i.Fault.Connection)
	}
	return strings.Join(parts, ", then ")
}

// Reason names the rule, the hit and what it does, for logs and the
// error journal.
func (i *Injection) Reason() string {
	return describe(KindFault, i.Rule, i.Hit, int64(i.Fault.Times), i.Fault.Note) + ": " + i.What()
}

func describe(k Kind, id string, hit, times int64, note string) string {
	s := fmt.Sprintf("%s %s, hit %d", k, id, hit)
	if times > 0 {
		s += fmt.Sprintf(" of %d", times)
	}
	if note != "" {
		s += " (" + note + ")"
	}
	return s
}

// Fault returns the fault that acts on the call, if any: the first rule
// (in the order of Current's rules) that selects it, whose window holds
// it, whose share draws it and that is not spent meanwhile. Its use is
// counted.
func (in *Injector) Fault(rs *Rules, c *Call) (*Injection, error) {
	if rs == nil {
		return nil, nil
	}
	for i := range rs.faults {
		r := &rs.faults[i]
		f := &r.f
		if !r.sel.selects(c) || !f.From.IsZero() && c.Now.Before(f.From) || !f.Until.IsZero() && !c.Now.Before(f.Until) {
			continue
		}
		if f.Share > 0 && f.Share < 1 {
			n, err := in.store.Seen(r.id)
			if err != nil {
				return nil, err
			}
			if n == 0 || draw(in.seed, r.id, n, saltShare) >= f.Share {
				continue
			}
		}
		hit, err := in.store.Hit(r.id, int64(f.Times))
		if err != nil {
			return nil, err
		}
		if hit == 0 {
			continue
		}
		delay := f.Delay
		if f.DelayMax > f.Delay {
			delay += time.Duration(draw(in.seed, r.id, hit, saltDelay) * float64(f.DelayMax-f.Delay))
		}
		return &Injection{Rule: r.id, Source: r.source, Fault: *f, Hit: hit, Delay: delay}, nil
	}
	return nil, nil
}

// Pinned is an override answering one call.
type Pinned struct {
	Rule, Source string
	Override     Override
	Hit          int64
}

// Reason names the rule and the hit, for logs and the journal.
func (p *Pinned) Reason() string {
	return describe(KindOverride, p.Rule, p.Hit, int64(p.Override.Times), p.Override.Note) +
		fmt.Sprintf(": status %d", p.Override.Status)
}

// Override returns the override that answers the call, if any: the first
// that selects it and whose conditions all hold. Its use is counted.
func (in *Injector) Override(rs *Rules, c *Call) (*Pinned, error) {
	if rs == nil || len(rs.overrides) == 0 {
		return nil, nil
	}
	var body any
	bodyRead, bodyOK := false, false
	for i := range rs.overrides {
		r := &rs.overrides[i]
		if !r.sel.selects(c) || !r.matchesPathAndQuery(c) {
			continue
		}
		if len(r.pointers) > 0 {
			if !bodyRead {
				bodyRead, bodyOK = true, json.Unmarshal(c.Body, &body) == nil
			}
			if !bodyOK || !r.bodyMatches(body) {
				continue
			}
		}
		hit, err := in.store.Hit(r.id, int64(r.o.Times))
		if err != nil {
			return nil, err
		}
		if hit == 0 {
			continue
		}
		return &Pinned{Rule: r.id, Source: r.source, Override: r.o, Hit: hit}, nil
	}
	return nil, nil
}

// matchesPathAndQuery: every path parameter the override names has its
// value, and every query parameter it names has its value among the
// call's.
func (r *overrideRule) matchesPathAndQuery(c *Call) bool {
	for k, v := range r.o.Match.Path {
		if got, ok := c.Path[k]; !ok || got != v {
			return false
		}
	}
	for k, v := range r.o.Match.Query {
		if !slices.Contains(c.Query[k], v) {
			return false
		}
	}
	return true
}

func (r *overrideRule) bodyMatches(body any) bool {
	for i, p := range r.pointers {
		got, _, err := p.Get(body)
		if err != nil || !reflect.DeepEqual(got, r.values[i]) {
			return false
		}
	}
	return true
}

// Salts keep the draws of one hit apart.
const (
	saltShare uint64 = 0x5a17
	saltDelay uint64 = 0xde1a
)

// draw is a number in [0, 1) fixed by the seed, the rule, the count and
// the salt: the same rule on the same seed picks the same calls and the
// same delays on every run and every replica (splitmix64's finaliser over
// FNV-1a of the id).
func draw(seed uint64, id string, n int64, salt uint64) float64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	x := h.Sum64() ^ seed*0x9E3779B97F4A7C15 ^ uint64(n)*0xBF58476D1CE4E5B9 ^ salt
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}
