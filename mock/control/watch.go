package control

import (
	"net/http"
	"net/url"
	"strings"
)

// WatchRequest turns a visit to the address Nextflow prints at the start of
// a run reported to the fake ("Monitor the execution ... using this URL":
// <origin>/user/<name>/watch/<id>, or <origin>/workspaces/<ws>/watch/<id>)
// into the API call that describes that run, GET <base>/workflow/<id>
// (?workspaceId=<ws>), made with token, so a browser opening it sees the
// run as JSON instead of a refusal. The service shows a page there; the
// fake has the run's JSON. Only GET and HEAD outside the API's base path
// are taken (with the API at the root there is no outside, and nothing is).
func WatchRequest(r *http.Request, basePath, token string) (*http.Request, bool) {
	if basePath == "" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return nil, false
	}
	parts := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	if len(parts) != 4 || parts[2] != "watch" || parts[3] == "" || parts[1] == "" {
		return nil, false
	}
	q := url.Values{}
	switch parts[0] {
	case "user":
	case "workspaces":
		q.Set("workspaceId", parts[1])
	default:
		return nil, false
	}
	id, err := url.PathUnescape(parts[3])
	if err != nil || strings.Contains(id, "/") {
		return nil, false
	}
	w := r.Clone(r.Context())
	w.URL.Path, w.URL.RawPath, w.URL.RawQuery = basePath+"/workflow/"+id, "", q.Encode()
	w.RequestURI = w.URL.RequestURI()
	w.Header = r.Header.Clone()
	w.Header.Set("Authorization", "Bearer "+token)
	w.Header.Set("Accept", "application/json")
	return w, true
}
