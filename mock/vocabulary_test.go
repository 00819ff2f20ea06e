package mock_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// TestAnswersUseTheServiceVocabulary: where the published schema types a
// property as a plain string but the service fills it from a small set,
// the seeded account's answers hold values of that set, and /platforms
// lists the platform ids compute environments name.
func TestAnswersUseTheServiceVocabulary(t *testing.T) {
	if testenv.RaceEnabled {
		t.Skip("published schema: .ci/run runs it without -race")
	}
	srv, _ := newServer(t, published(t), mock.WithStrictResponses())
	h := srv.Handler()
	list := func(target, key string) []map[string]any {
		a := call(t, h, "GET", "/api"+target, devToken, nil)
		var v map[string]json.RawMessage
		var out []map[string]any
		if a.status != 200 || json.Unmarshal(a.body, &v) != nil || json.Unmarshal(v[key], &out) != nil || len(out) == 0 {
			t.Fatalf("GET %s: %d %.200s", target, a.status, a.body)
		}
		return out
	}
	in := func(where string, got any, set []string) {
		t.Helper()
		if s, ok := got.(string); !ok || !slices.Contains(set, s) {
			t.Errorf("%s: %v is not one of %v", where, got, set)
		}
	}
	for _, target := range []string{"/compute-envs", "/compute-envs?workspaceId=2001"} {
		for _, ce := range list(target, "computeEnvs") {
			in(target+" visibility", ce["visibility"], []string{"PRIVATE", "SHARED"})
			in(target+" platform", ce["platform"], synth.Platforms)
		}
	}
	for _, m := range list("/orgs/1001/members", "members") {
		in("member role", m["role"], []string{"owner", "member", "collaborator"})
	}
	for _, p := range list("/orgs/1001/workspaces/2001/participants", "participants") {
		in("participant wspRole", p["wspRole"], []string{"owner", "admin", "maintain", "launch", "connect", "view"})
	}
	var ids []string
	for _, p := range list("/platforms", "platforms") {
		id, _ := p["id"].(string)
		ids = append(ids, id)
	}
	if len(ids) != len(synth.Platforms) {
		t.Errorf("/platforms lists %v, want the platform ids %v", ids, synth.Platforms)
	}
	for _, id := range ids {
		in("/platforms id", id, synth.Platforms)
	}
}
