package mock

import (
	"slices"

	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// served is the API versions a server serves, each with the api of its
// document. A version the profile serves without a document of its own
// shares the default version's api.
type served struct {
	apis  map[string]*api
	names []string // sorted, for messages and the control API
	def   string   // the profile's default version
}

func (v *served) get(name string) (*api, bool) {
	a, ok := v.apis[name]
	return a, ok
}

// defaultAPI is the default version's api.
func (v *served) defaultAPI() *api { return v.apis[v.def] }

// distinct is each served document's api once, the default version's
// first.
func (v *served) distinct() []*api {
	var out []*api
	seen := map[*api]bool{}
	add := func(a *api) {
		if a != nil && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	add(v.defaultAPI())
	for _, name := range v.names {
		add(v.apis[name])
	}
	return out
}

// servedOp is an operation of one served document.
type servedOp struct {
	api *api
	op  *spec.Operation
}

// operations are the served operations name names (an operationId or
// "METHOD /path/template"), in each distinct document, in version order.
func (v *served) operations(name string) []servedOp {
	var out []servedOp
	seen := map[*api]bool{}
	for _, version := range v.names {
		a := v.apis[version]
		if seen[a] {
			continue
		}
		seen[a] = true
		for _, op := range a.doc.Operations {
			if faults.OperationIs(op, name) {
				out = append(out, servedOp{a, op})
			}
		}
	}
	return out
}

// hasTag reports whether an operation of a served document has tag.
func (v *served) hasTag(tag string) bool {
	for _, a := range v.apis {
		for _, op := range a.doc.Operations {
			if op.Op != nil && slices.Contains(op.Op.Tags, tag) {
				return true
			}
		}
	}
	return false
}
