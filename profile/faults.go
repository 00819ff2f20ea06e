package profile

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Faults are the failures the fake injects because it was asked to
// (mock/faults, docs/faults.md): how each injected status is answered,
// and the rules that hold from the start of every run (a flaky network
// for a whole CI run, say). Rules added at run time, through the admin
// API or a Go test, use the same replies.
type Faults struct {
	// InternalError answers an injected 500: the service's own failure.
	InternalError Reply `yaml:"internal_error"`
	// BadGateway, Unavailable and GatewayTimeout answer an injected 502,
	// 503 and 504: what the gateway in front of the service sends when
	// the service behind it fails, is down or is too slow.
	BadGateway     Reply `yaml:"bad_gateway"`
	Unavailable    Reply `yaml:"unavailable"`
	GatewayTimeout Reply `yaml:"gateway_timeout"`
	// Maintenance answers an injected 503 that carries a Retry-After: the
	// service down for maintenance, telling clients when to come back.
	Maintenance Reply       `yaml:"maintenance"`
	Rules       []FaultRule `yaml:"rules"`
}

// FaultStatuses are the statuses a fault can answer with, each with its
// reply above.
var FaultStatuses = []int{500, 502, 503, 504}

// Reply is the reply for an injected status: Maintenance for a 503 with
// a Retry-After. False for a status no fault answers with.
func (f *Faults) Reply(status int, retryAfter bool) (Reply, bool) {
	switch {
	case status == 503 && retryAfter:
		return f.Maintenance, true
	case status == 500:
		return f.InternalError, true
	case status == 502:
		return f.BadGateway, true
	case status == 503:
		return f.Unavailable, true
	case status == 504:
		return f.GatewayTimeout, true
	}
	return Reply{}, false
}

// The ways a fault can break the connection instead of answering.
const (
	// ConnReset resets the connection (a TCP RST) before any answer: the
	// client reads "connection reset by peer".
	ConnReset = "reset"
	// ConnEmpty closes the connection before any answer: the client reads
	// an end of file where the status line should be.
	ConnEmpty = "empty"
	// ConnCut sends the status, the headers (with the whole answer's
	// Content-Length) and half the body, then closes the connection: the
	// client reads an unexpected end of file in the body.
	ConnCut = "cut"
	// ConnStall sends what ConnCut sends, then nothing until the client
	// gives up or the stall's time is over, and then closes the
	// connection: the client's read timeout is what ends it.
	ConnStall = "stall"
)

// Connections lists the connection faults.
var Connections = []string{ConnReset, ConnEmpty, ConnCut, ConnStall}

// The bounds every fault rule keeps, whichever door it comes through.
const (
	// MaxFaultDelay bounds a delay and a stall: a gateway in front of a
	// service gives up on it after about a minute (nginx's and the AWS
	// load balancer's default timeouts are 60s) and answers 504 instead,
	// so a longer wait is not a fault a client can meet.
	MaxFaultDelay = 60 * time.Second
	// MaxRetryAfter bounds a maintenance reply's Retry-After.
	MaxRetryAfter = time.Hour
	// MaxFaultRules bounds the rules, faults and overrides together, that
	// a fake holds at once: every call is matched against them.
	MaxFaultRules = 100
	// MaxOverrideBody bounds the body an override pins, in bytes.
	MaxOverrideBody = 256 << 10
)

// FaultRule is one fault: which calls it selects, how many of them, and
// what it does to them. Its fields are documented in default.yaml; the
// admin API and the Go type faults.Fault take the same ones.
type FaultRule struct {
	// Operation is an operationId, or "METHOD /path/template"; Tag
	// selects every operation with that tag. Neither: every API call.
	Operation string `yaml:"operation,omitempty"`
	Tag       string `yaml:"tag,omitempty"`
	// Token, when set, selects only the calls made with it.
	Token string `yaml:"token,omitempty"`
	// Times is how many calls the rule acts on before it is spent; 0:
	// every call while it lasts.
	Times int `yaml:"times,omitempty"`
	// Share is the part of the selected calls it acts on, drawn with the
	// fake's seed (the same calls on every run); 0 means all of them.
	Share float64 `yaml:"share,omitempty"`
	// Delay holds the answer this long in real time, or a time drawn
	// between Delay and DelayMax when DelayMax is set.
	Delay    time.Duration `yaml:"delay,omitempty"`
	DelayMax time.Duration `yaml:"delay_max,omitempty"`
	// Status answers with one of FaultStatuses and its reply instead of
	// the operation's answer; RetryAfter (a 503 only) makes it the
	// maintenance reply.
	Status     int           `yaml:"status,omitempty"`
	RetryAfter time.Duration `yaml:"retry_after,omitempty"`
	// Connection breaks the connection instead (Connections); Stall is
	// how long a stalled body waits (default MaxFaultDelay).
	Connection string        `yaml:"connection,omitempty"`
	Stall      time.Duration `yaml:"stall,omitempty"`
	// Note says why the rule is there; the journal and log show it.
	Note string `yaml:"note,omitempty"`
}

// FaultProblem is one thing wrong with a fault rule: its key (as written
// in a profile) and what is wrong.
type FaultProblem struct {
	Key, Msg string
}

// Problems lists what is wrong with the rule, every bound included; nil
// when it can be used. Whether its operation or tag exists depends on the
// document served, which the fake checks when it takes the rule.
func (r FaultRule) Problems() []FaultProblem {
	var out []FaultProblem
	add := func(key, format string, args ...any) {
		out = append(out, FaultProblem{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if r.Operation != "" && r.Tag != "" {
		add("tag", "give an operation or a tag, not both")
	}
	if r.Times < 0 {
		add("times", "must not be negative, got %d", r.Times)
	}
	if r.Share < 0 || r.Share > 1 {
		add("share", "must be between 0 and 1 (0: every call), got %g", r.Share)
	}
	if r.Delay < 0 || r.Delay > MaxFaultDelay {
		add("delay", "%s: use 0s up to %s", r.Delay, MaxFaultDelay)
	}
	if r.DelayMax != 0 && (r.DelayMax < r.Delay || r.DelayMax > MaxFaultDelay) {
		add("delay_max", "%s: use a time from delay (%s) up to %s", r.DelayMax, r.Delay, MaxFaultDelay)
	}
	if r.Status != 0 && !slices.Contains(FaultStatuses, r.Status) {
		add("status", "%d: a fault answers with one of %v (each has its reply under faults)", r.Status, FaultStatuses)
	}
	switch {
	case r.RetryAfter == 0:
	case r.Status != 503:
		add("retry_after", "goes with status 503 only (the maintenance reply)")
	case r.RetryAfter < time.Second || r.RetryAfter > MaxRetryAfter || r.RetryAfter%time.Second != 0:
		add("retry_after", "%s: Retry-After is whole seconds, from 1s up to %s", r.RetryAfter, MaxRetryAfter)
	}
	if r.Connection != "" && !slices.Contains(Connections, r.Connection) {
		add("connection", "%q: use one of %v", r.Connection, Connections)
	}
	if r.Connection != "" && r.Status != 0 {
		add("connection", "a fault either answers with a status or breaks the connection, not both")
	}
	if r.Stall != 0 && r.Connection != ConnStall {
		add("stall", "goes with connection: %s only", ConnStall)
	} else if r.Stall < 0 || r.Stall > MaxFaultDelay {
		add("stall", "%s: use a time up to %s", r.Stall, MaxFaultDelay)
	}
	if r.Delay == 0 && r.DelayMax == 0 && r.Status == 0 && r.Connection == "" {
		add("", "the rule does nothing: give a delay, a status or a connection fault")
	}
	return out
}

func (f *Faults) validate(v *validator) {
	v.faultReply("faults.internal_error", f.InternalError)
	v.faultReply("faults.bad_gateway", f.BadGateway)
	v.faultReply("faults.unavailable", f.Unavailable)
	v.faultReply("faults.gateway_timeout", f.GatewayTimeout)
	v.faultReply("faults.maintenance", f.Maintenance)
	if len(f.Rules) > MaxFaultRules {
		v.add("faults.rules", "%d rules: at most %d", len(f.Rules), MaxFaultRules)
	}
	for i, r := range f.Rules {
		key := fmt.Sprintf("faults.rules[%d]", i)
		for _, p := range r.Problems() {
			if p.Key != "" {
				v.add(join(key, p.Key), "%s", p.Msg)
			} else {
				v.add(key, "%s", p.Msg)
			}
		}
	}
}

// faultReply checks a reply as any other, and that it is a server-side
// failure: a fault stands for the service or its gateway failing.
func (v *validator) faultReply(key string, r Reply) {
	v.reply(key, r)
	if r.Status >= 400 && r.Status < 500 {
		v.add(key+".status", "%d: an injected fault answers with a 5xx status", r.Status)
	}
}

func (f Faults) clone() Faults {
	c := f
	c.Rules = slices.Clone(f.Rules)
	for _, r := range []*Reply{&c.InternalError, &c.BadGateway, &c.Unavailable, &c.GatewayTimeout, &c.Maintenance} {
		r.Headers = maps.Clone(r.Headers)
	}
	return c
}
