package mock

import (
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// TestRouting guards api.match: every operation of both documents is found
// from a call to its own path, literal segments win over parameters
// ("/workflow/launch" is not a workflow id), an escaped "/" stays inside
// its segment, one trailing slash is read away, and a method or length
// that no route has finds nothing.
func TestRouting(t *testing.T) {
	docs := map[string]func(t *testing.T) *spec.Document{
		"embedded": func(t *testing.T) *spec.Document {
			d, err := spec.Load(fixtures.OpenAPI())
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		"published": func(t *testing.T) *spec.Document {
			d, err := spec.LoadFile(testenv.PublishedSpec(t, ""))
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	for name, load := range docs {
		t.Run(name, func(t *testing.T) {
			doc := load(t)
			a := newAPI("1", doc, "/api", 1, memo.NewSet(0), profile.Answers{}, requestPolicy(profile.Default()))
			for _, op := range doc.Operations {
				target := "/api" + param.ReplaceAllString(op.Path, "p1x")
				got, _, ok := a.match(httptest.NewRequest(op.Method, target, nil))
				if !ok || got != op {
					t.Errorf("%s %s: matched %v (ok %v), want %s", op.Method, target, opID(got), ok, op.ID)
				}
			}
			for _, c := range []struct{ method, target, want string }{
				{"GET", "/api/workflow", "ListWorkflows"},
				{"POST", "/api/workflow/launch", "CreateWorkflowLaunch"},
				{"GET", "/api/workflow/launch", "DescribeWorkflow"},
				{"TRACE", "/api/workflow", ""},
				{"GET", "/api/workflow/a/b/c/d/e/f/g", ""},
				{"POST", "/api/workflow/ID%2Fcancel", ""},
				{"GET", "/api/workflow/ID%2Fcancel", "DescribeWorkflow"},
				{"GET", "/apiworkflow", ""},
				{"GET", "/workflow", ""},
				// One trailing slash is the path without it, as on the
				// service; two are not, nor is the base path alone.
				{"GET", "/api/workflow/", "ListWorkflows"},
				{"POST", "/api/workflow/launch/", "CreateWorkflowLaunch"},
				{"GET", "/api/workflow/abc/", "DescribeWorkflow"},
				{"GET", "/api/workflow//", ""},
				{"GET", "/api/workflow/abc//", ""},
				{"GET", "/api/", ""},
			} {
				got, _, ok := a.match(httptest.NewRequest(c.method, c.target, nil))
				if ok != (c.want != "") || ok && got.ID != c.want {
					t.Errorf("%s %s: matched %v (ok %v), want %q", c.method, c.target, opID(got), ok, c.want)
				}
			}
		})
	}
}

// TestRoutingParameterFirst: templates whose first segment holds a
// parameter are still found, after the literal ones of the same shape.
func TestRoutingParameterFirst(t *testing.T) {
	doc, err := spec.Load([]byte(`openapi: 3.0.3
info: {title: Shapes, version: "1"}
paths:
  /things/{id}:
    get: {operationId: thing, responses: {"200": {description: ok}}}
  /{kind}/{id}:
    get: {operationId: anything, responses: {"200": {description: ok}}}
  /v{n}/status:
    get: {operationId: versioned, responses: {"200": {description: ok}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	a := newAPI("1", doc, "/api", 1, memo.NewSet(0), profile.Answers{}, requestPolicy(profile.Default()))
	for target, want := range map[string]string{
		"/api/things/1":  "thing",
		"/api/others/1":  "anything",
		"/api/v2/status": "versioned",
		"/api/status/1":  "anything",
	} {
		got, _, ok := a.match(httptest.NewRequest("GET", target, nil))
		if !ok || got.ID != want {
			t.Errorf("GET %s: matched %s (ok %v), want %s", target, opID(got), ok, want)
		}
	}
}

func opID(op *spec.Operation) string {
	if op == nil {
		return "nothing"
	}
	return op.ID
}
