// Package inprocess is the conformance suite's target for the fake inside
// the test's own process: what go test runs the scenarios against. It lives
// apart from package conformance so that the judge imports nothing of the
// fake it judges.
package inprocess

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Options configures the in-process target.
type Options struct {
	// Document is served as API version 1; nil means the embedded one.
	Document *spec.Document
	// Mock options are added after the target's own (document, fake clock),
	// e.g. mock.WithRateLimit(nil) to build a fake that breaks a rule.
	Mock []mock.Option
	// Wrap, when set, puts middleware in front of the fake's handler; tests
	// use it to build servers that break the contract on purpose.
	Wrap func(http.Handler) http.Handler
	// CallTimeout bounds each call (default conformance.DefaultCallTimeout).
	CallTimeout time.Duration
}

// inProcessEpoch is where each scenario's fake clock starts. Any fixed
// instant would do; a fixed one keeps the fake's answers repeatable.
var inProcessEpoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// New returns a target that runs the fake on a loopback port for the
// whole run and puts it back as it started before every scenario: records
// and tokens reset to the seed, and its clock moved on past every rate
// window. So no scenario sees another's tokens, runs or rate-limit
// counters, while the fake's lazily built validators and caches are paid
// for once per run rather than once per scenario.
//
// The clock is a fake one that only the suite moves: pacing moves it
// directly, "when N seconds pass" through the fake's control API. The run
// never sleeps and repeats exactly.
func New(o Options) conformance.Target { return &inProcess{opts: o} }

type inProcess struct {
	opts      Options
	srv       *mock.Server
	clk       *clock.Fake
	root      string
	basePath  string
	client    *http.Client
	transport *http.Transport
	stop      func() error
}

// scenarioGap is how far the fake's clock moves between scenarios: past the
// longest rate window, so each scenario starts with a full allowance.
const scenarioGap = time.Hour + time.Second

func (t *inProcess) Start(context.Context) (conformance.Info, error) {
	doc := t.opts.Document
	if doc == nil {
		var err error
		if doc, err = spec.Load(fixtures.OpenAPI()); err != nil {
			return conformance.Info{}, fmt.Errorf("loading the embedded document: %w", err)
		}
	}
	t.clk = clock.NewFake(inProcessEpoch)
	opts := append([]mock.Option{mock.WithDocument("", doc), mock.WithClock(t.clk)}, t.opts.Mock...)
	srv, err := mock.New(opts...)
	if err != nil {
		return conformance.Info{}, err
	}
	t.srv = srv
	// Before Start, BaseURL is the base path alone.
	t.basePath = srv.BaseURL()
	if t.opts.Wrap == nil {
		if err := srv.Start(); err != nil {
			return conformance.Info{}, err
		}
		t.root, t.stop = srv.URL(), srv.Close
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			_ = srv.Close()
			return conformance.Info{}, err
		}
		hs := &http.Server{Handler: t.opts.Wrap(srv.Handler()), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = hs.Serve(ln) }()
		t.root = "http://" + ln.Addr().String()
		t.stop = func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return errors.Join(hs.Shutdown(ctx), srv.Close())
		}
	}
	t.transport = &http.Transport{MaxIdleConnsPerHost: 32}
	timeout := t.opts.CallTimeout
	if timeout <= 0 {
		timeout = conformance.DefaultCallTimeout
	}
	t.client = &http.Client{Timeout: timeout, Transport: t.transport}
	// The judge reads the document from the bytes the fake serves, into
	// a model of its own.
	text, err := doc.YAML()
	if err != nil {
		_ = t.stop()
		return conformance.Info{}, err
	}
	judged, err := conformance.LoadDocument(text)
	if err != nil {
		_ = t.stop()
		return conformance.Info{}, fmt.Errorf("the judge cannot read the served document: %w", err)
	}
	return conformance.Info{
		Name:           "in-process fake",
		Fake:           true,
		Disposable:     true,
		SecondToken:    true,
		Document:       judged,
		DocumentSource: "the document the in-process fake serves",
	}, nil
}

func (t *inProcess) Open(ctx context.Context) (*conformance.Conn, error) {
	if t.srv == nil {
		return nil, errors.New("conformance: Open before Start")
	}
	// Through the control API, as any client of the fake resets it.
	if err := conformance.ResetFake(ctx, t.client, t.root, ""); err != nil {
		return nil, err
	}
	t.clk.Advance(scenarioGap)
	interval := time.Second / conformance.DefaultMaxRate
	return &conformance.Conn{
		BaseURL:      t.root + t.basePath,
		Token:        auth.DevToken,
		Token2:       auth.SecondToken,
		ExpiredToken: auth.ExpiredToken,
		Client:       t.client,
		// Pacing moves the fake clock as a paced client would see it move
		// against a real server: ordinary calls are a tenth of a second apart.
		Pace: func(context.Context) error {
			t.clk.Advance(interval)
			return nil
		},
		// Scenarios move time the way any client of the fake can: through
		// its control API, which the fake opens to loopback callers.
		Advance: func(ctx context.Context, d time.Duration) error {
			return conformance.AdvanceFake(ctx, t.client, t.root, "", d)
		},
		Close: func() error { return nil },
	}, nil
}

// Close stops the fake. The client lets go of its connections first: a
// server waits up to five seconds on a connection that never carried a
// request, and a burst can leave one behind.
func (t *inProcess) Close() error {
	if t.stop == nil {
		return nil
	}
	t.transport.CloseIdleConnections()
	return t.stop()
}
