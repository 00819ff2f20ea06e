// Package profile holds the behaviour profile: every choice the fake makes
// where the service's public document leaves the behaviour open (which status
// refuses a missing token, how large a body may be, how long a workflow
// runs...). The defaults ship embedded as default.yaml; a user's file is laid
// over them key by key, so the fake can be tuned, or later fitted to what a
// probe of the real service observed, without a rebuild.
package profile

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/workflow"
)

//go:embed default.yaml
var defaultYAML []byte

// Profile is the whole behaviour profile. Field documentation is in
// default.yaml, next to the values.
type Profile struct {
	Auth         Auth  `yaml:"auth"`
	UnknownRoute Reply `yaml:"unknown_route"`
	// UnknownMethod answers a method the path does not define; absent, it
	// is answered like an unknown path (see MethodReply).
	UnknownMethod   *Reply      `yaml:"unknown_method,omitempty"`
	BadRequest      Reply       `yaml:"bad_request"`
	BodyLimit       BodyLimit   `yaml:"body_limit"`
	RateLimit       RateLimit   `yaml:"rate_limit"`
	Versions        Versions    `yaml:"versions"`
	Paging          Paging      `yaml:"paging"`
	MissingResource Reply       `yaml:"missing_resource"`
	InternalError   Reply       `yaml:"internal_error"`
	Workflows       Workflows   `yaml:"workflows"`
	ComputeEnvs     ComputeEnvs `yaml:"compute_envs"`
	Tokens          []TokenSpec `yaml:"tokens"`
	Requests        Requests    `yaml:"requests"`
	Answers         Answers     `yaml:"answers"`    // answers.go
	Faults          Faults      `yaml:"faults"`     // faults.go
	Data            Data        `yaml:"data"`       // data.go
	Extensions      Extensions  `yaml:"extensions"` // extensions.go
}

// MethodReply is how a call with a method its path does not define is
// refused: unknown_method when the profile gives one, else unknown_route,
// so a profile written before the two were told apart keeps its meaning.
func (p *Profile) MethodReply() Reply {
	if p.UnknownMethod != nil {
		return *p.UnknownMethod
	}
	return p.UnknownRoute
}

// Body says what a refusal carries.
type Body string

// The body kinds a Reply can have.
const (
	// BodyEmpty sends no body at all.
	BodyEmpty Body = "empty"
	// BodyMessage sends {"message": "<Message> - Error ID: <id>"}, the
	// shape the service's document shows for its errors.
	BodyMessage Body = "message"
	// BodyTemplate sends {"message": <Message>} with its placeholders
	// filled in (see Placeholders); an Error ID is minted, logged and
	// journaled only when the template names one.
	BodyTemplate Body = "template"
	// BodyText sends Message as it stands, placeholders filled in, with
	// the Content-Type its headers give (text/plain without one): the
	// HTML page a gateway in front of the service answers with.
	BodyText Body = "text"
)

// The placeholders a template message or a reply header may hold.
const (
	// PlaceErrorID is a fresh Error ID.
	PlaceErrorID = "{errorId}"
	// PlaceRetryAfter is the whole seconds an over-limit client should
	// wait (the value of Retry-After).
	PlaceRetryAfter = "{retryAfter}"
)

// Placeholders lists every placeholder, for validation and documentation.
var Placeholders = []string{PlaceErrorID, PlaceRetryAfter}

// Reply is how the fake refuses a request. One type serves every refusal so
// that the code writing answers has a single shape to follow; it is general
// enough to hold what a real server was seen to send (wmsmock calibrate
// writes these).
type Reply struct {
	Status  int    `yaml:"status"`
	Body    Body   `yaml:"body"`
	Message string `yaml:"message,omitempty"`
	// Headers are added to the answer; their values may hold placeholders.
	Headers map[string]string `yaml:"headers,omitempty"`
}

// NeedsErrorID reports whether the answer carries an Error ID, which is
// then minted, logged and kept in the journal.
func (r Reply) NeedsErrorID() bool {
	switch r.Body {
	case BodyMessage:
		return true
	case BodyTemplate, BodyText:
		return strings.Contains(r.Message, PlaceErrorID)
	}
	for _, v := range r.Headers {
		if strings.Contains(v, PlaceErrorID) {
			return true
		}
	}
	return false
}

// Text is the message field of the reply's body, or the whole body of a
// text reply ("" for an empty body), with the placeholders filled from
// values (keyed by placeholder, such as PlaceRetryAfter) and the Error ID.
func (r Reply) Text(errorID string, values map[string]string) string {
	switch r.Body {
	case BodyMessage:
		return r.Message + " - Error ID: " + errorID
	case BodyTemplate, BodyText:
		return Fill(r.Message, errorID, values)
	}
	return ""
}

// Fill replaces the placeholders of s. A placeholder with no value (a
// retry time in a reply that is not about the rate limit) becomes "0".
func Fill(s, errorID string, values map[string]string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	s = strings.ReplaceAll(s, PlaceErrorID, errorID)
	for _, p := range Placeholders[1:] {
		v, ok := values[p]
		if !ok {
			v = "0"
		}
		s = strings.ReplaceAll(s, p, v)
	}
	return s
}

// Auth says how each kind of unusable credential is refused (one field per
// auth.Result of the fake's bearer check), and whether operations without declared security need one.
type Auth struct {
	Missing   Reply `yaml:"missing"`
	BadScheme Reply `yaml:"bad_scheme"`
	Malformed Reply `yaml:"malformed"`
	Unknown   Reply `yaml:"unknown"`
	Expired   Reply `yaml:"expired"`
	Revoked   Reply `yaml:"revoked"`
	// SessionExpired refuses an expired session token (a JWT the fake
	// signed), which clients refresh on.
	SessionExpired     Reply `yaml:"session_expired"`
	RequireOnUnsecured bool  `yaml:"require_on_unsecured"`
	// BasicToken accepts "Basic base64(@token:<token>)" as the token:
	// what Nextflow sends for a token not in the service's own format.
	BasicToken bool `yaml:"basic_token"`
}

// BodyLimit caps request bodies.
type BodyLimit struct {
	Max    Size  `yaml:"max"`
	Reject Reply `yaml:"reject"`
}

// RateLimit is the per-token limiter's configuration. Windows are kept as
// text ("20/s"); the ratelimit package turns them into counters, this package
// only checks their form so that a bad file fails at load time.
type RateLimit struct {
	Enabled bool     `yaml:"enabled"`
	Windows []string `yaml:"windows,flow"`
	// Fixed counts each window in periods fixed to the clock (every
	// wall-clock second) instead of rolling ones.
	Fixed bool `yaml:"fixed"`
	// Key is what calls are counted under: KeyToken or KeyUser.
	Key string `yaml:"key"`
	// Hold keeps an over-limit call waiting, when room comes within this
	// time, and then answers it, instead of refusing it at once.
	Hold          time.Duration `yaml:"hold"`
	CountRejected bool          `yaml:"count_rejected"`
	Headers       bool          `yaml:"headers"`
	Reject        Reply         `yaml:"reject"`
}

// MaxHold bounds rate_limit.hold: a held call must end well within the
// fake's request deadline.
const MaxHold = 5 * time.Second

// What a rate limit counts calls under.
const (
	// KeyToken gives every access token its own count (CONTRACT L1).
	KeyToken = "token"
	// KeyUser shares one count between all the tokens of a user, as a
	// server that differs from L1 may do.
	KeyUser = "user"
)

// Versions lists the Accept-Version values the fake serves.
type Versions struct {
	Served   []string `yaml:"served,flow"`
	Default  string   `yaml:"default"`
	Unserved Reply    `yaml:"unserved"`
	// UnservedAsDefault answers a call asking for a version not served
	// with the default version instead of refusing it with Unserved.
	UnservedAsDefault bool `yaml:"unserved_as_default"`
}

// Serves reports whether v is one of the served versions.
func (v *Versions) Serves(version string) bool { return slices.Contains(v.Served, version) }

// Paging bounds the page size of list endpoints.
type Paging struct {
	DefaultMax int `yaml:"default_max"`
	MaxLimit   int `yaml:"max_limit"`
	// Operations overrides the bounds of single operations, by
	// operationId; a zero value keeps the general one. An operation's own
	// default_max also wins over the default its document declares. The
	// service's defaults differ per endpoint (20, 50, 100).
	Operations map[string]PageBounds `yaml:"operations,omitempty"`
}

// PageBounds are one operation's paging bounds.
type PageBounds struct {
	DefaultMax int `yaml:"default_max,omitempty"`
	MaxLimit   int `yaml:"max_limit,omitempty"`
}

// Workflows drives the lifecycle of launched workflows.
type Workflows struct {
	SubmittedFor time.Duration `yaml:"submitted_for"`
	RunningFor   time.Duration `yaml:"running_for"`
	Outcomes     []Outcome     `yaml:"outcomes"`
	// DeleteActive answers a DELETE of a run that has not ended yet
	// (SUBMITTED or RUNNING) made without force=true; the documents say
	// force is what deleting an active run takes.
	DeleteActive Reply `yaml:"delete_active"`
	// UnknownAfter is how long a run its client reports on (Nextflow,
	// through /trace) may go without a report once started before it
	// reads as UNKNOWN, the service's status for a run that stopped
	// reporting; 0 keeps such a run RUNNING however long it is silent.
	UnknownAfter time.Duration `yaml:"unknown_after"`
}

// Outcome makes runs whose name contains RunNameContains end in Status.
type Outcome struct {
	RunNameContains string `yaml:"run_name_contains"`
	Status          string `yaml:"status"`
}

// EndStatus is the status a run with this name ends in: that of the first
// matching rule, else SUCCEEDED.
func (w *Workflows) EndStatus(runName string) string {
	for _, o := range w.Outcomes {
		if strings.Contains(runName, o.RunNameContains) {
			return o.Status
		}
	}
	return workflow.Succeeded
}

// ComputeEnvs drives the asynchronous states of compute environments.
type ComputeEnvs struct {
	CreatingFor time.Duration `yaml:"creating_for"`
	DeletingFor time.Duration `yaml:"deleting_for"`
	// AfterDelete is what describing an environment answers once its
	// deletion has finished: AfterDeleteDeleted or AfterDeleteMissing.
	AfterDelete string `yaml:"after_delete"`
}

// What a finished deletion leaves (compute_envs.after_delete).
const (
	// AfterDeleteDeleted keeps the environment describable, with status
	// DELETED and deleted true; lists and launches no longer see it.
	AfterDeleteDeleted = "deleted"
	// AfterDeleteMissing answers the missing-resource reply, as for an id
	// that never existed.
	AfterDeleteMissing = "missing"
)

// Requests says which of the service's readings of a request body the
// fake shares (mock/leniency): each kind of deviation from the document
// the service accepts, and strict mode, which refuses them all.
type Requests struct {
	NullsAsAbsent      bool `yaml:"nulls_as_absent"`
	ScalarsAsStrings   bool `yaml:"scalars_as_strings"`
	StringsAsNumbers   bool `yaml:"strings_as_numbers"`
	InferDiscriminator bool `yaml:"infer_discriminator"`
	ObjectsAsAny       bool `yaml:"objects_as_any"`
	// RequiredExceptions name required properties, as
	// "Component.property", that a client may leave out.
	RequiredExceptions []string `yaml:"required_exceptions,flow"`
	Strict             bool     `yaml:"strict"`
}

// TokenSpec is a token the profile asks the fake to hold from the start.
type TokenSpec struct {
	Name    string     `yaml:"name"`
	Value   string     `yaml:"value"`
	Expires *time.Time `yaml:"expires,omitempty"`
}

var embedded = sync.OnceValues(func() (*Profile, error) { return parse(defaultYAML, &Profile{}) })

// Default returns a fresh copy of the embedded profile. It panics only if the
// embedded file itself is broken, which a test rules out before release.
func Default() *Profile {
	p, err := embedded()
	if err != nil {
		panic("profile: embedded default.yaml: " + err.Error())
	}
	return p.Clone()
}

// DefaultYAML returns the embedded profile's text, comments included: the
// best starting point for a user's own file.
func DefaultYAML() []byte { return bytes.Clone(defaultYAML) }

// Parse lays the YAML document b over the default profile and validates the
// result. Keys absent from b keep their default; an empty document gives the
// default itself.
func Parse(b []byte) (*Profile, error) { return parse(b, Default()) }

// Load reads a profile file and parses it like Parse.
func Load(path string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	p, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Encode writes the profile as YAML that Parse reads back to an equal profile
// (comments are not kept).
func (p *Profile) Encode() ([]byte, error) { return yaml.Marshal(p) }

func parse(b []byte, base *Profile) (*Profile, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 { // empty, or comments only
		return base, base.Validate()
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return base, base.Validate()
	}
	lines := map[string]int{}
	var errs []error
	walk(root, profileType, "", lines, &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(base); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("profile: a profile file holds one YAML document; found a second one after ---")
	}
	if err := base.Validate(); err != nil {
		return nil, withLines(err, lines)
	}
	return base, nil
}

// Clone returns a deep copy, so that callers can adjust a profile without
// affecting anyone else's.
func (p *Profile) Clone() *Profile {
	c := *p
	c.RateLimit.Windows = slices.Clone(p.RateLimit.Windows)
	c.Versions.Served = slices.Clone(p.Versions.Served)
	c.Workflows.Outcomes = slices.Clone(p.Workflows.Outcomes)
	c.Tokens = slices.Clone(p.Tokens)
	c.Paging.Operations = maps.Clone(p.Paging.Operations)
	if p.UnknownMethod != nil {
		m := *p.UnknownMethod
		c.UnknownMethod = &m
	}
	for i, t := range c.Tokens {
		if t.Expires != nil {
			e := *t.Expires
			c.Tokens[i].Expires = &e
		}
	}
	c.Requests.RequiredExceptions = slices.Clone(p.Requests.RequiredExceptions)
	c.Faults = p.Faults.clone()
	return &c
}
