package calibrate_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/calibrate"
	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/extension"
	"github.com/wmsmock/wmsmock/profile"
)

const (
	token1 = "calibrate-token-one"
	token2 = "calibrate-token-two"
)

// different sets every point calibrate probes to something else than the
// default profile.
const different = `
auth:
  missing: {status: 401, body: template, message: Unauthorized, headers: {Www-Authenticate: Bearer}}
  bad_scheme: {status: 401, body: empty}
  malformed: {status: 400, body: message, message: Bad credentials}
  unknown: {status: 401, body: template, message: "Unknown token, see {errorId}"}
  expired: {status: 401, body: template, message: Token expired}
  require_on_unsecured: false
  basic_token: false
unknown_route: {status: 404, body: template, message: Not Found}
unknown_method: {status: 405, body: empty}
bad_request: {status: 422, body: message, message: Invalid input}
versions: {unserved_as_default: true}
missing_resource: {status: 404, body: template, message: No such resource}
paging: {default_max: 10, max_limit: 30}
body_limit:
  max: 64KiB
  reject: {status: 413, body: template, message: Too large}
rate_limit:
  windows: ["5/s"]
  headers: true
  fixed: true
  key: user
  reject: {status: 503, body: template, message: "Slow down for {retryAfter}s", headers: {X-Wait: "{retryAfter}"}}
requests: {nulls_as_absent: false, scalars_as_strings: false, infer_discriminator: false}
answers: {nulls: omit}
`

// fake starts a fake on p over loopback, on a fake clock, holding the
// tokens and enough runs to show the paging bounds.
func fake(t *testing.T, p *profile.Profile) (string, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	srv, err := mock.New(mock.WithProfile(p), mock.WithClock(clk), mock.WithTokens(token1, token2), mock.WithRequestTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	for i := range 40 {
		req, _ := http.NewRequest("POST", srv.URL()+"/api/workflow/launch", strings.NewReader(`{"launch":{"pipeline":"https://github.com/nf-core/rnaseq"}}`))
		req.Header.Set("Authorization", "Bearer "+token1)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("launch %d: %d", i, resp.StatusCode)
		}
		clk.Advance(time.Second) // keeps the launches under any rate limit
	}
	return srv.URL() + "/api", clk
}

// embeddedDoc is the fake's document as the judge reads it, which the
// probe of the service's nulls needs.
var embeddedDoc = sync.OnceValues(func() (*conformance.Document, error) { return conformance.LoadDocument(fixtures.OpenAPI()) })

// run calibrates the fake at base, with its document; the probe's waits
// move the fake's clock instead of passing real time.
func run(t *testing.T, base string, clk *clock.Fake) *calibrate.Result {
	t.Helper()
	doc, err := embeddedDoc()
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	res, err := calibrate.Run(context.Background(), calibrate.Options{
		BaseURL: base, Token: token1, Token2: token2, ExpiredToken: auth.ExpiredToken, AllowDestructive: true,
		Progress: &progress, Now: clk.Now, Document: doc,
		Sleep: func(_ context.Context, d time.Duration) error { clk.Advance(d); return nil },
	})
	if err != nil {
		t.Fatalf("calibrate: %v\n%s", err, progress.String())
	}
	return res
}

func values(r *calibrate.Result) map[string]any {
	m := map[string]any{}
	for _, f := range r.Findings {
		m[f.Key] = f.Value
	}
	return m
}

// TestCalibrateReproducesAProfile: calibrating a fake whose profile differs
// from the default on every probed point finds each of those points, and a
// fake started with the profile written answers every probe as the first.
func TestCalibrateReproducesAProfile(t *testing.T) {
	p, err := profile.Parse([]byte(different))
	if err != nil {
		t.Fatal(err)
	}
	base, clk := fake(t, p)
	first := run(t, base, clk)
	text, err := first.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{token1, token2, auth.ExpiredToken} {
		if bytes.Contains(text, []byte(secret)) {
			t.Fatalf("the written profile holds a token value:\n%s", text)
		}
	}
	got := values(first)
	want := map[string]any{
		"auth.missing":                 profile.Reply{Status: 401, Body: profile.BodyTemplate, Message: "Unauthorized", Headers: map[string]string{"Www-Authenticate": "Bearer"}},
		"auth.bad_scheme":              profile.Reply{Status: 401, Body: profile.BodyEmpty},
		"auth.malformed":               profile.Reply{Status: 400, Body: profile.BodyMessage, Message: "Bad credentials"},
		"auth.unknown":                 profile.Reply{Status: 401, Body: profile.BodyTemplate, Message: "Unknown token, see {errorId}"},
		"auth.expired":                 profile.Reply{Status: 401, Body: profile.BodyTemplate, Message: "Token expired"},
		"auth.require_on_unsecured":    false,
		"unknown_route":                profile.Reply{Status: 404, Body: profile.BodyTemplate, Message: "Not Found"},
		"unknown_method":               profile.Reply{Status: 405, Body: profile.BodyEmpty},
		"bad_request":                  profile.Reply{Status: 422, Body: profile.BodyMessage, Message: "Invalid input"},
		"versions.unserved_as_default": true,
		"missing_resource":             profile.Reply{Status: 404, Body: profile.BodyTemplate, Message: "No such resource"},
		"paging.operations.ListWorkflows.default_max": 10,
		"paging.operations.ListWorkflows.max_limit":   30,
		"body_limit.max":     profile.Size(64 << 10),
		"body_limit.reject":  profile.Reply{Status: 413, Body: profile.BodyTemplate, Message: "Too large"},
		"rate_limit.reject":  profile.Reply{Status: 503, Body: profile.BodyTemplate, Message: "Slow down for {retryAfter}s", Headers: map[string]string{"X-Wait": "{retryAfter}"}},
		"rate_limit.headers": true,
		"rate_limit.windows": []string{"5/s", "72000/h"},
		"rate_limit.fixed":   true,
		"rate_limit.key":     profile.KeyUser,
		"answers.nulls":      profile.NullsOmit,

		// leniency.go
		"auth.basic_token":             false,
		"requests.nulls_as_absent":     false,
		"requests.scalars_as_strings":  false,
		"requests.infer_discriminator": false,
	}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s: calibrate found %#v, want %#v", k, got[k], v)
		}
	}

	written, err := profile.Parse(text)
	if err != nil {
		t.Fatalf("the written profile does not load: %v\n%s", err, text)
	}
	if written.Auth.BasicToken || written.Requests.NullsAsAbsent || written.Requests.ScalarsAsStrings || written.Requests.InferDiscriminator {
		t.Errorf("the written profile does not hold the flipped leniency values: %+v %+v", written.Auth, written.Requests)
	}
	base2, clk2 := fake(t, written)
	second := run(t, base2, clk2)
	if g2 := values(second); !reflect.DeepEqual(got, g2) {
		t.Errorf("a fake on the written profile answers the probes otherwise:\nfirst  %#v\nsecond %#v\nprofile:\n%s", got, g2, text)
	}
}

// TestCalibrateRefusalHeaders: a server that sends X-RateLimit-* with its
// over-limit refusals but not with its ordinary answers is calibrated into
// a reply that carries them, and rate_limit.headers stays off, so a fake on
// the profile sends the same headers on the same answers (what fidelity
// compares).
func TestCalibrateRefusalHeaders(t *testing.T) {
	p, err := profile.Parse([]byte(`
rate_limit:
  headers: false
  reject: {status: 429, body: empty, headers: {X-Ratelimit-Limit: "20", X-Ratelimit-Remaining: "0"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	base, clk := fake(t, p)
	got := values(run(t, base, clk))
	want := profile.Reply{Status: 429, Body: profile.BodyEmpty, Headers: map[string]string{"X-Ratelimit-Limit": "20", "X-Ratelimit-Remaining": "0"}}
	if !reflect.DeepEqual(got["rate_limit.reject"], want) {
		t.Errorf("rate_limit.reject: calibrate found %#v, want %#v", got["rate_limit.reject"], want)
	}
	if got["rate_limit.headers"] != false {
		t.Errorf("rate_limit.headers: calibrate found %#v, want false (ordinary answers carry none)", got["rate_limit.headers"])
	}
}

// TestCalibrateDefaultFake: the default fake calibrates to its own
// defaults, so calibrate reads replies the way the fake writes them.
func TestCalibrateDefaultFake(t *testing.T) {
	d := profile.Default()
	base, clk := fake(t, d)
	res := run(t, base, clk)
	got := values(res)
	// Every call beyond the schema is listed as not probed, by its
	// profile switch.
	notes := strings.Join(res.Notes, "\n")
	for _, r := range extension.Routes() {
		if !strings.Contains(notes, "extensions."+r.Switch+" not probed: "+r.Method+" "+r.Path) {
			t.Errorf("no note says %s %s (extensions.%s) is not probed: %s", r.Method, r.Path, r.Switch, notes)
		}
	}
	want := map[string]any{
		"auth.missing":              d.Auth.Missing,
		"auth.bad_scheme":           d.Auth.BadScheme,
		"auth.malformed":            d.Auth.Malformed,
		"auth.unknown":              d.Auth.Unknown,
		"auth.revoked":              d.Auth.Revoked,
		"auth.expired":              d.Auth.Expired,
		"auth.require_on_unsecured": false,
		"unknown_route":             d.UnknownRoute,
		"unknown_method":            d.MethodReply(),
		"bad_request":               d.BadRequest,
		"versions.unserved":         d.Versions.Unserved,
		"missing_resource":          d.MissingResource,
		"rate_limit.reject":         d.RateLimit.Reject,
		"rate_limit.headers":        false,
		"rate_limit.windows":        []string{"20/s", "72000/h"},
		"rate_limit.fixed":          false,
		"rate_limit.key":            profile.KeyToken,
		"answers.nulls":             profile.NullsService,

		// leniency.go
		"auth.basic_token":             true,
		"requests.nulls_as_absent":     true,
		"requests.scalars_as_strings":  true,
		"requests.infer_discriminator": true,
	}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s: calibrate found %#v, want the default %#v", k, got[k], v)
		}
	}
}

// TestCalibrateRefusesWhatIsNotTheService: a server that is down, too
// slow, or answering something else ends the run with a message saying so.
func TestCalibrateRefusesWhatIsNotTheService(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer slow.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>hello</html>"))
	}))
	defer garbage.Close()
	for _, c := range []struct {
		name, url, want string
		kind            conformance.SetupKind
	}{
		{"down", down, "nothing is listening at", conformance.Unreachable},
		{"slow", slow.URL, "in time (--call-timeout)", conformance.Unreachable},
		{"garbage", garbage.URL, "does not look like the service", conformance.NotThisAPI},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := calibrate.Run(context.Background(), calibrate.Options{
				BaseURL: c.url, Token: token1, CallTimeout: 200 * time.Millisecond, Timeout: 5 * time.Second,
			})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
			if se, ok := conformance.AsSetupError(err); !ok || se.Kind != c.kind {
				t.Errorf("got %v, want a setup error of kind %s (its own exit status)", err, c.kind)
			}
			if strings.Contains(err.Error(), token1) {
				t.Fatalf("the error shows the token: %v", err)
			}
		})
	}
}
