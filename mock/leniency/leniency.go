// Package leniency reads a JSON request body the way the service reads it,
// before the body is checked against the document.
//
// The published schema is stricter than the service. The service is a
// Java server whose JSON layer keeps the usual Jackson defaults, and its
// own clients rely on that (CONTRACT.md, last section): Nextflow sends
// null for every value it does not have and numbers where the schema says
// string, and leaves out a property the schema marks required; the
// Terraform provider and the command line client name a credential's or a
// compute environment's type in a sibling property and send the
// discriminated object without its discriminator. A fake that refused
// those would fail the service's most used clients.
//
// A Reader holds, per operation, what it needs to know of the request
// body's schema (a shape: which properties are strings, which accept
// null, which are discriminated and by which sibling). Reading a body is
// one walk over its bytes; a body that needs nothing is returned as it
// came, and one that needs something is edited in place (a null member
// dropped, a number quoted, a discriminator inserted), so everything else
// in it, key order included, is what the client sent.
//
// Every difference from the schema that the service tolerates is a
// Deviation. The profile decides, kind by kind, whether the fake
// tolerates it (the default, as the service does) or refuses it; strict
// mode refuses them all. The caller records the tolerated ones with the
// call and answers the refused ones with a Bad Request naming each.
//
// Two of the kinds cannot be fixed in the body: a required property the
// service's own client never sends, and a value other than an object
// where the schema says only "type: object" (how the service's document
// renders a Java Object, such as the values of a run's params). For those
// the validator is given relaxed copies of the schemas (Relax), and the
// body is left as it is.
package leniency

import (
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Kind names one way a body may differ from its schema that the service
// reads anyway.
type Kind string

// The kinds of deviation.
const (
	// NullsAsAbsent is null in an optional property whose schema does not
	// allow null: Jackson reads it as a Java null, the same as absent.
	NullsAsAbsent Kind = "nulls_as_absent"
	// ScalarsAsStrings is a JSON number or boolean in a string property:
	// Jackson coerces it to its text.
	ScalarsAsStrings Kind = "scalars_as_strings"
	// StringsAsNumbers is a JSON string holding a number where the schema
	// says integer or number: Jackson reads "5" into a Java long or
	// double (Seqera's Node-RED nodes send "labelIds": ["5","6"]).
	StringsAsNumbers Kind = "strings_as_numbers"
	// InferDiscriminator is a discriminated object sent without its
	// discriminator property, read as the branch a sibling property names
	// (credentials.provider for the keys, computeEnv.platform for the
	// config).
	InferDiscriminator Kind = "infer_discriminator"
	// RequiredExceptions is a required property left out (or null) that
	// the profile names as one the service accepts without.
	RequiredExceptions Kind = "required_exceptions"
	// ObjectsAsAny is a value other than an object where the schema says
	// only "type: object": a Java Object on the service, which takes any
	// JSON value.
	ObjectsAsAny Kind = "objects_as_any"
)

// Kinds lists every kind. Each is named as the profile's requests key that
// turns it on or off, so a kind is spelled one way in the journal, the
// profile and the code.
var Kinds = []Kind{NullsAsAbsent, ScalarsAsStrings, StringsAsNumbers, InferDiscriminator, RequiredExceptions, ObjectsAsAny}

// Deviation is one place where a body differs from its schema.
type Deviation struct {
	// Path is a JSON Pointer (RFC 6901) into the body as sent.
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
	// Detail says what was sent and how it was read.
	Detail string `json:"detail"`
}

func (d Deviation) String() string {
	path := d.Path
	if path == "" {
		path = "/"
	}
	return path + ": " + string(d.Kind) + " (" + d.Detail + ")"
}

// Policy is what the fake tolerates: the profile's requests section.
type Policy struct {
	NullsAsAbsent      bool
	ScalarsAsStrings   bool
	StringsAsNumbers   bool
	InferDiscriminator bool
	ObjectsAsAny       bool
	// RequiredExceptions name required properties a client may leave
	// out, as "Component.property" ("Workflow.submit").
	RequiredExceptions []string
	// Strict refuses every deviation, whatever the kinds above say.
	Strict bool
}

// tolerates reports whether the policy lets a deviation of kind k through.
func (p *Policy) tolerates(k Kind) bool {
	if p.Strict {
		return false
	}
	switch k {
	case NullsAsAbsent:
		return p.NullsAsAbsent
	case ScalarsAsStrings:
		return p.ScalarsAsStrings
	case StringsAsNumbers:
		return p.StringsAsNumbers
	case InferDiscriminator:
		return p.InferDiscriminator
	case ObjectsAsAny:
		return p.ObjectsAsAny
	case RequiredExceptions:
		return true // the list itself is the setting
	}
	return false
}

// maxRecorded bounds the deviations a Result lists, so a large body full
// of nulls costs the journal no more than a small one; More counts the
// rest.
const maxRecorded = 32

// Result is what reading a body found.
type Result struct {
	// Body is the body as the service reads it: the bytes sent when
	// nothing was tolerated that needs an edit.
	Body []byte
	// Tolerated and Refused list the deviations (at most maxRecorded in
	// all, in the order they occur in the body).
	Tolerated, Refused []Deviation
	// More counts the deviations found past the recorded ones.
	More int
}

// Reader reads the request bodies of one document.
type Reader struct {
	doc    *spec.Document
	policy Policy
	// exceptions maps a component to its required properties the policy
	// lets a client leave out.
	exceptions map[string][]string
	plans      sync.Map // *spec.Operation -> *plan
	// shapes memoizes component shapes by reference; only touched under
	// mu, while a plan is built.
	shapes map[string]*shape
	mu     sync.Mutex
}

// plan is what reading one operation's bodies needs.
type plan struct {
	root *shape // nil: the operation takes no JSON body worth reading
}

// New returns a Reader of doc's request bodies under policy.
func New(doc *spec.Document, policy Policy) *Reader {
	r := &Reader{doc: doc, policy: policy, exceptions: map[string][]string{}, shapes: map[string]*shape{}}
	for _, e := range policy.RequiredExceptions {
		if comp, prop, ok := SplitException(e); ok {
			r.exceptions[comp] = append(r.exceptions[comp], prop)
		}
	}
	return r
}

// SplitException reads "Component.property". Component names may hold
// dots themselves ("ComputeEnv.Status"), so the property is what follows
// the last one.
func SplitException(e string) (component, property string, ok bool) {
	i := strings.LastIndexByte(e, '.')
	if i <= 0 || i == len(e)-1 {
		return "", "", false
	}
	return e[:i], e[i+1:], true
}

// Read reads a call's body against op's request schema for the body's
// content type. A body that is not JSON, or an operation without a JSON
// body schema, comes back as it is, with no deviations.
func (r *Reader) Read(op *spec.Operation, contentType string, body []byte) Result {
	if len(body) == 0 || !spec.IsJSON(contentType) {
		return Result{Body: body}
	}
	p := r.plan(op)
	if p.root == nil {
		return Result{Body: body}
	}
	w := walkers.Get().(*walker)
	defer w.release()
	w.b, w.policy = body, &r.policy
	if !w.read(p.root) {
		return Result{Body: body} // not JSON: the validator says so
	}
	res := Result{Body: body, Tolerated: w.tolerated, Refused: w.refused, More: w.more}
	if len(w.edits) > 0 {
		if out, ok := w.apply(); ok {
			res.Body = out
		} else {
			return Result{Body: body}
		}
	}
	return res
}

// walkers are reused, so that reading a body that needs nothing allocates
// nothing (a walker's path would otherwise be allocated on every call).
var walkers = sync.Pool{New: func() any { return &walker{path: make([]segment, 0, 16)} }}

// release returns w to the pool holding nothing of the call: the
// deviations went to the Result, and the body and edits are dropped.
func (w *walker) release() {
	edits := w.edits[:0]
	if cap(edits) > 256 {
		edits = nil
	}
	clear(edits[:cap(edits)])
	clear(w.path[:cap(w.path)])
	*w = walker{path: w.path[:0], edits: edits}
	walkers.Put(w)
}

// plan returns op's plan, building it the first time. Plans are built
// from the document's compiled schemas (which compile themselves under the
// document's Guard) one at a time, since shapes of components are shared
// between them.
func (r *Reader) plan(op *spec.Operation) *plan {
	if p, ok := r.plans.Load(op); ok {
		return p.(*plan)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.plans.Load(op); ok {
		return p.(*plan)
	}
	p := &plan{root: r.compileBody(op)}
	r.plans.Store(op, p)
	return p
}

// Relax applies the tolerated kinds that cannot be fixed in a body to a
// copy of a request schema, for the validator: a required property named
// as an exception is no longer required, and a schema that says only
// "type: object" takes any value. component is the component the node is
// (when the validator inlined it from a reference), "" otherwise. Under
// strict mode, or with the kinds off, nothing changes.
func (r *Reader) Relax(n *yaml.Node, component string) {
	if n == nil || n.Kind != yaml.MappingNode || r.policy.Strict {
		return
	}
	if r.policy.ObjectsAsAny && spec.BareObject(n) {
		removeKey(n, "type")
	}
	if props := r.exceptions[component]; component != "" && len(props) > 0 {
		dropRequired(n, props)
		if all := oasdoc.MapValue(n, "allOf"); all != nil && all.Kind == yaml.SequenceNode {
			for _, part := range all.Content {
				if part.Kind == yaml.MappingNode {
					dropRequired(part, props)
				}
			}
		}
	}
}

// dropRequired removes names from n's required list.
func dropRequired(n *yaml.Node, names []string) {
	req := oasdoc.MapValue(n, "required")
	if req == nil || req.Kind != yaml.SequenceNode {
		return
	}
	kept := make([]*yaml.Node, 0, len(req.Content))
	for _, c := range req.Content {
		if !slices.Contains(names, c.Value) {
			kept = append(kept, c)
		}
	}
	req.Content = kept
}
