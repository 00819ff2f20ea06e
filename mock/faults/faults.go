// Package faults holds the failures and pinned answers a fake gives
// because a test asked for them: a slow answer, a failure status, a
// dropped, empty, cut or stalled connection, an outage (faults), and an
// operation's answer fixed for the calls that match (overrides).
//
// A client's retry and timeout code is only tested against a server that
// misbehaves, and the service's clients have such code: the service's
// Terraform provider retries 429, 502, 503, 504 and broken connections for
// up to five minutes, and Nextflow's client retries its reports. So a test
// says which calls should go wrong and how, through any of three doors
// onto one model: the admin API (/_mock/admin/faults and .../overrides),
// Go (Server.AddFault, mock.WithFault) and the profile (faults.rules).
//
// A rule selects calls by operation (or tag), optionally by token, and
// acts on the next N of them, a share drawn with the fake's seed, or the
// calls within a window of the fake's time. The rules live in a Store
// (Memory, or Redis shared by replicas), with their use counts, so that
// "the next 3 calls" means three calls whichever replica answers them.
// Every rule is bounded: MaxFaultRules at once, delays and stalls within
// MaxFaultDelay, pinned bodies within MaxOverrideBody (profile package).
package faults

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/go-openapi/jsonpointer"

	"github.com/wmsmock/wmsmock/profile"
)

// Kind is what a rule does: inject a fault, or pin an answer.
type Kind string

// The kinds of rule.
const (
	KindFault    Kind = "fault"
	KindOverride Kind = "override"
)

// Where a rule came from. Profile and option rules are pinned: a reset
// brings them back; admin and library rules are gone after a reset.
const (
	SourceProfile = "profile"
	SourceOption  = "option"
	SourceAdmin   = "admin"
	SourceLibrary = "library"
)

// Errors a rule can be refused with; both wrap the reason.
var (
	// ErrInvalid is a rule that cannot be used as given.
	ErrInvalid = errors.New("invalid rule")
	// ErrFull is a rule past MaxFaultRules.
	ErrFull = fmt.Errorf("%w: the fake holds %d rules at most (faults and overrides together); remove some first",
		ErrInvalid, profile.MaxFaultRules)
)

// Fault is one fault rule: which calls, how many of them, and what
// happens to them. The zero value of each field means "no condition" or
// "nothing": a Fault with only Status: 503 answers every call with 503.
type Fault struct {
	// Operation is an operationId, or "METHOD /path/template" as the
	// document writes it; Tag selects every operation with the tag.
	// Neither: every API call (an outage).
	Operation string
	Tag       string
	// Token, when set, selects the calls made with that token only. It is
	// kept as its SHA-256 (TokenSHA256), never as given.
	Token       string
	TokenSHA256 string
	// Times is how many calls the fault acts on before it is removed.
	Times int
	// Share is the part of the selected calls it acts on (0 < Share < 1),
	// drawn with the fake's seed: the same calls on every run.
	Share float64
	// From and Until bound it on the fake's clock (zero: unbounded). For,
	// when set, is Until counted from From (or from the time the rule is
	// added): a window the fake's clock control moves through.
	From, Until time.Time
	For         time.Duration
	// Delay holds the answer in real time, since a client's timeout is
	// real: Delay, or a time drawn between Delay and DelayMax.
	Delay, DelayMax time.Duration
	// Status answers with 500, 502, 503 or 504 and the profile's reply
	// for it (faults section); RetryAfter makes a 503 the maintenance
	// reply, with Retry-After.
	Status     int
	RetryAfter time.Duration
	// Connection breaks the connection instead of answering (reset, empty,
	// cut or stall: profile.ConnReset...); Stall bounds a stall.
	Connection string
	Stall      time.Duration
	// Note says why the fault is there; the journal and log repeat it.
	Note string
}

// rule is the part of a Fault a profile can hold, which carries every
// check of the shared fields.
func (f Fault) rule() profile.FaultRule {
	return profile.FaultRule{Operation: f.Operation, Tag: f.Tag, Token: f.Token, Times: f.Times, Share: f.Share,
		Delay: f.Delay, DelayMax: f.DelayMax, Status: f.Status, RetryAfter: f.RetryAfter,
		Connection: f.Connection, Stall: f.Stall, Note: f.Note}
}

// FromProfile is the Fault a profile's rule stands for.
func FromProfile(r profile.FaultRule) Fault {
	return Fault{Operation: r.Operation, Tag: r.Tag, Token: r.Token, Times: r.Times, Share: r.Share,
		Delay: r.Delay, DelayMax: r.DelayMax, Status: r.Status, RetryAfter: r.RetryAfter,
		Connection: r.Connection, Stall: r.Stall, Note: r.Note}
}

// Prepare checks f and returns it as it is kept: the token replaced by
// its hash and a window given by For turned into Until, counted from now
// when From is not set. The error wraps ErrInvalid and names every
// problem.
func (f Fault) Prepare(now time.Time) (Fault, error) {
	var problems []string
	for _, p := range f.rule().Problems() {
		key := camel(p.Key)
		if key == "" {
			problems = append(problems, p.Msg)
		} else {
			problems = append(problems, key+": "+p.Msg)
		}
	}
	if f.For < 0 {
		problems = append(problems, "for: must not be negative")
	}
	if f.For > 0 && !f.Until.IsZero() {
		problems = append(problems, "for: give until or for, not both")
	}
	if f.For > 0 {
		if f.From.IsZero() {
			f.From = now
		}
		f.Until, f.For = f.From.Add(f.For), 0
	}
	if !f.From.IsZero() && !f.Until.IsZero() && !f.Until.After(f.From) {
		problems = append(problems, "until: must be after from")
	}
	f.Token, f.TokenSHA256 = "", tokenHash(f.Token, f.TokenSHA256)
	if len(problems) > 0 {
		return f, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return f, nil
}

// Override pins the answer of one operation for the calls that match.
type Override struct {
	// Operation is an operationId or "METHOD /path/template" (required).
	Operation string `json:"operation"`
	// Token, when set, selects the calls made with it; kept as its hash.
	Token       string `json:"token,omitempty"`
	TokenSHA256 string `json:"tokenSha256,omitempty"`
	// Match narrows the calls further: every condition must hold.
	Match Match `json:"match,omitzero"`
	// Times is how many answers it gives before it is removed; 0: until
	// removed or reset.
	Times int `json:"times,omitempty"`
	// Status, Headers and Body are the answer. Body is JSON (sent as
	// application/json); none sends no body.
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"`
	// Deliberate lets through an answer the operation does not document
	// (a status it does not declare, a body its schema refuses); without
	// it such an override is refused when it is added.
	Deliberate bool `json:"deliberate,omitempty"`
	// Note says why; the journal and log repeat it.
	Note string `json:"note,omitempty"`
}

// Match is what a call must carry for an override to answer it.
type Match struct {
	// Path holds path parameters by name, as decoded (workflowId...).
	Path map[string]string `json:"path,omitempty"`
	// Query holds query parameters that must have this value.
	Query map[string]string `json:"query,omitempty"`
	// Body holds JSON Pointers into the request body and the JSON value
	// each must point at.
	Body []BodyMatch `json:"body,omitempty"`
}

// BodyMatch is one JSON Pointer (RFC 6901) into a request body and the
// value it must find there.
type BodyMatch struct {
	Pointer string          `json:"pointer"`
	Value   json.RawMessage `json:"value"`
}

// maxOverrideHeaders bounds an override's headers.
const maxOverrideHeaders = 32

// Prepare checks o's own form (whether the operation documents its
// answer is the server's check) and returns it as it is kept: the token
// replaced by its hash, the body compacted.
func (o Override) Prepare() (Override, error) {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if strings.TrimSpace(o.Operation) == "" {
		add("operation: name the operation whose answer is pinned (an operationId or \"METHOD /path\")")
	}
	if o.Status < 200 || o.Status > 599 {
		add("status: %d: an answer's status is 200-599", o.Status)
	}
	if o.Times < 0 {
		add("times: must not be negative, got %d", o.Times)
	}
	if len(o.Headers) > maxOverrideHeaders {
		add("headers: %d of them, at most %d", len(o.Headers), maxOverrideHeaders)
	}
	for name, value := range o.Headers {
		switch {
		case !validHeaderName(name) || strings.ContainsAny(value, "\r\n"):
			add("headers: %q: %q is not a header line", name, value)
		case http.CanonicalHeaderKey(name) == "Content-Length" || http.CanonicalHeaderKey(name) == "Transfer-Encoding":
			add("headers: %s is the fake's to set, from the body", http.CanonicalHeaderKey(name))
		}
	}
	if len(o.Body) > profile.MaxOverrideBody {
		add("body: %d bytes, at most %d", len(o.Body), profile.MaxOverrideBody)
	} else if len(o.Body) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, o.Body); err != nil {
			add("body: not JSON: %v", err)
		} else {
			o.Body = buf.Bytes()
		}
	}
	for i, m := range o.Match.Body {
		if _, err := jsonpointer.New(m.Pointer); err != nil {
			add("match.body[%d].pointer: %q is not a JSON Pointer (\"/launch/pipeline\"): %v", i, m.Pointer, err)
		}
		if !json.Valid(m.Value) {
			add("match.body[%d].value: give a JSON value (\"text\", 3, true, {...})", i)
		}
	}
	o.Token, o.TokenSHA256 = "", tokenHash(o.Token, o.TokenSHA256)
	if len(problems) > 0 {
		return o, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return o, nil
}

func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if c > unicode.MaxASCII || c <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", c) {
			return false
		}
	}
	return true
}

// tokenHash is the hex SHA-256 of a token value, or the hash already
// given when there is no value.
func tokenHash(value, hash string) string {
	if value == "" {
		return strings.ToLower(hash)
	}
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}

// camel writes a profile key (delay_max) as the admin API's field
// (delayMax).
func camel(key string) string {
	parts := strings.Split(key, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// Entry is a rule as it is listed: its id, where it came from, how often
// it acted, and the rule.
type Entry struct {
	ID     string `json:"id"`
	Kind   Kind   `json:"kind"`
	Source string `json:"source"`
	// Hits counts the calls it acted on.
	Hits     int64     `json:"hits"`
	Fault    *Fault    `json:"fault,omitempty"`
	Override *Override `json:"override,omitempty"`
}

// faultJSON is a Fault on the wire: durations as Go durations ("250ms"),
// times as RFC 3339, empty fields left out.
type faultJSON struct {
	Operation   string     `json:"operation,omitempty"`
	Tag         string     `json:"tag,omitempty"`
	Token       string     `json:"token,omitempty"`
	TokenSHA256 string     `json:"tokenSha256,omitempty"`
	Times       int        `json:"times,omitempty"`
	Share       float64    `json:"share,omitempty"`
	From        *time.Time `json:"from,omitempty"`
	Until       *time.Time `json:"until,omitempty"`
	For         string     `json:"for,omitempty"`
	Delay       string     `json:"delay,omitempty"`
	DelayMax    string     `json:"delayMax,omitempty"`
	Status      int        `json:"status,omitempty"`
	RetryAfter  string     `json:"retryAfter,omitempty"`
	Connection  string     `json:"connection,omitempty"`
	Stall       string     `json:"stall,omitempty"`
	Note        string     `json:"note,omitempty"`
}

// MarshalJSON writes the fault as the admin API shows it.
func (f Fault) MarshalJSON() ([]byte, error) {
	j := faultJSON{Operation: f.Operation, Tag: f.Tag, Token: f.Token, TokenSHA256: f.TokenSHA256, Times: f.Times,
		Share: f.Share, Status: f.Status, Connection: f.Connection, Note: f.Note,
		For: durationText(f.For), Delay: durationText(f.Delay), DelayMax: durationText(f.DelayMax),
		RetryAfter: durationText(f.RetryAfter), Stall: durationText(f.Stall)}
	if !f.From.IsZero() {
		j.From = &f.From
	}
	if !f.Until.IsZero() {
		j.Until = &f.Until
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a fault as the admin API takes it; an unknown field
// is an error, so that a misspelt condition is not silently dropped.
func (f *Fault) UnmarshalJSON(b []byte) error {
	var j faultJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return err
	}
	out := Fault{Operation: j.Operation, Tag: j.Tag, Token: j.Token, TokenSHA256: j.TokenSHA256, Times: j.Times,
		Share: j.Share, Status: j.Status, Connection: j.Connection, Note: j.Note}
	if j.From != nil {
		out.From = *j.From
	}
	if j.Until != nil {
		out.Until = *j.Until
	}
	var err error
	for _, d := range []struct {
		name string
		text string
		to   *time.Duration
	}{{"for", j.For, &out.For}, {"delay", j.Delay, &out.Delay}, {"delayMax", j.DelayMax, &out.DelayMax},
		{"retryAfter", j.RetryAfter, &out.RetryAfter}, {"stall", j.Stall, &out.Stall}} {
		if d.text == "" {
			continue
		}
		if *d.to, err = time.ParseDuration(d.text); err != nil {
			return fmt.Errorf("%s: %q is not a duration (write e.g. 250ms, 30s or 10m)", d.name, d.text)
		}
	}
	*f = out
	return nil
}

func durationText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}
