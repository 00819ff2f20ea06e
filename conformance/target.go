package conformance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wmsmock/wmsmock/internal/wait"
)

// Target is a server the suite runs against: the fake inside this process,
// or any base URL (the real service, or the fake started elsewhere).
//
// Start is called once before the first scenario; what it reports decides
// which scenarios can run at all, so a scenario the target cannot serve is
// skipped with a reason rather than failed. Open is called once per
// scenario and gives the steps everything they need to speak HTTP to it.
type Target interface {
	Start(ctx context.Context) (Info, error)
	Open(ctx context.Context) (*Conn, error)
	Close() error
}

// Info is what a target offers a run.
type Info struct {
	// Name says in the summary what was tested.
	Name string
	// Fake reports that the target is wmsmock: it serves the /_mock/
	// control endpoints and holds the fake's fixture tokens, so scenarios
	// tagged @fake-only can run.
	Fake bool
	// Disposable reports that nothing created on the target outlives the
	// run, so @destructive scenarios are harmless and run without being
	// allowed explicitly.
	Disposable bool
	// SecondToken reports that a second valid token is known (@second-token).
	SecondToken bool
	// Document is the OpenAPI document answers are validated against; nil
	// when there is none, and DocumentSource then says why.
	Document       *Document
	DocumentSource string
}

// Conn is one scenario's connection to a target.
type Conn struct {
	// BaseURL is where API paths are appended, e.g. http://127.0.0.1:8080/api.
	BaseURL string
	// Token is a valid access token; Token2 a second one ("" when none);
	// ExpiredToken one the target knows has expired ("" when none).
	Token, Token2, ExpiredToken string
	// Client sends every call; its Timeout bounds each one.
	Client *http.Client
	// Pace is called before every ordinary call, so that a scenario stays
	// under the rate limit.
	Pace func(context.Context) error
	// Advance makes d pass on the target's clock: by moving a fake clock, or
	// by waiting when that is the only way.
	Advance func(ctx context.Context, d time.Duration) error
	// RunningClock reports that the target's clock runs on its own. A burst
	// then lets a second pass (Advance) for the rate window to empty of the
	// scenario's earlier calls, and sends its calls all at once: against a distant server 21
	// calls in a row take longer than the second they must fall in. Where
	// the clock stands still they go in a row, which fixes which is refused.
	RunningClock bool
	// AdminToken opens the fake's admin endpoints from another host
	// (RemoteOptions.AdminToken); "" on loopback.
	AdminToken string
	// Close releases what Open took.
	Close func() error
}

// DefaultCallTimeout bounds one HTTP call unless told otherwise.
const DefaultCallTimeout = 30 * time.Second

// FakeExpiredToken is the expired token the fake always holds (its README
// lists its fixture tokens): scenarios about expired tokens use it when the
// target is wmsmock.
const FakeExpiredToken = "wmsmock-expired-token"

// DefaultMaxRate is how many ordinary calls per second the suite sends a
// target: half the documented limit of 20, so that paced scenarios never
// meet the limit even with the odd retry or clock skew.
const DefaultMaxRate = 10

// ---------------------------------------------------------------------------
// Any server, by base URL

// RemoteOptions describes a server by its base URL.
type RemoteOptions struct {
	// BaseURL is where API paths are appended, e.g.
	// http://127.0.0.1:8080/api for the fake.
	BaseURL string
	// Token is a valid access token; Token2 optionally a second one.
	Token, Token2 string
	// SpecFile is the OpenAPI document to validate answers against. Empty
	// means the one the target serves at /_mock/openapi.yaml, when it is
	// the fake; the real service needs a file.
	SpecFile string
	// MaxRate is the number of ordinary calls per second (default
	// DefaultMaxRate). Rate-limit scenarios burst on purpose regardless.
	MaxRate float64
	// CallTimeout bounds each call (default DefaultCallTimeout).
	CallTimeout time.Duration
	// AdminToken opens the fake's admin endpoints from another host (the
	// fake started with the same admin token); not needed on loopback.
	AdminToken string
	// RootCAs, when set, are the certificate authorities an HTTPS target
	// is checked against (e.g. the fake's CA, from serve --tls); nil uses
	// the system's.
	RootCAs *x509.CertPool
}

// maxRealWait is the longest "when N seconds pass" a remote target can be
// made to wait for real. Longer spans need the fake's clock control.
const maxRealWait = 5 * time.Second

// Remote returns a target for a server that runs elsewhere. It finds out at
// Start whether the server is the fake (by its /_mock/health endpoint) and
// paces every ordinary call, since the server's rate limit runs on a real
// clock.
func Remote(o RemoteOptions) Target { return &remote{opts: o} }

type remote struct {
	opts    RemoteOptions
	base    *url.URL
	root    string // scheme://host, where /_mock/ lives
	fake    bool
	noAdmin atomic.Bool // the fake's admin endpoints refused a clock move
	client  *http.Client
	pacer   *pacer
	started bool
}

func (t *remote) Start(ctx context.Context) (Info, error) {
	u, err := url.Parse(t.opts.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Info{}, fmt.Errorf("base URL %q: want http(s)://host[:port][/path]", t.opts.BaseURL)
	}
	if t.opts.Token == "" {
		return Info{}, errors.New("a valid access token is needed")
	}
	t.base = u
	t.root = u.Scheme + "://" + u.Host
	t.client = &http.Client{Timeout: orDefault(t.opts.CallTimeout, DefaultCallTimeout)}
	if t.opts.RootCAs != nil {
		t.client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: t.opts.RootCAs}, ForceAttemptHTTP2: true}
	}
	rate := t.opts.MaxRate
	if rate <= 0 {
		rate = DefaultMaxRate
	}
	t.pacer = newPacer(time.Duration(float64(time.Second) / rate))
	// A wrong setup (nothing listening, a base URL without the API's
	// path, a refused token) is one line here rather than every scenario
	// failing for the same reason.
	if err := Preflight(ctx, t.client, t.opts.BaseURL, t.opts.Token); err != nil {
		return Info{}, err
	}
	t.fake = t.probeFake(ctx)
	t.started = true

	info := Info{Name: t.opts.BaseURL, Fake: t.fake, SecondToken: t.opts.Token2 != ""}
	switch {
	case t.opts.SpecFile != "":
		doc, err := LoadDocumentFile(t.opts.SpecFile)
		if err != nil {
			return Info{}, err
		}
		info.Document, info.DocumentSource = doc, t.opts.SpecFile
	case t.fake:
		doc, err := t.fetchDocument(ctx)
		if err != nil {
			return Info{}, fmt.Errorf("the fake's document: %w", err)
		}
		info.Document, info.DocumentSource = doc, t.root+"/_mock/openapi.yaml"
	default:
		info.DocumentSource = "the target serves no /_mock/openapi.yaml; pass --spec FILE with its published schema"
	}
	if t.fake {
		info.Name += " (wmsmock)"
	}
	return info, nil
}

// probeFake reports whether the target answers the fake's health endpoint.
// Any failure means "not the fake": the real service has no such path.
func (t *remote) probeFake(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.root+"/_mock/health", nil)
	if err != nil {
		return false
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var h struct {
		Status string `json:"status"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&h) != nil {
		return false
	}
	return h.Status == "ok"
}

func (t *remote) fetchDocument(ctx context.Context) (*Document, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.root+"/_mock/openapi.yaml", nil)
	if err != nil {
		return nil, err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /_mock/openapi.yaml: status %d", resp.StatusCode)
	}
	return LoadDocument(b)
}

func (t *remote) Open(context.Context) (*Conn, error) {
	if !t.started {
		return nil, errors.New("conformance: Open before Start")
	}
	c := &Conn{
		BaseURL:      strings.TrimSuffix(t.opts.BaseURL, "/"),
		Token:        t.opts.Token,
		Token2:       t.opts.Token2,
		Client:       t.client,
		Pace:         t.pacer.wait,
		Advance:      t.advance,
		RunningClock: true,
		AdminToken:   t.opts.AdminToken,
		Close:        func() error { return nil },
	}
	if t.fake {
		c.ExpiredToken = FakeExpiredToken
	}
	return c, nil
}

// advance lets time pass on a server in another process: on the fake by
// moving its clock, so that a run depends on no machine's timing; on any
// other server (or a fake whose admin endpoints refuse this client, one
// on another host without --admin-token) by waiting, for short spans.
func (t *remote) advance(ctx context.Context, d time.Duration) error {
	if t.fake && !t.noAdmin.Load() {
		err := AdvanceFake(ctx, t.client, t.root, t.opts.AdminToken, d)
		if err == nil || d > maxRealWait || ctx.Err() != nil {
			return err
		}
		t.noAdmin.Store(true)
	}
	if d <= maxRealWait {
		return wait.For(ctx, d)
	}
	if !t.fake {
		return fmt.Errorf("cannot make %s pass on a server that is not the fake (tag the scenario @fake-only)", d)
	}
	return AdvanceFake(ctx, t.client, t.root, t.opts.AdminToken, d)
}

// AdvanceFake moves the clock of the fake at root (scheme://host) by d,
// through its control API. The fake answers admin calls from loopback, or
// from anywhere with its admin token.
func AdvanceFake(ctx context.Context, client *http.Client, root, adminToken string, d time.Duration) error {
	return adminCall(ctx, client, root, adminToken, "/_mock/admin/clock/advance?by="+url.QueryEscape(d.String()), "moving the fake's clock")
}

// ResetFake puts the fake at root back as it started (its seed's records,
// its configured tokens), through its control API.
func ResetFake(ctx context.Context, client *http.Client, root, adminToken string) error {
	return adminCall(ctx, client, root, adminToken, "/_mock/admin/reset", "resetting the fake")
}

// adminCall POSTs to one of the fake's admin endpoints.
func adminCall(ctx context.Context, client *http.Client, root, adminToken, path, doing string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, root+path, nil)
	if err != nil {
		return err
	}
	if adminToken != "" {
		req.Header.Set("Authorization", "Bearer "+adminToken)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		endpoint, _, _ := strings.Cut(path, "?")
		return fmt.Errorf("%s: POST %s answered %d %s", doing, endpoint, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return nil
}

func (t *remote) Close() error {
	if t.client != nil {
		t.client.CloseIdleConnections()
	}
	return nil
}

// pacer spaces calls at least interval apart over the whole run, across
// scenarios, since the server's rate windows do not reset between them.
type pacer struct {
	interval time.Duration
	mu       sync.Mutex
	next     time.Time
}

func newPacer(interval time.Duration) *pacer { return &pacer{interval: interval} }

func (p *pacer) wait(ctx context.Context) error {
	p.mu.Lock()
	now := time.Now()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.interval)
	p.mu.Unlock()
	return wait.For(ctx, time.Until(at))
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
