package resources_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/profile"
)

// Every operation this package answers, called with a valid request, is
// answered as the service would: a success whose body the document accepts,
// or one of the service's refusals; never an internal error. Calls name
// generated ids, so most describes are refused as missing; the seeded
// records are listed and described through the collections' own lists.
// Answers carry the service's nulls by default, which the answer check then
// takes (and nothing else it would refuse); with answers.nulls: omit every
// answer is one the document accepts as it stands.
func TestEveryHandledOperation(t *testing.T) {
	omit := profile.Default()
	omit.Answers.Nulls = profile.NullsOmit
	docs := []struct {
		name string
		doc  func(testing.TB) *spec.Document
		prof *profile.Profile
	}{
		{"embedded", embeddedDoc, profile.Default()},
		{"embedded/omit", embeddedDoc, omit},
		{"published", func(tb testing.TB) *spec.Document {
			if testenv.RaceEnabled {
				// The published half compiles some 250 operations' schemas:
				// a minute under the race detector, for code the embedded
				// half already runs there. The plain run covers it.
				tb.Skip("the published-schema sweep runs without -race only")
			}
			doc, err := spec.LoadFile(testenv.PublishedSpec(tb, ""))
			if err != nil {
				tb.Fatal(err)
			}
			return doc
		}, profile.Default()},
	}
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			doc := d.doc(t)
			check := answerCheck(doc, d.prof)
			// The service's own validator, counted: a read is answered on
			// the generator's check of its values (Fits) and must not need
			// it, since compiling it for a large answer schema was most of
			// a first call's time.
			validated := 0
			counted := func(f *fixture, dp *resources.Deps) {
				dp.Check = func(s *base.Schema, b []byte) []string { validated++; return check(s, b) }
			}
			f := newFixture(t, doc, withProfile(d.prof), counted)
			gen := synth.New(synth.WithSeed(7))
			nulls := 0
			succeeded, refused := 0, 0
			for _, op := range doc.Operations {
				h := f.Handler(op)
				if h == nil {
					continue
				}
				call, err := callgen.Build(op, gen, op.ID)
				if err != nil {
					t.Fatalf("%s: building a call: %v", op.ID, err)
				}
				vars := resourcestest.PathParams(op, call.Path)
				req := &handler.Request{HTTP: httptest.NewRequest(op.Method, "/x", nil), Version: "1", Op: op,
					PathParams: vars, Query: call.Query, Body: call.Body, TokenID: 1, Now: f.clk.Now(), Key: op.ID}
				before, synthd := validated, f.Synthd
				resp, err := h(req)
				if op.Method == http.MethodGet && validated > before {
					t.Errorf("%s: a read asked the validator %d times", op.ID, validated-before)
				}
				if err != nil {
					var ae *apierror.Error
					if !errors.As(err, &ae) || ae.Kind == apierror.Internal {
						t.Errorf("%s %s (%s): %v", op.Method, call.Path, op.ID, err)
					}
					refused++
					continue
				}
				if f.Synthd > synthd {
					continue // answered by the fallback (synthesis), not this package
				}
				succeeded++
				if resp.Status != op.Success.Status {
					t.Errorf("%s: status %d, the document's success is %d", op.ID, resp.Status, op.Success.Status)
				}
				if sch := resources.SuccessSchema(op); sch != nil && resp.Body != nil {
					raw := resourcestest.Encode(t, resp)
					if problems := check(sch.Lib(), raw); problems != nil {
						t.Errorf("%s: the answer does not fit the document: %s", op.ID, strings.Join(problems, "; "))
					}
					nulls += strings.Count(string(raw), ":null")
				}
			}
			// Lists, creates and launches succeed whatever the ids: a sweep
			// that was refused everywhere would prove nothing.
			if succeeded < 5 {
				t.Errorf("only %d operations succeeded (%d refused)", succeeded, refused)
			}
			if d.prof.Answers.WithNulls() && nulls == 0 {
				t.Error("no answer carries a null: the service's nulls are not sent")
			}
			t.Logf("%d succeeded, %d refused; %d null members", succeeded, refused, nulls)
		})
	}
}
