// Package calibrate probes a running server (the real service, or a fake)
// for the points the service's document leaves open, and writes what it saw
// as a behaviour profile the fake loads with --profile.
//
// It is meant to be pointed at the production service, so it is careful:
// ordinary probes are paced well under the documented rate limit (only the
// rate-limit probe bursts, once, at the end), it creates nothing unless
// asked to (and then deletes what it made), every call and the whole run
// are bounded in time, and the token values never reach its output.
package calibrate

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/internal/wait"
	"github.com/wmsmock/wmsmock/mock/extension"
	"github.com/wmsmock/wmsmock/profile"
)

// Defaults for Options.
const (
	DefaultTimeout     = 2 * time.Minute
	DefaultCallTimeout = 10 * time.Second
	// DefaultPace keeps ordinary probes at 10 calls a second, half the
	// documented per-token limit.
	DefaultPace = 100 * time.Millisecond
	// DefaultBurst is how many calls the rate-limit probe sends at once:
	// three times the documented 20 a second.
	DefaultBurst = 60
	// bodyProbe is the largest body the body-limit probe sends; the search
	// below it sends about as much again, in halves.
	bodyProbe = 2 << 20
	// maxAnswer is as much of an answer as a probe reads.
	maxAnswer = 1 << 20
)

// Options says which server to probe and how.
type Options struct {
	// BaseURL is the API's root, e.g. https://api.cloud.seqera.io or
	// http://127.0.0.1:8080/api.
	BaseURL string
	// Token is a valid access token; Token2, if given, another token of
	// the same user, to see whether the rate limit counts per token;
	// ExpiredToken, if given, one that has expired.
	Token, Token2, ExpiredToken string
	// AllowDestructive lets the probe create a token and delete it again,
	// to see how a deleted token is refused.
	AllowDestructive bool
	// Timeout bounds the whole run, CallTimeout each call.
	Timeout, CallTimeout time.Duration
	// Pace is the least time between two ordinary probe calls.
	Pace time.Duration
	// Burst is the number of calls the rate-limit probe sends at once.
	Burst int
	// Client sends the calls (default: a client of its own).
	Client *http.Client
	// RootCAs, when set, are the certificate authorities the default
	// client checks an HTTPS server against (e.g. the fake's CA); nil
	// uses the system's.
	RootCAs *x509.CertPool
	// Progress, if set, gets a line per probe.
	Progress io.Writer
	// Sleep waits d (default: a timer). Tests that run the server on a
	// fake clock advance that clock here instead.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the time written into the profile (default time.Now).
	Now func() time.Time
	// Document is the server's OpenAPI document, read by the judge
	// (conformance.LoadDocument); the probes that need the schema (the
	// service's nulls) are left out without it.
	Document *conformance.Document
}

// Finding is one profile value the probe observed.
type Finding struct {
	// Key is the profile key, dotted: "auth.missing", "paging.max_limit".
	Key string
	// Value is what the key is set to.
	Value any
	// Seen says what the server did, for the comment above the value.
	Seen string
}

// Result is what a run observed.
type Result struct {
	// Server is the base URL probed, without any user information.
	Server string
	// At is when the run started.
	At time.Time
	// APIVersion is the server's serviceInfo.apiVersion ("" if absent).
	APIVersion string
	// Findings are the values for the profile, in probe order.
	Findings []Finding
	// Notes are points the run could not settle or the profile cannot
	// hold; they are written as comments.
	Notes []string

	secrets []string
}

func (o *Options) defaults() error {
	if o.BaseURL == "" {
		return errors.New("calibrate: a base URL is required")
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("calibrate: base URL %q is not an http(s) URL", redactURL(o.BaseURL))
	}
	if o.Token == "" {
		return errors.New("calibrate: a token is required")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Pace <= 0 {
		o.Pace = DefaultPace
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Client == nil {
		tr := &http.Transport{MaxConnsPerHost: o.Burst, MaxIdleConnsPerHost: o.Burst}
		if o.RootCAs != nil {
			tr.TLSClientConfig, tr.ForceAttemptHTTP2 = &tls.Config{RootCAs: o.RootCAs}, true
		}
		o.Client = &http.Client{Transport: tr}
	}
	if o.Sleep == nil {
		o.Sleep = wait.For
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// Run probes the server. It fails, with a message saying what went wrong,
// when the server cannot be reached, does not answer in time, or does not
// answer its first calls as the service would (a 200 with JSON).
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	p := &prober{o: o, base: strings.TrimRight(o.BaseURL, "/"),
		res: &Result{Server: redactURL(o.BaseURL), At: o.Now().UTC(), secrets: []string{o.Token, o.Token2, o.ExpiredToken}}}
	// The usual mistakes (nothing listening, a base URL without the API's
	// path, a refused token) end the run at once with one line, as for
	// conform (the error is a conformance.SetupError).
	pre := *o.Client
	pre.Timeout = o.CallTimeout
	if err := conformance.Preflight(ctx, &pre, o.BaseURL, o.Token); err != nil {
		if se, ok := conformance.AsSetupError(err); ok {
			err = &conformance.SetupError{Kind: se.Kind, Msg: scrub(se.Msg, p.res.secrets)}
		}
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"service info", p.serviceInfo},
		{"authentication", p.auth},
		{"unknown routes", p.unknownRoutes},
		{"versions", p.versions},
		{"invalid input", p.badRequest},
		{"missing resources", p.missing},
		{"request leniency", p.leniency}, // leniency.go
		{"paging", p.paging},
		{"answer nulls", p.answerNulls}, // nulls.go
		{"body limit", p.bodyLimit},
		{"rate limit", p.rateLimit},
		{"extensions", p.extensions},
	}
	for _, s := range steps {
		if err := s.run(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("calibrate: %s: the run took longer than %s", s.name, o.Timeout)
			}
			return nil, fmt.Errorf("calibrate: %s: %w", s.name, err)
		}
	}
	return p.res, nil
}

// extensions notes the calls beyond the published schema the fake
// answers (its profile's extensions section), which calibrate does not
// probe: a sign-in needs a browser, a license is a Fusion licence of the
// account, a refresh needs a launched run's refresh token.
func (p *prober) extensions(context.Context) error {
	for _, r := range extension.Routes() {
		p.note("extensions.%s not probed: %s %s (%s) is beyond the published schema", r.Switch, r.Method, r.Path, r.Name)
	}
	return nil
}

// prober holds a run's state.
type prober struct {
	o        Options
	base     string
	res      *Result
	baseline http.Header // an ordinary answer's headers
	called   bool
}

// progress writes a line of what the run does; a server that echoes a
// token in its answers does not get it printed.
func (p *prober) progress(format string, args ...any) {
	if p.o.Progress != nil {
		fmt.Fprint(p.o.Progress, scrub(fmt.Sprintf("calibrate: "+format+"\n", args...), p.res.secrets))
	}
}

func (p *prober) find(key string, value any, seen string) {
	p.res.Findings = append(p.res.Findings, Finding{Key: key, Value: value, Seen: seen})
	p.progress("%s: %s", key, seen)
}

func (p *prober) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	p.res.Notes = append(p.res.Notes, n)
	p.progress("note: %s", n)
}

// header values of the probes, by what they test.
const (
	withToken = "token"
	noHeader  = ""
)

// call sends one probe call, after waiting out the pace. auth is the
// Authorization header's whole value, withToken for the run's token, or
// noHeader for none. A server stricter than the pace refuses some calls
// for their rate (a refusal with Retry-After): such a call is sent again
// once the server's wait is over, a few times at most.
func (p *prober) call(ctx context.Context, method, path, auth string, header http.Header, body []byte) (answer, error) {
	for try := 0; ; try++ {
		if p.called {
			if err := p.o.Sleep(ctx, p.o.Pace); err != nil {
				return answer{}, err
			}
		}
		p.called = true
		a, err := p.send(ctx, method, path, auth, header, body)
		if err != nil || a.status < 400 || a.header.Get("Retry-After") == "" || try == 3 {
			return a, err
		}
		if err := p.o.Sleep(ctx, retryWait(a.header.Get("Retry-After"))); err != nil {
			return answer{}, err
		}
	}
}

// retryWait is how long to wait after an over-limit answer: its
// Retry-After in seconds, at least one, and a little more.
func retryWait(retryAfter string) time.Duration {
	wait := time.Second
	if s, err := strconv.Atoi(retryAfter); err == nil && time.Duration(s)*time.Second > wait {
		wait = time.Duration(s) * time.Second
	}
	return wait + 100*time.Millisecond
}

// send is call without the pace: the rate-limit burst uses it directly.
func (p *prober) send(ctx context.Context, method, path, auth string, header http.Header, body []byte) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, p.o.CallTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, rd)
	if err != nil {
		return answer{}, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	switch auth {
	case noHeader:
	case withToken:
		req.Header.Set("Authorization", "Bearer "+p.o.Token)
	default:
		req.Header.Set("Authorization", auth)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.o.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return answer{}, fmt.Errorf("%s %s: no answer within %s", method, path, p.o.CallTimeout)
		}
		return answer{}, fmt.Errorf("%s %s: %w", method, path, p.scrubErr(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: reading the answer: %w", method, path, p.scrubErr(err))
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// scrubErr keeps token values out of error text (a URL with credentials,
// a header echoed by a proxy).
func (p *prober) scrubErr(err error) error {
	return errors.New(scrub(err.Error(), p.res.secrets))
}

// serviceInfo is the first contact: a 200 with a JSON object, or the run
// stops here with a message saying what the server did instead.
func (p *prober) serviceInfo(ctx context.Context) error {
	a, err := p.call(ctx, "GET", "/service-info", withToken, nil, nil)
	if err != nil {
		return fmt.Errorf("no answer from %s: %w", p.res.Server, err)
	}
	if a.status != http.StatusOK {
		return fmt.Errorf("GET /service-info with the token answered %d, not 200: is %s the API's root, and the token valid?", a.status, p.res.Server)
	}
	var info struct {
		ServiceInfo struct {
			APIVersion string `json:"apiVersion"`
		} `json:"serviceInfo"`
	}
	if err := json.Unmarshal(a.body, &info); err != nil {
		return fmt.Errorf("GET /service-info did not answer JSON (%s: %q): this does not look like the service", a.header.Get("Content-Type"), clip(string(a.body), 60))
	}
	p.baseline = a.header
	p.res.APIVersion = info.ServiceInfo.APIVersion
	p.progress("service info: apiVersion %q", p.res.APIVersion)
	// The probes of authentication and paging read the workflow list.
	w, err := p.call(ctx, "GET", "/workflow", withToken, nil, nil)
	if err != nil {
		return err
	}
	var list map[string]any
	if w.status != http.StatusOK || json.Unmarshal(w.body, &list) != nil {
		return fmt.Errorf("GET /workflow with the token answered %d %q, not a JSON list", w.status, clip(string(w.body), 60))
	}
	return nil
}

// refusal records the reply a probe call got under key, or a note when the
// profile cannot hold it.
func (p *prober) refusal(key, what string, a answer) {
	r, seen, ok := replyOf(a, p.baseline, "")
	if !ok {
		p.note("%s (%s): %s; the profile cannot hold that, so the default is kept", key, what, seen)
		return
	}
	p.find(key, r, what+": "+seen)
}

func (p *prober) auth(ctx context.Context) error {
	cases := []struct{ key, what, header string }{
		{"auth.missing", "no Authorization header", noHeader},
		{"auth.bad_scheme", "a Basic credential", "Basic Y2FsaWJyYXRlOnByb2Jl"},
		{"auth.malformed", "Bearer with a value a token cannot be", "Bearer not a token!"},
		{"auth.unknown", "a well-formed token nobody issued", "Bearer " + randomWord(40)},
	}
	for _, c := range cases {
		a, err := p.call(ctx, "GET", "/workflow", c.header, nil, nil)
		if err != nil {
			return err
		}
		p.refusal(c.key, "GET /workflow with "+c.what, a)
	}
	if p.o.AllowDestructive {
		if err := p.revoked(ctx); err != nil {
			return err
		}
	} else {
		p.note("auth.revoked not probed: it needs a token created and deleted (--allow-destructive)")
	}
	if p.o.ExpiredToken != "" {
		a, err := p.call(ctx, "GET", "/workflow", "Bearer "+p.o.ExpiredToken, nil, nil)
		if err != nil {
			return err
		}
		p.refusal("auth.expired", "GET /workflow with an expired token", a)
	} else {
		p.note("auth.expired not probed: it needs a token that has expired (--expired-token)")
	}
	a, err := p.call(ctx, "GET", "/service-info", noHeader, nil, nil)
	if err != nil {
		return err
	}
	p.find("auth.require_on_unsecured", a.status >= 400,
		fmt.Sprintf("GET /service-info (no security in the published schema) without a token: %d", a.status))
	return nil
}

// revoked creates a token, deletes it, and calls with it.
func (p *prober) revoked(ctx context.Context) error {
	name := "wmsmock-calibrate-" + randomWord(8)
	a, err := p.call(ctx, "POST", "/tokens", withToken, nil, []byte(`{"name":"`+name+`"}`))
	if err != nil {
		return err
	}
	var created struct {
		AccessKey string `json:"accessKey"`
		Token     struct {
			ID int64 `json:"id"`
		} `json:"token"`
	}
	if a.status != http.StatusOK || json.Unmarshal(a.body, &created) != nil || created.AccessKey == "" {
		p.note("auth.revoked not probed: POST /tokens answered %d", a.status)
		return nil
	}
	p.res.secrets = append(p.res.secrets, created.AccessKey)
	d, err := p.call(ctx, "DELETE", "/tokens/"+strconv.FormatInt(created.Token.ID, 10), withToken, nil, nil)
	if err != nil {
		return err
	}
	if d.status >= 300 {
		p.note("auth.revoked not probed: DELETE of the probe's token %q answered %d; delete it by hand", name, d.status)
		return nil
	}
	r, err := p.call(ctx, "GET", "/workflow", "Bearer "+created.AccessKey, nil, nil)
	if err != nil {
		return err
	}
	p.refusal("auth.revoked", "GET /workflow with a token just deleted", r)
	return nil
}

func (p *prober) unknownRoutes(ctx context.Context) error {
	path := "/wmsmock-calibrate-" + randomWord(8)
	a, err := p.call(ctx, "GET", path, withToken, nil, nil)
	if err != nil {
		return err
	}
	p.refusal("unknown_route", "GET of a path the API does not have", a)
	m, err := p.call(ctx, "PUT", "/service-info", withToken, nil, nil)
	if err != nil {
		return err
	}
	p.refusal("unknown_method", "PUT of a path that defines only GET", m)
	return nil
}

func (p *prober) versions(ctx context.Context) error {
	a, err := p.call(ctx, "GET", "/service-info", withToken, http.Header{"Accept-Version": {"999"}}, nil)
	if err != nil {
		return err
	}
	if a.status < 300 {
		p.find("versions.unserved_as_default", true, fmt.Sprintf("GET /service-info with Accept-Version 999: %d, answered as the default version", a.status))
	} else {
		p.refusal("versions.unserved", "GET /service-info with Accept-Version 999", a)
	}
	m, err := p.call(ctx, "GET", "/service-info", withToken, http.Header{"Accept-Version": {"not a version"}}, nil)
	if err != nil {
		return err
	}
	if (m.status < 300) != (a.status < 300) || m.status != a.status {
		p.note("a malformed Accept-Version gets %d, an unserved one %d; the profile has one reply for both", m.status, a.status)
	}
	return nil
}

func (p *prober) badRequest(ctx context.Context) error {
	a, err := p.call(ctx, "GET", "/workflow?max=calibrate", withToken, nil, nil)
	if err != nil {
		return err
	}
	p.refusal("bad_request", "GET /workflow?max=calibrate (not a number)", a)
	return nil
}

func (p *prober) missing(ctx context.Context) error {
	a, err := p.call(ctx, "GET", "/workflow/"+randomWord(14), withToken, nil, nil)
	if err != nil {
		return err
	}
	p.refusal("missing_resource", "GET /workflow/{id} of a run that does not exist", a)
	return nil
}

// listWorkflows is the profile key of the workflow list's own paging
// bounds: GET /workflow is ListWorkflows in the service's schema. Paging
// differs per endpoint, so what one list shows is written for that list.
const listWorkflows = "paging.operations.ListWorkflows"

// paging reads the workflow list without a page size and with a large
// one. A page shorter than the total shows the default, or the bound.
func (p *prober) paging(ctx context.Context) error {
	page := func(query string) (n, total int, ok bool, err error) {
		a, err := p.call(ctx, "GET", "/workflow"+query, withToken, nil, nil)
		if err != nil || a.status != http.StatusOK {
			return 0, 0, false, err
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(a.body, &m) != nil {
			return 0, 0, false, nil
		}
		total = -1
		if t, has := m["totalSize"]; has && json.Unmarshal(t, &total) != nil {
			total = -1
		}
		for _, v := range m {
			var items []json.RawMessage
			if json.Unmarshal(v, &items) == nil && items != nil {
				return len(items), total, true, nil
			}
		}
		return 0, 0, false, nil
	}
	n, total, ok, err := page("")
	if err != nil {
		return err
	}
	switch {
	case !ok || total < 0:
		p.note("paging not probed: GET /workflow has no list with a totalSize")
		return nil
	case n < total:
		p.find(listWorkflows+".default_max", n, fmt.Sprintf("GET /workflow without max: %d of %d runs", n, total))
	default:
		p.note("paging.default_max not found: GET /workflow without max answered all %d runs (a longer list would show it)", total)
	}
	const large = 1000
	n, total, ok, err = page("?max=" + strconv.Itoa(large))
	if err != nil {
		return err
	}
	switch {
	case !ok:
		p.note("paging.max_limit not found: GET /workflow?max=%d was refused; the fake lowers a large max instead", large)
	case n < total && n < large:
		p.find(listWorkflows+".max_limit", n, fmt.Sprintf("GET /workflow?max=%d: %d of %d runs", large, n, total))
	default:
		p.note("paging.max_limit not found: GET /workflow?max=%d answered all %d runs", large, total)
	}
	return nil
}

// bodyLimit compares the refusal of a small unreadable body with that of
// a large one; when they differ, a search by halves finds the largest body
// refused the small way. The bodies are not JSON, so nothing is created.
func (p *prober) bodyLimit(ctx context.Context) error {
	send := func(n int) (answer, error) {
		return p.call(ctx, "POST", "/workflow/launch", withToken, nil, bytes.Repeat([]byte{'x'}, n))
	}
	small, err := send(16)
	if err != nil {
		return err
	}
	large, err := send(bodyProbe)
	if err != nil {
		return err
	}
	if small.status == large.status {
		p.note("body_limit not found: a body of %d bytes is refused like a small one (%d)", bodyProbe, large.status)
		return nil
	}
	lo, hi := 16, bodyProbe // lo is refused the small way, hi the large way
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		a, err := send(mid)
		if err != nil {
			return err
		}
		if a.status == small.status {
			lo = mid
		} else {
			hi = mid
		}
	}
	p.find("body_limit.max", profile.Size(lo), fmt.Sprintf("POST /workflow/launch: a body of %d bytes is read, one of %d is refused", lo, hi))
	p.refusal("body_limit.reject", fmt.Sprintf("a body of %d bytes", bodyProbe), large)
	return nil
}

// rateLimit sends Burst calls at once with the token and reads the
// refusals. It runs last and waits for the window to pass before and
// after, so the other probes are not refused and a later run starts clean.
func (p *prober) rateLimit(ctx context.Context) error {
	if err := p.o.Sleep(ctx, 1100*time.Millisecond); err != nil {
		return err
	}
	n := p.o.Burst
	start := time.Now()
	answers, err := p.burst(ctx, n)
	if err != nil {
		return err
	}
	took := time.Since(start)
	accepted, refused := 0, -1
	limited := false
	for i, a := range answers {
		switch {
		case a.status < 300:
			accepted++
			if a.header.Get("X-Ratelimit-Limit") != "" {
				limited = true
			}
		case refused < 0:
			refused = i
		}
	}
	if refused < 0 {
		p.note("rate limit not found: all %d calls sent at once were answered (in %s)", n, took.Round(time.Millisecond))
		return nil
	}
	r := answers[refused]
	retry := r.header.Get("Retry-After")
	reply, seen, ok := replyOf(r, p.baseline, retry)
	if ok {
		p.find("rate_limit.reject", reply, fmt.Sprintf("%d calls sent at once, %d answered: the first refusal %s", n, accepted, seen))
	} else {
		p.note("rate_limit.reject: %s; the profile cannot hold that, so the default is kept", seen)
	}
	if retry != "" {
		p.note("Retry-After on an over-limit call: %q (the fake sends whole seconds, rounded up)", retry)
	}
	p.note("rate_limit.hold and rate_limit.count_rejected not probed")
	p.find("rate_limit.headers", limited, fmt.Sprintf("X-RateLimit-Limit on the answered calls: %t", limited))
	windows := []string{fmt.Sprintf("%d/s", max(accepted, 1)), "72000/h"}
	seenW := fmt.Sprintf("%d of %d calls sent at once were answered, in %s; the hourly figure is the documented one, not probed", accepted, n, took.Round(time.Millisecond))
	if took > time.Second {
		seenW += " (the burst took over a second, so the per-second figure is an upper bound)"
	}
	p.find("rate_limit.windows", windows, seenW)
	if p.o.Token2 != "" {
		a, err := p.send(ctx, "GET", "/service-info", "Bearer "+p.o.Token2, nil, nil)
		if err != nil {
			return err
		}
		if a.status < 300 {
			p.find("rate_limit.key", profile.KeyToken, "a second token of the same user was answered while the first was limited")
		} else {
			p.find("rate_limit.key", profile.KeyUser, fmt.Sprintf("a second token of the same user was refused (%d) while the first was limited", a.status))
		}
	} else {
		p.note("rate_limit.key not probed: it needs a second token of the same user (--token2)")
	}
	if err := p.o.Sleep(ctx, retryWait(retry)); err != nil {
		return err
	}
	if accepted == 0 {
		p.note("rate_limit.fixed not probed: no call of the burst was answered")
		return nil
	}
	return p.windowKind(ctx, accepted)
}

// burst sends n calls at once with the token, unpaced.
func (p *prober) burst(ctx context.Context, n int) ([]answer, error) {
	answers := make([]answer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { answers[i], errs[i] = p.send(ctx, "GET", "/service-info", withToken, nil, nil) })
	}
	wg.Wait()
	return answers, errors.Join(errs...)
}

// windowKind tells rolling windows from windows fixed to the clock's
// seconds: a full burst 0.6 s into a second, then another 0.6 s later,
// just past the next second's start. A rolling window still holds the
// first burst and refuses the second; a fixed one has started again. It
// reads the time from this machine's clock, so a server whose clock is off
// by more than a few tenths of a second can make the answer inconclusive.
func (p *prober) windowKind(ctx context.Context, limit int) error {
	burst := func() (int, error) {
		answers, err := p.burst(ctx, limit)
		ok := 0
		for _, a := range answers {
			if a.status < 300 {
				ok++
			}
		}
		return ok, err
	}
	now := p.o.Now()
	if err := p.o.Sleep(ctx, now.Truncate(time.Second).Add(1600*time.Millisecond).Sub(now)); err != nil {
		return err
	}
	first, err := burst()
	if err != nil {
		return err
	}
	if err := p.o.Sleep(ctx, 600*time.Millisecond); err != nil {
		return err
	}
	second, err := burst()
	if err != nil {
		return err
	}
	seen := fmt.Sprintf("%d calls 0.6 s into a second: %d answered; %d more 0.6 s later, past the next second's start: %d answered", limit, first, limit, second)
	switch {
	case first == limit && second == limit:
		p.find("rate_limit.fixed", true, seen)
	case first == limit && second == 0:
		p.find("rate_limit.fixed", false, seen)
	default:
		p.note("rate_limit.fixed not settled: %s", seen)
	}
	return p.o.Sleep(ctx, 1100*time.Millisecond)
}

// randomWord is n letters and digits: ids and tokens nobody issued.
func randomWord(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// redactURL drops user information from a URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// scrub replaces every secret in s.
func scrub(s string, secrets []string) string {
	for _, v := range secrets {
		if v != "" {
			s = strings.ReplaceAll(s, v, "<token>")
		}
	}
	return s
}
