package leniency

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

var service = Policy{
	NullsAsAbsent: true, ScalarsAsStrings: true, InferDiscriminator: true, ObjectsAsAny: true,
	RequiredExceptions: []string{"Workflow.submit"},
}

var (
	embeddedDoc  = sync.OnceValues(func() (*spec.Document, error) { return spec.Load(fixtures.OpenAPI()) })
	publishedDoc struct {
		once sync.Once
		doc  *spec.Document
		err  error
	}
)

// published loads the service's published schema once for the package's
// tests, or skips where the workspace does not have it.
func published(t testing.TB) *spec.Document {
	path := testenv.PublishedSpec(t, "")
	publishedDoc.once.Do(func() { publishedDoc.doc, publishedDoc.err = spec.LoadFile(path) })
	if publishedDoc.err != nil {
		t.Fatal(publishedDoc.err)
	}
	return publishedDoc.doc
}

// eachDocument runs f on the two documents the fake serves most, each in
// a subtest (the published one is skipped where the workspace lacks it).
func eachDocument(t *testing.T, f func(t *testing.T, name string, doc *spec.Document)) {
	t.Run("embedded", func(t *testing.T) {
		doc, err := embeddedDoc()
		if err != nil {
			t.Fatal(err)
		}
		f(t, "embedded", doc)
	})
	t.Run("published", func(t *testing.T) { f(t, "published", published(t)) })
}

// pairsOf lists every "object: child <- sibling" pair the reader finds in
// the request bodies of doc, by component where the object is one.
func pairsOf(doc *spec.Document) []string {
	r := New(doc, service)
	var out []string
	for _, op := range doc.Operations {
		r.plan(op)
	}
	for ref, sh := range r.shapes {
		for _, p := range sh.pairs {
			out = append(out, componentName(ref)+": "+p.child+" <- "+p.sibling)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The pairs of a discriminated object and the sibling naming its branch
// are found from each document: the credentials' keys by their provider,
// a compute environment's config by its platform, and nothing else (a
// wrong pair would insert a discriminator a client never meant).
func TestPairsFoundInTheDocuments(t *testing.T) {
	want := map[string][]string{
		"embedded":  {"ComputeEnv: config <- platform", "Credentials: keys <- provider"},
		"published": {"ComputeEnv_ComputeConfig_: config <- platform", "Credentials: keys <- provider"},
	}
	eachDocument(t, func(t *testing.T, name string, doc *spec.Document) {
		if got := pairsOf(doc); !slices.Equal(got, want[name]) {
			t.Errorf("pairs %q, want %q", got, want[name])
		}
	})
}

// On both documents, what the service's clients send for credentials and
// compute environments is read as they mean it.
func TestClientBodiesOnTheDocuments(t *testing.T) {
	eachDocument(t, func(t *testing.T, name string, doc *spec.Document) {
		r := New(doc, service)
		op := func(id string) *spec.Operation {
			for _, o := range doc.Operations {
				if o.ID == id {
					return o
				}
			}
			t.Fatalf("%s: no %s", name, id)
			return nil
		}
		res := r.Read(op("CreateCredentials"), "application/json",
			[]byte(`{"credentials":{"name":"tf","provider":"aws","keys":{"accessKey":"AKIA","assumeRoleArn":null,"mode":null}}}`))
		if want := `{"credentials":{"name":"tf","provider":"aws","keys":{"discriminator":"aws","accessKey":"AKIA"}}}`; string(res.Body) != want {
			t.Errorf("%s: credentials read as %s, want %s", name, res.Body, want)
		}
		res = r.Read(op("CreateComputeEnv"), "application/json",
			[]byte(`{"computeEnv":{"name":"ce","platform":"aws-batch","config":{"region":"eu-west-1","workDir":"s3://b/w"}}}`))
		if !strings.Contains(string(res.Body), `"config":{"discriminator":"aws-batch","region"`) {
			t.Errorf("%s: compute environment read as %s", name, res.Body)
		}
	})
}

// Nextflow's trace bodies on the published schema: a begin without
// workflow.submit, with nulls, a number for nextflow.build and params of
// every kind.
func TestTraceBeginOnThePublishedSchema(t *testing.T) {
	doc := published(t)
	var begin *spec.Operation
	for _, o := range doc.Operations {
		if o.ID == "UpdateTraceBegin" {
			begin = o
		}
	}
	body := `{"workflow":{"id":"abc","runName":"x","sessionId":"s","commandLine":"nextflow run hello","projectName":"hello",` +
		`"userName":"u","workDir":"/w","complete":null,"errorMessage":null,"exitStatus":null,"nextflow":{"version":"24.04.0","build":5920},` +
		`"params":{"name":"x","n":3,"skip":null}},"processNames":["sayHello"],"towerLaunch":false,"instant":1712345678901}`
	res := New(doc, service).Read(begin, "application/json", []byte(body))
	want := []string{
		"/workflow/complete nulls_as_absent", "/workflow/errorMessage nulls_as_absent", "/workflow/exitStatus nulls_as_absent",
		"/workflow/nextflow/build scalars_as_strings",
		"/workflow/params/n objects_as_any", "/workflow/params/name objects_as_any", "/workflow/params/skip objects_as_any",
		"/workflow/submit required_exceptions",
	}
	var got []string
	for _, d := range res.Tolerated {
		got = append(got, d.Path+" "+string(d.Kind))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) || len(res.Refused) > 0 {
		t.Errorf("tolerated %q (refused %v), want %q", got, res.Refused, want)
	}
	if !strings.Contains(string(res.Body), `"build":"5920"`) || strings.Contains(string(res.Body), "null,") {
		t.Errorf("read as %s", res.Body)
	}
}

// Relax gives the validator a schema without the exceptions' required
// properties and with bare objects open, and nothing under strict mode.
func TestRelax(t *testing.T) {
	node := func(text string) *yaml.Node {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(text), &n); err != nil {
			t.Fatal(err)
		}
		return n.Content[0]
	}
	render := func(n *yaml.Node) string {
		b, _ := yaml.Marshal(n)
		return strings.TrimSpace(string(b))
	}
	doc, err := embeddedDoc()
	if err != nil {
		t.Fatal(err)
	}
	r := New(doc, service)
	workflow := node("{type: object, required: [runName, submit], allOf: [{required: [submit, x]}]}")
	r.Relax(workflow, "Workflow")
	if got := render(workflow); got != "{type: object, required: [runName], allOf: [{required: [x]}]}" {
		t.Errorf("Workflow relaxed to %s", got)
	}
	other := node("{type: object, required: [submit]}")
	r.Relax(other, "Other")
	if got := render(other); got != "{type: object, required: [submit]}" {
		t.Errorf("another component relaxed to %s", got)
	}
	bare := node("{type: object, description: any value}")
	r.Relax(bare, "")
	if got := render(bare); got != "{description: any value}" {
		t.Errorf("bare object relaxed to %s", got)
	}
	for _, text := range []string{"{type: object, properties: {a: {type: string}}}", "{type: object, additionalProperties: {type: string}}", "{type: string}"} {
		n := node(text)
		r.Relax(n, "")
		if got := render(n); got != text {
			t.Errorf("%s relaxed to %s", text, got)
		}
	}
	strict := service
	strict.Strict = true
	n := node("{type: object, required: [submit]}")
	New(doc, strict).Relax(n, "Workflow")
	bare = node("{type: object}")
	New(doc, strict).Relax(bare, "")
	if render(n) != "{type: object, required: [submit]}" || render(bare) != "{type: object}" {
		t.Errorf("strict mode relaxed %s and %s", render(n), render(bare))
	}
}

// A body the document accepts has nothing to tolerate: for every
// operation of both documents with a JSON body, a valid body generated
// from its schema (nulls where a schema allows them, discriminators
// present) is read under strict mode without a deviation and without a
// change. A deviation named where the document allows the value would
// refuse a valid call in strict mode.
func TestValidBodiesHaveNoDeviations(t *testing.T) {
	strict := service
	strict.Strict = true
	eachDocument(t, func(t *testing.T, name string, doc *spec.Document) {
		r := New(doc, strict)
		gen := synth.New(synth.WithSeed(7), synth.WithGuard(doc.Guard))
		checked := 0
		for _, op := range doc.Operations {
			if op.Op.RequestBody == nil {
				continue
			}
			for i := range 3 {
				c, err := callgen.Build(op, gen, fmt.Sprintf("%s %d", op.ID, i))
				if err != nil || len(c.Body) == 0 || !spec.IsJSON(c.ContentType) {
					continue
				}
				checked++
				res := r.Read(op, c.ContentType, c.Body)
				if len(res.Refused)+len(res.Tolerated) > 0 || string(res.Body) != string(c.Body) {
					t.Errorf("%s: a valid body %.300s\nis read with deviations %v", op.ID, c.Body, append(res.Refused, res.Tolerated...))
				}
			}
		}
		if checked < 10 {
			t.Fatalf("only %d bodies checked", checked)
		}
		t.Logf("%d valid bodies read", checked)
	})
}
