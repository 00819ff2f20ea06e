package mock_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// discriminatorValues lists the values a component's discriminator maps, in
// the document's order, read from the loaded model.
func discriminatorValues(t *testing.T, doc *spec.Document, component string) []string {
	t.Helper()
	proxy, ok := doc.Model.Components.Schemas.Get(component)
	if !ok {
		t.Fatalf("the document has no component %s", component)
	}
	s := proxy.Schema()
	if s.Discriminator == nil || s.Discriminator.Mapping == nil {
		t.Fatalf("%s has no discriminator mapping", component)
	}
	var out []string
	for k := range s.Discriminator.Mapping.KeysFromOldest() {
		out = append(out, k)
	}
	return out
}

// enumOf returns the enum of a component's property.
func enumOf(t *testing.T, doc *spec.Document, component, prop string) []string {
	t.Helper()
	proxy, _ := doc.Model.Components.Schemas.Get(component)
	p, ok := proxy.Schema().Properties.Get(prop)
	if !ok {
		t.Fatalf("%s has no property %s", component, prop)
	}
	var out []string
	for _, e := range p.Schema().Enum {
		out = append(out, e.Value)
	}
	return out
}

// Correct create bodies for a discriminated oneOf are accepted: the
// discriminator picks the branch, so a body that also fits other (open)
// branches is not "matched by more than one". Every credentials provider
// and every compute platform the published schema maps is tried.
func TestDiscriminatedCreateBodiesAccepted(t *testing.T) {
	doc := published(t)
	srv, _ := newServer(t, doc)
	h := srv.Handler()

	providers := enumOf(t, doc, "Credentials", "provider")
	for _, key := range discriminatorValues(t, doc, "SecurityKeys") {
		provider := key
		if !slices.Contains(providers, provider) {
			provider = providers[0] // a keys kind with no provider of its own name
		}
		body := fmt.Sprintf(`{"credentials":{"name":"cred-%s","provider":%q,"keys":{"discriminator":%q}}}`,
			strings.ReplaceAll(key, "_", "-"), provider, key)
		if a := call(t, h, "POST", "/api/credentials", devToken, []byte(body)); a.status != 200 {
			t.Errorf("credentials with %s keys: %d %s (%s)", key, a.status, a.body, journalReason(t, srv, a))
		}
	}
	aws := `{"credentials":{"name":"aws-full","provider":"aws","keys":{"discriminator":"aws","accessKey":"AKIAEXAMPLE","secretKey":"s3cr3t"}}}`
	if a := call(t, h, "POST", "/api/credentials", devToken, []byte(aws)); a.status != 200 {
		t.Errorf("AWS keys with access and secret key: %d %s (%s)", a.status, a.body, journalReason(t, srv, a))
	}

	for _, platform := range discriminatorValues(t, doc, "ComputeConfig") {
		body := fmt.Sprintf(`{"computeEnv":{"name":"ce-%s","platform":%q,"config":{"discriminator":%q,"workDir":"s3://bucket/work"}}}`,
			platform, platform, platform)
		if a := call(t, h, "POST", "/api/compute-envs", devToken, []byte(body)); a.status != 200 {
			t.Errorf("compute environment on %s: %d %s (%s)", platform, a.status, a.body, journalReason(t, srv, a))
		}
	}
}

// A discriminator value that names no branch is a Bad Request, and what
// the fake logged under its Error ID names the field and the values that
// would have picked a branch.
func TestUnknownDiscriminatorRefused(t *testing.T) {
	doc := published(t)
	srv, _ := newServer(t, doc)
	body := `{"credentials":{"name":"odd","provider":"aws","keys":{"discriminator":"no-such-kind"}}}`
	a := call(t, srv.Handler(), "POST", "/api/credentials", devToken, []byte(body))
	if a.status != 400 {
		t.Fatalf("unknown discriminator: %d %s, want 400", a.status, a.body)
	}
	errorID(t, a)
	reason := journalReason(t, srv, a)
	for _, want := range []string{"credentials.keys.discriminator", "'aws'", "'github'"} {
		if !strings.Contains(reason, want) {
			t.Errorf("logged reason does not mention %s: %s", want, reason)
		}
	}
}

// Generated and seeded entries carry the discriminator of the branch they
// were built from and none of the other branches' properties; a seeded
// credential's keys are of its provider's kind.
func TestGeneratedKeysCarryOneBranch(t *testing.T) {
	doc := published(t)
	srv, _ := newServer(t, doc, mock.WithState(mock.NoRecords()))
	branchProps := map[string][]string{} // discriminator value -> properties of its branch
	secrets := map[string][]string{}     // discriminator value -> its writeOnly properties
	keysProxy, _ := doc.Model.Components.Schemas.Get("SecurityKeys")
	for k, ref := range keysProxy.Schema().Discriminator.Mapping.FromOldest() {
		name := ref[strings.LastIndex(ref, "/")+1:]
		p, ok := doc.Model.Components.Schemas.Get(name)
		if !ok {
			t.Fatalf("mapping %s names missing %s", k, name)
		}
		branchProps[k] = propertyNames(p.Schema())
		secrets[k] = writeOnlyNames(p.Schema())
	}
	seen := map[string]bool{}
	for i := range 40 {
		a := call(t, srv.Handler(), "GET", fmt.Sprintf("/api/credentials/c%03d", i), devToken, nil)
		if a.status != 200 {
			t.Fatalf("describe credentials: %d %s", a.status, a.body)
		}
		var out struct {
			Credentials struct {
				Keys map[string]any `json:"keys"`
			} `json:"credentials"`
		}
		if err := json.Unmarshal(a.body, &out); err != nil {
			t.Fatal(err)
		}
		keys := out.Credentials.Keys
		if keys == nil {
			continue
		}
		d, _ := keys["discriminator"].(string)
		props, ok := branchProps[d]
		if !ok {
			t.Fatalf("generated keys carry discriminator %q, which names no branch: %v", d, keys)
		}
		seen[d] = true
		for name := range keys {
			if !slices.Contains(props, name) {
				t.Errorf("keys of kind %q carry %q, a property of another branch: %v", d, name, keys)
			}
		}
	}
	if len(seen) < 2 {
		t.Errorf("40 generated credentials used only %v: generation should spread over the branches", seen)
	}

	// The seeded credentials: each one's keys are of its provider's kind.
	seeded, _ := newServer(t, doc)
	a := call(t, seeded.Handler(), "GET", "/api/credentials", devToken, nil)
	var list struct {
		Credentials []struct {
			Provider string         `json:"provider"`
			Keys     map[string]any `json:"keys"`
		} `json:"credentials"`
	}
	if err := json.Unmarshal(a.body, &list); err != nil || a.status != 200 {
		t.Fatalf("list credentials: %d %s %v", a.status, a.body, err)
	}
	if len(list.Credentials) == 0 {
		t.Fatal("the fake seeds no credentials")
	}
	for _, c := range list.Credentials {
		d, _ := c.Keys["discriminator"].(string)
		if d != c.Provider {
			t.Errorf("seeded %s credentials carry keys of kind %q", c.Provider, d)
		}
		// Every property of their own branch, null where the seed gave
		// none (the service writes every property), and none of another.
		for name, v := range c.Keys {
			if !slices.Contains(branchProps[d], name) {
				t.Errorf("seeded %s keys carry %q = %v, not a property of their own branch", c.Provider, name, v)
			}
		}
		for _, name := range branchProps[d] {
			if _, ok := c.Keys[name]; !ok && !slices.Contains(secrets[d], name) {
				t.Errorf("seeded %s keys lack %q: an unset property is null, not absent", c.Provider, name)
			}
		}
	}
}

// writeOnlyNames lists the properties s marks writeOnly (secrets, never
// answered), directly or through allOf.
func writeOnlyNames(s *base.Schema) []string {
	var out []string
	if s.Properties != nil {
		for k, p := range s.Properties.FromOldest() {
			if ps := p.Schema(); ps != nil && ps.WriteOnly != nil && *ps.WriteOnly {
				out = append(out, k)
			}
		}
	}
	for _, p := range s.AllOf {
		out = append(out, writeOnlyNames(p.Schema())...)
	}
	return out
}

func propertyNames(s *base.Schema) []string {
	var out []string
	if s.Properties != nil {
		for k := range s.Properties.KeysFromOldest() {
			out = append(out, k)
		}
	}
	for _, p := range s.AllOf {
		out = append(out, propertyNames(p.Schema())...)
	}
	return out
}

// journalReason is what the fake logged about a refused answer, for test
// failure messages.
func journalReason(t *testing.T, srv *mock.Server, a answer) string {
	t.Helper()
	m := errorIDMessage.FindStringSubmatch(string(a.body))
	if m == nil {
		var v struct{ Message string }
		if json.Unmarshal(a.body, &v) != nil {
			return ""
		}
		m = errorIDMessage.FindStringSubmatch(v.Message)
		if m == nil {
			return ""
		}
	}
	e, ok := errorEntry(t, srv, m[1])
	if !ok {
		return "no journal entry"
	}
	return e.Reason
}
