package schemadiff_test

import (
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance/schemadiff"
	"github.com/wmsmock/wmsmock/fixtures"
	"go.yaml.in/yaml/v4"
)

// embedded is the fake's own document, as one side of a comparison.
func embedded(t testing.TB) *schemadiff.Spec {
	t.Helper()
	s, err := schemadiff.Load("embedded", fixtures.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// edited is the embedded document with edit applied to its generic form:
// the change a test makes on purpose.
func edited(t testing.TB, edit func(doc map[string]any)) *schemadiff.Spec {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(fixtures.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := schemadiff.Load("edited", b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// at walks a generic document along keys, failing the test where one is
// missing.
func at(t testing.TB, doc map[string]any, keys ...string) map[string]any {
	t.Helper()
	cur := doc
	for _, k := range keys {
		next, ok := cur[k].(map[string]any)
		if !ok {
			t.Fatalf("no %s in the embedded document", strings.Join(keys, "."))
		}
		cur = next
	}
	return cur
}

func compare(t testing.TB, old, new *schemadiff.Spec, p *schemadiff.Policy) *schemadiff.Report {
	t.Helper()
	rep, err := schemadiff.Compare(old, new, p)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// find returns the changes of rule on the operation "METHOD path" whose
// text mentions what.
func find(rep *schemadiff.Report, rule, op, what string) []schemadiff.Change {
	var out []schemadiff.Change
	for _, c := range rep.Changes {
		if c.Rule == rule && c.Operation.Key() == op && strings.Contains(c.Text, what) {
			out = append(out, c)
		}
	}
	return out
}

// reaching lists the operations ("METHOD path") of a generic document
// whose parameters, request body or responses reach ref, following every
// reference through the components: worked out here from the document
// itself, apart from oasdiff.
func reaching(doc map[string]any, ref string) map[string]bool {
	comps, _ := doc["components"].(map[string]any)
	memo := map[string]bool{}
	var reaches func(node any, seen map[string]bool) bool
	reaches = func(node any, seen map[string]bool) bool {
		switch n := node.(type) {
		case map[string]any:
			if r, ok := n["$ref"].(string); ok {
				if r == ref {
					return true
				}
				if memo[r] {
					return true
				}
				if seen[r] {
					return false
				}
				seen[r] = true
				parts := strings.Split(strings.TrimPrefix(r, "#/components/"), "/")
				if len(parts) == 2 {
					if kind, ok := comps[parts[0]].(map[string]any); ok {
						v := reaches(kind[parts[1]], seen)
						memo[r] = memo[r] || v
						return v
					}
				}
				return false
			}
			for _, v := range n {
				if reaches(v, seen) {
					return true
				}
			}
		case []any:
			for _, v := range n {
				if reaches(v, seen) {
					return true
				}
			}
		}
		return false
	}
	out := map[string]bool{}
	paths, _ := doc["paths"].(map[string]any)
	for p, item := range paths {
		ops, _ := item.(map[string]any)
		for m, op := range ops {
			switch m {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
			default:
				continue
			}
			if reaches(op, map[string]bool{}) || reaches(ops["parameters"], map[string]bool{}) {
				out[strings.ToUpper(m)+" "+p] = true
			}
		}
	}
	return out
}
