package conformance_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/mock"
)

// A wrong setup is refused before any scenario runs, in one line that
// says which mistake it is, with a kind (and so an exit code) of its own:
// nothing listening, a base URL that is not the API (naming the one that
// is, when it can be found), a refused token, tags that select nothing.
func TestWrongSetupIsOneLine(t *testing.T) {
	wholeRunOnly(t)
	srv, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fake := httptest.NewServer(srv.Handler())
	defer fake.Close()

	// The same API under /api, in front of which nothing says it is the
	// fake: the way to the right path is found by trying it.
	hidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/_mock/") {
			http.NotFound(w, r)
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	defer hidden.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html>a web page</html>")
	}))
	defer page.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/api"
	ln.Close()

	cases := []struct {
		name, base, token, tags string
		kind                    conformance.SetupKind
		want                    string
	}{
		{"stopped server", down, mock.DevToken, "", conformance.Unreachable, "nothing is listening at " + strings.TrimPrefix(strings.TrimSuffix(down, "/api"), "http://")},
		{"the fake without /api", fake.URL, mock.DevToken, "", conformance.NotThisAPI, "did you mean --base-url " + fake.URL + "/api?"},
		{"the fake, wrong path and token", fake.URL + "/v1", "not-a-token", "", conformance.NotThisAPI, "did you mean --base-url " + fake.URL + "/api?"},
		{"an API found one level down", hidden.URL, mock.DevToken, "", conformance.NotThisAPI, "did you mean --base-url " + hidden.URL + "/api?"},
		{"a web page", page.URL, mock.DevToken, "", conformance.NotThisAPI, "does not look like the service's API: GET /user-info answered 200 with text/html"},
		{"refused token", fake.URL + "/api", "not-a-token", "", conformance.TokenRefused, "refused the token: GET /user-info answered 403"},
		{"expired token", hidden.URL + "/api", conformance.FakeExpiredToken, "", conformance.TokenRefused, "refused the token"},
		{"unknown tag", fake.URL + "/api", mock.DevToken, "@nosuchtag", conformance.NoScenarios, `the tag expression "@nosuchtag" matches no scenario`},
		// Known before the server is called: a stopped one does not hide it.
		{"unknown tag, stopped server", down, mock.DevToken, "@nosuchtag", conformance.NoScenarios, "matches no scenario"},
		{"the only scenario skipped", fake.URL + "/api", mock.DevToken, "@second-token", conformance.NoScenarios, "would be skipped: it needs a second access token; pass --token2"},
	}
	cases = append(cases, struct {
		name, base, token, tags string
		kind                    conformance.SetupKind
		want                    string
	}{"every scenario skipped", fake.URL + "/api", mock.DevToken, "@second-token,@destructive", conformance.NoScenarios,
		"scenarios the tags select would be skipped ("})
	kinds := map[int]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := conformance.Run(context.Background(), conformance.Options{
				Target: conformance.Remote(conformance.RemoteOptions{BaseURL: c.base, Token: c.token, MaxRate: 20}),
				Tags:   c.tags,
				Output: io.Discard,
			})
			se, ok := conformance.AsSetupError(err)
			if !ok || se.Kind != c.kind {
				t.Fatalf("got %v (%T), want a setup error of kind %q", err, err, c.kind)
			}
			if res != nil {
				t.Errorf("a run that could not start has a result: %+v", res)
			}
			if !strings.Contains(se.Msg, c.want) || strings.Contains(se.Msg, "\n") {
				t.Errorf("message %q: want one line containing %q", se.Msg, c.want)
			}
			if strings.Contains(se.Msg, c.token) && c.token != mock.DevToken {
				t.Errorf("the message shows the token: %q", se.Msg)
			}
		})
		kinds[c.kind.ExitCode()] = true
	}
	if len(kinds) != 4 || kinds[0] || kinds[1] || kinds[2] {
		t.Errorf("exit codes %v: want four of their own, none of them 0, 1 (scenarios failed) or 2 (command line)", kinds)
	}
}

// TestEveryTagHasAMeaning: the tag list (conform --list-tags) says what
// each tag means; a new tag used in two features needs a line in
// tagMeanings, or the list would show it without one.
func TestEveryTagHasAMeaning(t *testing.T) {
	tags, err := conformance.Tags(nil)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tg := range tags {
		if tg.Meaning == "" {
			t.Errorf("tag %s (in %v) has no meaning", tg.Tag, tg.Features)
		}
		if tg.Tag == "@contract" || tg.Tag == "@profile" {
			total += tg.Scenarios
		}
	}
	if total < 40 {
		t.Errorf("@contract and @profile scenarios: %d; every scenario carries one of the two", total)
	}
}
