package synth

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/spec"
	"go.yaml.in/yaml/v4"
)

var validationSeeds = []int64{1, 2, 3, 42, 2026}

const (
	allComponents = "ZZSynthAllComponents"
	allRequests   = "ZZSynthAllRequests"
)

// TestPublishedSchemasValidate generates every component schema of the
// published documents (response direction) and every request body
// (request direction) with several seeds, and requires libopenapi-validator
// to accept each value.
//
// Compiling a validator per schema costs ~35 ms, so the document is
// extended in memory with two wrapper components whose properties refer to
// every component and every request body; one compile then checks all
// values at once, and failures are re-checked one schema at a time for a
// readable report.
//
// It has no concurrency to race on, and under the race detector it costs
// minutes: there it skips, and CI runs it without (.ci/run).
func TestPublishedSchemasValidate(t *testing.T) {
	if testenv.RaceEnabled {
		t.Skip("under -race the published-schema sweep of the generator is left to the plain run (.ci/run runs it)")
	}
	for _, file := range []string{"seqera-api-cloud.yaml", "seqera-api-1.140.0.yaml"} {
		t.Run(file, func(t *testing.T) {
			path := sharedSpec(t, file)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			spec, requests := withWrappers(t, raw)
			d := loadSpec(t, spec)
			checkDocument(t, file, d, requests)
		})
	}
}

// requestBody is one operation's request schema, named as in the wrapper.
type requestBody struct {
	key    string
	schema *base.Schema
}

func checkDocument(t *testing.T, file string, d *v3.Document, requestKeys []string) {
	version := specVersion(d)
	vl := newValidator()
	wrapResp := componentSchema(t, d, allComponents)
	wrapReq := componentSchema(t, d, allRequests)

	type comp struct {
		name   string
		schema *base.Schema
	}
	var comps []comp
	var impossible []string
	for name, p := range d.Components.Schemas.FromOldest() {
		if name == allComponents || name == allRequests {
			continue
		}
		s := p.Schema()
		if s == nil {
			t.Errorf("component %s does not build", name)
			continue
		}
		if a, b, ok := indistinguishableBranches(s); ok {
			impossible = append(impossible, fmt.Sprintf("%s (oneOf branches %s and %s accept the same values)", name, a, b))
			continue
		}
		comps = append(comps, comp{name, s})
	}
	var reqs []requestBody
	for _, key := range requestKeys {
		reqs = append(reqs, requestBody{key, wrapReq.Properties.GetOrZero(key).Schema()})
	}

	failures := 0
	for _, seed := range validationSeeds {
		g := New(WithSeed(seed))
		resp := make(map[string]any, len(comps))
		for _, c := range comps {
			resp[c.name] = g.value(bg, c.schema, "GET /components/"+c.name, Response)
			// The fake accepts a synthesized answer on the generator's
			// own check (Fits) without compiling a validator; where
			// that check declines its own value, the first call pays
			// for the compile.
			if !g.Fits(c.schema, resp[c.name], Response) {
				t.Errorf("component %s, seed %d: Fits rejects the value the generator made", c.name, seed)
			}
		}
		if err := vl.check(wrapResp, resp, Response, version); err != nil {
			for _, name := range failedKeys(err) {
				i := slices.IndexFunc(comps, func(c comp) bool { return c.name == name })
				if i < 0 {
					t.Errorf("seed %d: %v", seed, err)
					continue
				}
				failures++
				t.Errorf("component %s, seed %d: %v\nvalue: %s", name, seed,
					vl.check(comps[i].schema, resp[name], Response, version), mustJSON(t, resp[name]))
			}
		}
		req := make(map[string]any, len(reqs))
		for _, r := range reqs {
			req[r.key] = g.value(bg, r.schema, r.key, Request)
		}
		if err := vl.check(wrapReq, req, Request, version); err != nil {
			for _, key := range failedKeys(err) {
				failures++
				t.Errorf("request body %s, seed %d: %v\nvalue: %s", key, seed, err, mustJSON(t, req[key]))
			}
		}
		if seed == validationSeeds[0] {
			// The check must be able to fail: an object schema given a
			// string has to be rejected through the wrapper.
			for _, c := range comps {
				if slices.Contains(c.schema.Type, "object") {
					if g.Fits(c.schema, "not an object", Response) {
						t.Errorf("Fits accepts a string for object schema %s", c.name)
					}
					resp[c.name] = "not an object"
					if vl.check(wrapResp, resp, Response, version) == nil {
						t.Fatalf("validator accepted a string for object schema %s", c.name)
					}
					break
				}
			}
		}
	}
	// With the service's nulls, every component of the current schema is
	// a valid value once its nulls are taken out. (Where the nulls sit is
	// judged by the fake's own answer check: see mock/validate.)
	if file == "seqera-api-cloud.yaml" {
		g, resp, nulls := New(WithSeed(validationSeeds[0]), WithNulls()), make(map[string]any, len(comps)), 0
		for _, c := range comps {
			v := g.value(bg, c.schema, "GET /components/"+c.name, Response)
			nulls += countNulls(v)
			resp[c.name] = withoutNulls(v)
		}
		if err := vl.check(wrapResp, resp, Response, version); err != nil {
			failures++
			t.Errorf("with nulls, seed %d: %v", validationSeeds[0], err)
		}
		if nulls == 0 {
			t.Error("no component got a null with WithNulls")
		}
	}
	t.Logf("%s: %d of %d component schemas valid with %d seeds each (response); %d request bodies valid (request); unsatisfiable, skipped: %s",
		file, len(comps), len(comps)+len(impossible), len(validationSeeds), len(reqs), strings.Join(impossible, "; "))
	if failures > 0 {
		t.Errorf("%d values failed validation", failures)
	}
}

// failedKeys lists the top-level properties of the wrapper value that the
// validator complained about.
func failedKeys(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var keys []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.InstanceLocation) > 0 && !slices.Contains(keys, e.InstanceLocation[0]) {
			keys = append(keys, e.InstanceLocation[0])
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return keys
}

// withWrappers adds the two wrapper components to a spec: one with a
// property per component schema ($ref), one with a property per request
// body schema (the schema node itself, keyed "METHOD path media-type").
func withWrappers(t *testing.T, spec []byte) ([]byte, []string) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	schemas := child(child(root, "components"), "schemas")
	if schemas == nil {
		t.Fatal("spec has no components/schemas")
	}
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	object := func(props *yaml.Node) *yaml.Node {
		return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("type"), str("object"), str("properties"), props}}
	}
	compProps := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(schemas.Content); i += 2 {
		name := schemas.Content[i].Value
		ref := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("$ref"), str("#/components/schemas/" + name)}}
		compProps.Content = append(compProps.Content, str(name), ref)
	}
	reqProps := &yaml.Node{Kind: yaml.MappingNode}
	var keys []string
	paths := child(root, "paths")
	for i := 0; paths != nil && i+1 < len(paths.Content); i += 2 {
		path, item := paths.Content[i].Value, paths.Content[i+1]
		for j := 0; j+1 < len(item.Content); j += 2 {
			method := item.Content[j].Value
			content := child(child(item.Content[j+1], "requestBody"), "content")
			for k := 0; content != nil && k+1 < len(content.Content); k += 2 {
				if s := child(content.Content[k+1], "schema"); s != nil {
					key := fmt.Sprintf("%s %s %s", strings.ToUpper(method), path, content.Content[k].Value)
					keys = append(keys, key)
					reqProps.Content = append(reqProps.Content, str(key), s)
				}
			}
		}
	}
	schemas.Content = append(schemas.Content, str(allComponents), object(compProps), str(allRequests), object(reqProps))
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out, keys
}

func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// indistinguishableBranches finds two oneOf branches of s that accept
// exactly the same values (equal once titles and descriptions are
// ignored). No value can match exactly one of them, so s is unsatisfiable
// whenever a value matching one branch matches them both: true in the
// published PlatformMetainfo, whose "k8s", "local" and "grid" branches all
// are {discriminator: string} and accept every object the others accept.
func indistinguishableBranches(s *base.Schema) (string, string, bool) {
	type branch struct {
		name string
		body any
	}
	var seen []branch
	for _, p := range s.OneOf {
		bs := p.Schema()
		if bs == nil {
			continue
		}
		y, err := bs.RenderInline()
		if err != nil {
			continue
		}
		var body any
		if yaml.Unmarshal(y, &body) != nil {
			continue
		}
		body = stripDocs(body)
		for _, b := range seen {
			if reflect.DeepEqual(b.body, body) && acceptsAllOthers(s, bs) {
				return b.name, spec.RefName(p.GetReference()), true
			}
		}
		seen = append(seen, branch{spec.RefName(p.GetReference()), body})
	}
	return "", "", false
}

// acceptsAllOthers reports whether the duplicated branch dup constrains
// nothing but properties every other branch declares identically, so any
// value of any branch also matches dup (and its twin).
func acceptsAllOthers(s, dup *base.Schema) bool {
	if len(dup.Required) > 0 || len(dup.AllOf)+len(dup.OneOf)+len(dup.AnyOf) > 0 || dup.AdditionalProperties != nil {
		return false
	}
	for name, dp := range dup.Properties.FromOldest() {
		dy, _ := dp.Schema().RenderInline()
		for _, p := range s.OneOf {
			other := p.Schema()
			op := other.Properties.GetOrZero(name)
			if op == nil {
				return false
			}
			oy, _ := op.Schema().RenderInline()
			if string(oy) != string(dy) {
				return false
			}
		}
	}
	return true
}

func stripDocs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "title")
		delete(x, "description")
		for k, e := range x {
			x[k] = stripDocs(e)
		}
	case []any:
		for i := range x {
			x[i] = stripDocs(x[i])
		}
	}
	return v
}
