package resources

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// Nothing invented (CONTRACT.md, what the fake may invent): one item of
// every kind a client can create is written with the smallest body its
// schema takes (what it requires, and a name), then updated the same way,
// and read through every view (the write's answer, describe, list entry,
// the GETs below it). Every property of every view is what was written,
// or what the service derives for the kind (listed in derivedBy, each with
// why), or null: never a value the fake made up. Objects that were
// written (a compute environment's config) are looked into the same way.
func TestNothingInvented(t *testing.T) {
	docs := map[string]func(testing.TB) *spec.Document{"embedded": embeddedDoc, "published": publishedDoc}
	for name, load := range docs {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, load(t), true)
			gen := synth.New(synth.WithSeed(3))
			kinds, checked := 0, 0
			for _, c := range f.svc.colls {
				if c.create == nil || c.opaqueCreate {
					continue
				}
				rb := &readBack{t: t, f: f, c: c, gen: gen}
				vars, ok := rb.parents()
				if !ok {
					continue
				}
				q := url.Values{}
				if hasQueryParam(c.create, "workspaceId") {
					q.Set("workspaceId", "2001")
				}
				body := rb.nameHeld(minimalBody(gen, c), q)
				resp, err := rb.do(c.create, vars, q, body)
				if err != nil {
					t.Logf("%s: minimal create refused: %v (%s)", c.create.ID, err, body)
					continue
				}
				id := rb.newest(Concrete(c.listPath, vars))
				vars = cloneVars(vars)
				vars[c.param] = id
				wrote := rb.itemValues(c.create, body)
				kinds++
				checked += nothingElse(t, rb, c.create.ID+" answer", SuccessSchema(c.create), rb.body(resp), wrote)
				for _, op := range rb.readOps() {
					if key, _ := SuccessSchema(op).ListShape(); key != "" && op != c.list {
						continue // a list below the item (its members, its versions): other items
					}
					r, err := rb.do(op, vars, readQuery(op, q), nil)
					if err != nil {
						t.Errorf("%s after a minimal create: %v", op.ID, err)
						continue
					}
					sch, view := SuccessSchema(op), rb.body(r)
					if op == c.list {
						if sch, view = rb.entry(view, id); view == nil {
							t.Errorf("%s: the new item %s is not listed", op.ID, id)
							continue
						}
					}
					checked += nothingElse(t, rb, op.ID+" after "+c.create.ID, sch, view, wrote)
				}
			}
			if kinds < 3 {
				t.Errorf("only %d kinds took a minimal create", kinds)
			}
			t.Logf("%d kinds written with minimal bodies; %d properties held to what was written", kinds, checked)
		})
	}
}

// newest is the id of the newest item of coll.
func (rb *readBack) newest(coll string) string {
	recs, err := rb.f.store.List(coll)
	if err != nil || len(recs) == 0 {
		rb.t.Fatalf("no item in %s after its create: %v", coll, err)
	}
	return recs[0].ID
}

// minimalBody is a create body with only what its schema requires, and a
// name where the item has one (a nameless item is not how a client writes).
func minimalBody(gen *synth.Generator, c *Collection) []byte {
	req := RequestSchema(c.create)
	body := minimalValue(gen, req, c.create.ID, 0)
	m, _ := body.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	target, tsch := m, req
	if c.itemKey != "" && req.Prop(c.itemKey) != nil {
		inner, _ := m[c.itemKey].(map[string]any)
		if inner == nil {
			inner, _ = minimalValue(gen, req.Prop(c.itemKey), c.create.ID+"/item", 1).(map[string]any)
		}
		if inner == nil {
			inner = map[string]any{}
		}
		m[c.itemKey], target, tsch = inner, inner, req.Prop(c.itemKey)
	}
	if p := tsch.Prop("name"); p != nil && target["name"] == nil {
		target["name"] = "minimal-" + strings.ToLower(strings.ReplaceAll(c.param, "Id", ""))
	}
	b, _ := json.Marshal(m)
	return b
}

// minimalValue makes a value of s with only its required members (and,
// for a discriminated oneOf, its first branch's).
func minimalValue(gen *synth.Generator, s *spec.Schema, key string, depth int) any {
	if s == nil || depth > 8 {
		return nil
	}
	if !s.IsObject() {
		return gen.Value(s.Lib(), key, synth.Request)
	}
	out := map[string]any{}
	holders := []*spec.Schema{s}
	if len(s.OneOf()) > 0 {
		holders = append(holders, s.OneOf()[0])
	}
	for _, h := range holders {
		var walk func(*spec.Schema, int)
		walk = func(x *spec.Schema, d int) {
			if x == nil || d > fit.MaxDepth {
				return
			}
			for _, name := range x.OwnRequired {
				if p := h.Prop(name); p != nil && out[name] == nil && !p.ReadOnly() {
					if v := minimalValue(gen, p, key+"/"+name, depth+1); v != nil {
						out[name] = v
					}
				}
			}
			for _, m := range x.AllOf() {
				walk(m, d+1)
			}
		}
		walk(h, 0)
	}
	return out
}

// nothingElse checks that every property of the item in view (of schema
// sch) is written, derived, or null, and looks into written objects. It
// returns how many properties it judged.
func nothingElse(t *testing.T, rb *readBack, label string, sch *spec.Schema, view any, wrote map[string]any) int {
	c := rb.c
	if inner, ok := get(view, c.itemKey).(map[string]any); ok && c.itemKey != "" {
		view, sch = inner, sch.Prop(c.itemKey)
	} else if vm, _ := view.(map[string]any); len(vm) == 1 {
		// An answer that wraps the item under another name
		// ({"dataset": {...}} of a versioned create), or one part of it
		// that was written as a whole ({"launch": {...}} of a pipeline's
		// launch settings: held to the launch written).
		for k, v := range vm {
			if inner, ok := v.(map[string]any); ok && sch.Prop(k).IsObject() {
				view, sch = inner, sch.Prop(k)
				if part, ok := wrote[k].(map[string]any); ok {
					wrote = part
				}
			}
		}
	}
	vm, _ := view.(map[string]any)
	if vm == nil || !sch.IsObject() {
		return 0
	}
	n := 0
	var bad []string
	var walk func(path string, got, w map[string]any, top bool)
	walk = func(path string, got, w map[string]any, top bool) {
		for k, v := range got {
			n++
			wv, written := w[k]
			_, refWritten := w[singular(k)+"Id"]
			_, refsWritten := w[singular(k)+"Ids"]
			switch {
			case v == nil, top && derivedFor(c, k):
			case refWritten || refsWritten:
				// The record a written reference names, as that record is
				// (views.go, showRefs; copies.go).
			case written:
				if gm, ok := v.(map[string]any); ok {
					if wm, ok := wv.(map[string]any); ok {
						walk(path+k+".", gm, wm, false)
					}
				}
			default:
				bad = append(bad, fmt.Sprintf("%s%s = %s", path, k, compact(v)))
			}
		}
	}
	walk("", vm, wrote, true)
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%s: values nobody wrote and the service does not derive: %s", label, strings.Join(bad, "; "))
	}
	return n
}

// derivedBy lists, by the kind's id parameter, what the service works out
// for an item beyond what every item has (see derivedFor).
var derivedBy = map[string][]string{
	// The service names a created organization's owner: the caller, as
	// member and owner.
	"orgId": {"memberId", "memberRole"},
	// A pipeline's repository is the pipeline its launch runs (the
	// Terraform provider's pipeline resource computes it), its compute
	// environment the one its launch runs on.
	"pipelineId": {"repository", "computeEnv"},
	// A compute environment's short forms carry its configuration's
	// region and work directory (views.go, derived); the configuration
	// itself is held to what was written.
	"computeEnvId": {"region", "workDir"},
	// A data link's download URL is made by the service for the file
	// asked for (mock/datasets).
	"dataLinkId": {"url"},
	// A studio's status, last start and start steps follow its life on
	// the clock; its template is the container its create named, its
	// parent the checkpoint it names (mock/studios).
	"sessionId": {"statusInfo", "lastStarted", "progress", "template", "parentCheckpoint"},
}

// derivedFor reports a property every item's views may carry without a
// client writing it: its ids and dates, its status where it has a
// lifecycle, its context, its version, its creator, the names
// the copies of its context show (copies.go), and the kind's own list.
func derivedFor(c *Collection, k string) bool {
	switch {
	case k == c.idProp, k == c.param, k == "id", slices.Contains(serverFields, k),
		k == "workspaceId", k == "orgId", k == "orgName", k == "workspaceName",
		k == "status" && c.lifecycle, k == "version" && c.versioned,
		k == "isPredefined" && c.nameKey,
		// The creator, the caller (collection.owner), and its names (copies).
		k == "user", k == "userId", k == "userName", k == "userFirstName", k == "userLastName":
		return true
	}
	return slices.Contains(derivedBy[c.param], k)
}
