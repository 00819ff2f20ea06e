package mock_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// idOperations lists the operations of doc whose path names a resource by
// id, found from the document itself.
func idOperations(doc *spec.Document) []*spec.Operation {
	var out []*spec.Operation
	for _, op := range doc.Operations {
		if callgen.IDParam.MatchString(op.Path) {
			out = append(out, op)
		}
	}
	return out
}

// Every operation whose path names a resource by id answers the missing-
// resource reply (403 and no body by default) for an id the fake does not
// hold, whatever the operation would otherwise do. The ids are random and
// the rest of each call is valid, so nothing but the id can be refused.
func TestUnknownIDsAreMissing(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := newServer(t, doc)
			gen := synth.New(synth.WithSeed(11))
			ops := idOperations(doc)
			if len(ops) == 0 {
				t.Fatal("the document names no resource by id; the test would prove nothing")
			}
			ops = sample(t, ops, 30)
			found := 0
			for _, op := range ops {
				c, err := callgen.Build(op, gen, "missing "+op.ID)
				if err != nil {
					t.Errorf("%s: building a call: %v", op.ID, err)
					continue
				}
				req := httptest.NewRequest(c.Method, c.URL(mock.DefaultBasePath), bytes.NewReader(c.Body))
				for k, vs := range mustHeader(c, devToken) {
					req.Header[k] = vs
				}
				rec := httptest.NewRecorder()
				srv.Handler().ServeHTTP(rec, req)
				if rec.Code != 403 || rec.Body.Len() != 0 {
					found++
					t.Errorf("%s %s (%s): %d %.200s, want the missing-resource reply", c.Method, c.Path, op.ID, rec.Code, strings.TrimSpace(rec.Body.String()))
				}
			}
			t.Logf("%d operations name a resource by id; %d answered something else", len(ops), found)
		})
	}
}

// The converse of TestUnknownIDsAreMissing: with ids the fake does hold,
// found the way a client finds them (list the parent collection, else
// create an item in it, and launch a run for a run's id), every id-named
// operation answers something other than the missing-resource reply. A
// guard that refused everything would pass the test above; not this one.
func TestKnownIDsAreFound(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := newServer(t, doc)
			f := newFinder(t, doc, srv.Handler(), 5)
			run := launchRun(t, srv.Handler(), "known-ids")
			f.Set("workflowId", run)
			f.Set("launchId", run)
			gen := synth.New(synth.WithSeed(5))

			ops := sample(t, idOperations(doc), 30)
			// Deletions last, deepest first, so nothing a later call needs
			// is gone before it runs.
			sort.SliceStable(ops, func(i, j int) bool {
				di, dj := ops[i].Method == "DELETE", ops[j].Method == "DELETE"
				if di != dj {
					return dj
				}
				return di && strings.Count(ops[i].Path, "/") > strings.Count(ops[j].Path, "/")
			})
			checked, skipped := 0, []string{}
			for _, op := range ops {
				values, ok := f.PathValues(op)
				if strings.Contains(op.Path, "{version}") {
					// A dataset's version is named by its number, which a
					// generated value does not hold.
					ok = false
				}
				if !ok {
					skipped = append(skipped, op.ID)
					continue
				}
				c, err := callgen.Build(op, gen, "known "+op.ID, callgen.WithPathValues(values), callgen.WithReferences(f.Ref))
				if err != nil {
					t.Errorf("%s: building a call: %v", op.ID, err)
					continue
				}
				f.PlaceQuery(op, c)
				a := sendCall(srv.Handler(), c)
				checked++
				if a.status == 403 {
					t.Errorf("%s %s (%s): 403 %.200s for ids the fake holds", c.Method, c.Path, op.ID, a.body)
				}
			}
			t.Logf("%d operations checked with known ids; no id found for %d: %v", checked, len(skipped), skipped)
			if checked < len(ops)/2 {
				t.Errorf("only %d of %d operations could be given known ids", checked, len(ops))
			}
		})
	}
}

// newFinder finds ids the fake behind h holds, as a client would,
// creating what it cannot find and what a deletion removes (a run by
// launching it).
func newFinder(t *testing.T, doc *spec.Document, h http.Handler, seed int64) *callgen.Finder {
	send := func(c *callgen.Call) (int, []byte) {
		a := sendCall(h, c)
		return a.status, a.body
	}
	launch := func(listTemplate, name string, _ map[string]string) (string, bool) {
		if name == "workflowId" && listTemplate == "/workflow" {
			return launchRun(t, h, "to-delete"), true
		}
		return "", false
	}
	return callgen.NewFinder(doc, synth.New(synth.WithSeed(seed)), send, callgen.Creating(launch))
}

// sendCall sends c to h with the development token.
func sendCall(h http.Handler, c *callgen.Call) answer {
	req := httptest.NewRequest(c.Method, c.URL(mock.DefaultBasePath), bytes.NewReader(c.Body))
	for k, vs := range mustHeader(c, devToken) {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return answer{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}
