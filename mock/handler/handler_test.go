package handler

import (
	"net/url"
	"testing"
)

func TestConstructors(t *testing.T) {
	if r := JSON(201, map[string]int{"a": 1}); r.Status != 201 || r.MediaType != "application/json" || r.Body == nil || r.Raw != nil {
		t.Errorf("JSON = %+v", r)
	}
	if r := NoContent(204); r.Status != 204 || r.Body != nil || r.Raw != nil || r.MediaType != "" {
		t.Errorf("NoContent = %+v", r)
	}
}

// RenamedParams reads a call's parameters under other names and leaves the
// call itself as it was.
func TestRenamedParams(t *testing.T) {
	orig := &Request{PathParams: map[string]string{"workflowId": "w1", "other": "x"}, Query: url.Values{"q": {"1"}}}
	got := orig.RenamedParams(map[string]string{"id": "workflowId", "gone": "missing"})
	if len(got.PathParams) != 2 || got.PathParams["id"] != "w1" || got.PathParams["gone"] != "" {
		t.Errorf("renamed params = %v, want id=w1 and an empty gone", got.PathParams)
	}
	if got.Query.Get("q") != "1" {
		t.Error("the rest of the request was not kept")
	}
	if len(orig.PathParams) != 2 || orig.PathParams["workflowId"] != "w1" || orig.PathParams["id"] != "" {
		t.Errorf("the original changed: %v", orig.PathParams)
	}
}
