package oasdoc

import (
	"slices"
	"strings"
	"testing"
)

func TestRouter(t *testing.T) {
	var r Router
	templates := []struct{ method, path string }{
		{"GET", "/workflow/{workflowId}"},
		{"GET", "/workflow/launch"}, // added after the parameter: a literal still wins
		{"POST", "/workflow/launch"},
		{"GET", "/workflow/{workflowId}/tasks"},
		{"GET", "/workflow/random-name"},
		{"GET", "/orgs/{orgId}/workspaces/{workspaceId}"},
		{"GET", "/orgs/{orgId}/workspaces/mine"},
		{"GET", "/files/{name}.json"},
		{"GET", "/files/{name}"},
		{"GET", "/files/v{major}.{minor}"},
		{"GET", "/"},
		{"get", "/lower"},
	}
	idx := map[string]int{}
	for _, tm := range templates {
		i, err := r.Add(tm.method, tm.path)
		if err != nil {
			t.Fatal(err)
		}
		idx[strings.ToUpper(tm.method)+" "+tm.path] = i
	}
	if _, err := r.Add("GET", "/workflow/{id}"); err == nil {
		t.Error("the same method and shape twice was accepted")
	}
	if _, err := r.Add("GET", "workflow"); err == nil {
		t.Error("a template without a leading / was accepted")
	}
	for _, tc := range []struct {
		method, path string
		want         string // "" for no match
		vals         []string
	}{
		{"GET", "/workflow/launch", "GET /workflow/launch", nil},
		{"POST", "/workflow/launch", "POST /workflow/launch", nil},
		{"GET", "/workflow/abc", "GET /workflow/{workflowId}", []string{"abc"}},
		{"GET", "/workflow/random-name", "GET /workflow/random-name", nil},
		{"GET", "/workflow/launch/tasks", "GET /workflow/{workflowId}/tasks", []string{"launch"}}, // back up from the literal
		{"GET", "/workflow/ab%2Fcd", "GET /workflow/{workflowId}", []string{"ab%2Fcd"}},
		{"DELETE", "/workflow/abc", "", nil},
		{"GET", "/workflow/", "", nil},
		{"GET", "/workflow", "", nil},
		{"GET", "/workflow/a/b", "", nil},
		{"GET", "/orgs/7/workspaces/mine", "GET /orgs/{orgId}/workspaces/mine", []string{"7"}},
		{"GET", "/orgs/7/workspaces/9", "GET /orgs/{orgId}/workspaces/{workspaceId}", []string{"7", "9"}},
		{"GET", "/files/report.json", "GET /files/{name}.json", []string{"report"}},
		{"GET", "/files/.json", "GET /files/{name}", []string{".json"}},
		{"GET", "/files/report.csv", "GET /files/{name}", []string{"report.csv"}},
		{"GET", "/files/v1.2", "GET /files/v{major}.{minor}", []string{"1", "2"}},
		{"GET", "/", "GET /", nil},
		{"GET", "/lower", "GET /lower", nil},
		{"GET", "", "", nil},
		{"GET", "workflow/launch", "", nil},
	} {
		i, vals, ok := r.Find(tc.method, tc.path)
		if tc.want == "" {
			if ok {
				t.Errorf("%s %s matched template %d", tc.method, tc.path, i)
			}
			continue
		}
		if !ok || i != idx[tc.want] || !slices.Equal(vals, tc.vals) {
			t.Errorf("%s %s: %d %q %v, want %s with %q", tc.method, tc.path, i, vals, ok, tc.want, tc.vals)
		}
	}
	if got := r.Params(idx["GET /orgs/{orgId}/workspaces/{workspaceId}"]); !slices.Equal(got, []string{"orgId", "workspaceId"}) {
		t.Errorf("Params = %v", got)
	}
}

func BenchmarkRouterFind(b *testing.B) {
	var r Router
	for _, p := range []string{"/workflow", "/workflow/launch", "/workflow/{workflowId}", "/workflow/{workflowId}/tasks", "/pipelines/{pipelineId}", "/orgs/{orgId}/workspaces/{workspaceId}"} {
		if _, err := r.Add("GET", p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := r.Find("GET", "/workflow/abc123/tasks"); !ok {
			b.Fatal("no match")
		}
	}
}

// TestRouteLess guards the comparison behind route order: a literal segment
// wins over a parameter at the first position where they differ in kind,
// whatever the parameters are called, and the order is a strict one.
func TestRouteLess(t *testing.T) {
	cases := []struct{ a, b string }{
		{"/workflow/random-name", "/workflow/{workflowId}"},
		{"/a/{x}/b", "/a/{x}/{y}"},
		{"/a/{z}/b", "/a/{x}/{y}"}, // parameter names must not decide
		{"/a/{id}/b/c", "/a/{id}/{y}/c"},
		{"/a/b/{x}", "/a/{y}/c"},
		{"/a", "/a/b"},
		{"/a/b", "/a/c"},
		{"/org/{orgId}/ws/{wsId}/list", "/org/{id}/ws/{wsId}/{thing}"},
	}
	for _, tc := range cases {
		if !RouteLess(tc.a, tc.b) {
			t.Errorf("RouteLess(%q, %q) = false, want true", tc.a, tc.b)
		}
		if RouteLess(tc.b, tc.a) {
			t.Errorf("RouteLess(%q, %q) = true, want false", tc.b, tc.a)
		}
		if RouteLess(tc.a, tc.a) {
			t.Errorf("RouteLess(%q, %q) = true for the same path", tc.a, tc.a)
		}
	}
}

// Knows tells a method the path lacks from a path the document lacks, with
// the same precedence as Find: a literal segment that leads nowhere falls
// back to a parameter.
func TestRouterKnows(t *testing.T) {
	var r Router
	for _, tm := range []struct{ method, path string }{
		{"GET", "/workflow"},
		{"POST", "/workflow/launch"},
		{"GET", "/workflow/{workflowId}"},
		{"POST", "/workflow/{workflowId}/cancel"},
	} {
		if _, err := r.Add(tm.method, tm.path); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/workflow", true},
		{"/workflow/launch", true},
		{"/workflow/abc", true},
		{"/workflow/launch/cancel", true}, // "launch" as a run id
		{"/workflow/abc/cancel", true},
		{"/workflow/abc/tasks", false},
		{"/workflow/", false}, // a parameter never matches an empty segment
		{"/pipelines", false},
		{"workflow", false},
		{"*", false},
	} {
		if got := r.Knows(tc.path); got != tc.want {
			t.Errorf("Knows(%q) = %v, want %v", tc.path, got, tc.want)
		}
		// Knows never routes a call: no method matches the sentinel.
		if _, _, ok := r.Find("", tc.path); ok {
			t.Errorf("Find with an empty method routed %q", tc.path)
		}
	}
}
