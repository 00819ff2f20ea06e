// Package proxy sits between a client and the real service: it forwards
// every call unchanged, checks the call and its answer against the OpenAPI
// document, counts what the document rejects per operation (drift), and
// records the session, secrets redacted, for `wmsmock serve --replay`.
//
// It lives with the contract-regression tools (conformance/fidelity,
// conformance/calibrate) but, unlike the judge in package conformance, it uses
// the fake's own validator (mock/validate): the judge's model compiles every
// schema of the document up front (seconds on the published schema), checks
// answers only and does so under one lock, where a proxy must start at once,
// check both directions and add little to each call. Sharing the validator
// also means drift here is exactly what the fake, and a replay of the
// recording, would reject.
//
// What passes through is never changed: the bodies are copied as they
// stream (up to a capture limit), and the checks and the recording happen
// on one worker after the answer has gone back, so the client waits only for
// the forwarding. Memory is bounded by the capture limit (two bodies a call)
// times the calls in flight and queued for the worker (at most 16 waiting:
// 128 MiB at the default limit, in practice the size of a few answers),
// never by the length of the session.
package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/internal/recording"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
)

// ReportPath serves the report of the session so far, as JSON.
const ReportPath = "/_mock/proxy/report"

// Defaults for Options left zero.
const (
	DefaultTimeout = 60 * time.Second
	DefaultMaxBody = 4 << 20
	// queueLength bounds the finished calls waiting to be checked; past it
	// a call waits for room, so memory stays bounded under any load.
	queueLength = 16
)

// Options configure a Proxy.
type Options struct {
	// Target is the service's base URL; a call to the proxy at /p is sent
	// to Target's path followed by /p.
	Target *url.URL
	// Document is what calls and answers are checked against (required).
	Document *spec.Document
	// BasePath is a prefix of the client's paths that is not part of the
	// document's paths ("" when the client calls the document's paths).
	BasePath string
	// Record is the file the session is recorded to; "" records nothing.
	Record string
	// Timeout bounds one call, from the first byte sent to the last byte of
	// the answer (DefaultTimeout when zero).
	Timeout time.Duration
	// MaxBody bounds the bytes of each body kept for checking and recording
	// (DefaultMaxBody when zero); longer bodies pass whole but are neither
	// checked nor recorded.
	MaxBody int64
	// Logger gets one line per violation; nil discards.
	Logger *slog.Logger
	// Transport sends the calls; nil builds one from Timeout.
	Transport http.RoundTripper
	// StrictSchema counts the service's nulls in answers (null where the
	// schema has a non-nullable property) as drift. By default they are
	// the service's habit (CONTRACT.md), which the fake sends too and a
	// replay accepts, and only the rest of what the document rejects is.
	StrictSchema bool
}

// Proxy is an http.Handler forwarding to the target.
type Proxy struct {
	o         Options
	rp        *httputil.ReverseProxy
	validator *validate.Validator
	rec       *recording.Writer
	ids       *apierror.IDSource
	report    *tally
	queue     chan *exchange
	done      chan struct{}
	// mu guards closed against sends on the closed queue: a call that ends
	// after Close is forwarded but neither checked nor recorded.
	mu        sync.RWMutex
	closed    bool
	closeOnce sync.Once
	closeErr  error
}

// New builds a proxy; with Options.Record set it creates the recording.
func New(o Options) (*Proxy, error) {
	if o.Target == nil || o.Target.Host == "" || (o.Target.Scheme != "http" && o.Target.Scheme != "https") {
		return nil, errors.New("proxy: the target must be an http(s) URL")
	}
	if o.Document == nil {
		return nil, errors.New("proxy: no document to check calls against")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.BasePath = strings.TrimSuffix(o.BasePath, "/")
	if o.Transport == nil {
		o.Transport = newTransport(o.Timeout)
	}
	vopts := []validate.Option{validate.WithRegexpEngine(synth.RegexpEngine)}
	if !o.StrictSchema {
		vopts = append(vopts, validate.WithNulls(), validate.WithAnyObjects())
	}
	p := &Proxy{
		o:         o,
		validator: validate.New(o.Document, o.BasePath, vopts...),
		ids:       apierror.NewIDSource(nil),
		report:    newTally(o.Target.Redacted()),
		queue:     make(chan *exchange, queueLength),
		done:      make(chan struct{}),
	}
	if o.Record != "" {
		w, err := recording.Create(o.Record, recording.Header{
			Target: o.Target.Redacted(), BasePath: o.BasePath, Started: time.Now().UTC(),
		}, recording.NewRedactor(SecretNames(o.Document)...))
		if err != nil {
			return nil, fmt.Errorf("proxy: recording: %w", err)
		}
		p.rec = w
	}
	target := *o.Target
	p.rp = &httputil.ReverseProxy{
		// Rewrite, unlike Director, adds no X-Forwarded-* headers: the
		// target sees the client's call as the client sent it, but for the
		// host it is addressed to.
		Rewrite:        func(pr *httputil.ProxyRequest) { pr.SetURL(&target) },
		Transport:      o.Transport,
		ModifyResponse: p.capture,
		ErrorHandler:   p.fail,
		ErrorLog:       slog.NewLogLogger(o.Logger.Handler(), slog.LevelDebug),
	}
	go p.work()
	return p, nil
}

// newTransport bounds every stage of a call the target could stall in.
func newTransport(timeout time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: min(timeout, 10*time.Second), KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = min(timeout, 10*time.Second)
	t.ResponseHeaderTimeout = timeout
	// The client's Accept-Encoding goes through as it is, and so does the
	// answer: the transport must not ask for gzip itself and unpack it.
	t.DisableCompression = true
	return t
}

// exchange is one call on its way through: what was captured of it, for
// the worker.
type exchange struct {
	started  time.Time
	took     time.Duration
	method   string
	path     string // escaped, as the client sent it
	query    string
	reqHdr   http.Header
	reqBody  *capture
	status   int
	respHdr  http.Header
	respBody *capture
	err      string // set when the target gave no answer
}

type exchangeKey struct{}

// HealthPath answers {"status":"ok"} while the proxy runs, as the fake's
// does, so `wmsmock ping` and container health checks work on it too. The
// service has no such path, so nothing a client sends there is lost.
const HealthPath = "/_mock/health"

// ServeHTTP forwards one call, or serves the report or the health check.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case ReportPath:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(p.Report())
		return
	case HealthPath:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`+"\n")
		return
	}
	ex := &exchange{started: time.Now(), method: r.Method, path: r.URL.EscapedPath(), query: r.URL.RawQuery,
		reqHdr: r.Header.Clone()}
	if r.Body != nil && r.Body != http.NoBody {
		ex.reqBody = newCapture(r.Body, p.o.MaxBody)
		r.Body = ex.reqBody
	}
	ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), exchangeKey{}, ex), p.o.Timeout)
	defer cancel()
	// An answer that breaks off after its headers have gone (the target
	// stalls or drops the connection mid-body) can only be cut off: the
	// reverse proxy aborts the handler with a panic the server expects.
	// The call is still checked and recorded, as broken.
	defer func() {
		ex.took = time.Since(ex.started)
		v := recover()
		if v != nil {
			ex.err = fmt.Sprintf("the answer broke off after %d bytes of its body", ex.respBody.size())
			if ctx.Err() != nil {
				ex.err += " (no more within " + p.o.Timeout.String() + ")"
			}
		}
		p.enqueue(ex)
		if v != nil {
			panic(v)
		}
	}()
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

// capture keeps the answer's status and headers and copies its body as it
// streams to the client.
func (p *Proxy) capture(resp *http.Response) error {
	ex, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return nil
	}
	ex.status, ex.respHdr = resp.StatusCode, resp.Header.Clone()
	if resp.Body != nil && resp.Body != http.NoBody {
		ex.respBody = newCapture(resp.Body, p.o.MaxBody)
		resp.Body = ex.respBody
	}
	return nil
}

// fail answers a call the target did not answer: 504 when it was too
// slow, 502 otherwise, in the service's error shape with an Error ID, so a
// client handles it as it handles the service's own errors.
func (p *Proxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, why := http.StatusBadGateway, "the target did not answer"
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		status, why = http.StatusGatewayTimeout, "the target did not answer within "+p.o.Timeout.String()
	} else if errors.Is(err, context.Canceled) {
		status, why = apierror.StatusClientClosed, "the client went away" // not seen by the client
	}
	msg := fmt.Sprintf("wmsmock proxy: %s %s: %s (%v) - Error ID: %s", r.Method, r.URL.Path, why, err, p.ids.New())
	if ex, _ := r.Context().Value(exchangeKey{}).(*exchange); ex != nil {
		ex.status, ex.err, ex.respHdr, ex.respBody = status, msg, nil, nil
	}
	body, _ := json.Marshal(map[string]string{"message": msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
	p.o.Logger.Warn("no answer from the target", "method", r.Method, "path", r.URL.Path, "status", status, "error", err)
}

// enqueue hands a finished call to the worker, waiting while its queue is
// full.
func (p *Proxy) enqueue(ex *exchange) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if !p.closed {
		p.queue <- ex
	}
}

// work checks and records finished calls, one at a time, in the order
// they ended.
func (p *Proxy) work() {
	defer close(p.done)
	for ex := range p.queue {
		p.finish(ex)
	}
}

// finish checks one call against the document, tallies it and records it.
func (p *Proxy) finish(ex *exchange) {
	// Unpacking the answer changes its headers, so it comes before they
	// are recorded.
	respBody, mediaType := p.answerBody(ex)
	in := &recording.Interaction{
		Started:  ex.started.UTC(),
		TimeMS:   float64(ex.took.Microseconds()) / 1000,
		Request:  recording.Request{Method: ex.method, Path: ex.path, Query: ex.query, Headers: recording.Fields(ex.reqHdr)},
		Response: recording.Response{Status: ex.status, Headers: recording.Fields(ex.respHdr), Error: ex.err},
	}
	if ex.reqBody != nil {
		in.Request.Body = recording.NewBody(ex.reqHdr.Get("Content-Type"), ex.reqBody.kept(), ex.reqBody.total)
	}
	if respBody != nil {
		in.Response.Body = recording.NewBody(mediaType, respBody.bytes, respBody.total)
	}
	op, violations := p.check(ex, respBody)
	if op != nil {
		in.Operation = op.ID
	}
	for _, v := range violations {
		in.Violations = append(in.Violations, strings.TrimSpace(v.Direction+" "+v.Where)+": "+v.Message)
		p.o.Logger.Warn("drift", "operation", v.Operation, "direction", v.Direction, "where", v.Where,
			"method", ex.method, "path", ex.path, "status", ex.status, "problem", v.Message)
	}
	p.report.add(in.Operation, ex.status, ex.err != "", violations)
	if p.rec != nil {
		if err := p.rec.Write(in); err != nil {
			p.o.Logger.Error("recording failed; the rest of the session is not recorded", "error", err)
		}
	}
}

// body is what was kept of a body: its bytes (all of them unless over the
// limit) and its length.
type body struct {
	bytes []byte
	total int64
}

func (b *body) whole() bool { return b != nil && int64(len(b.bytes)) == b.total }

// answerBody is the answer's body as a client reads it: a gzip body kept
// whole is unpacked (within the limit), so it is checked and recorded as
// JSON; the recording's headers then no longer say gzip.
func (p *Proxy) answerBody(ex *exchange) (*body, string) {
	if ex.respBody == nil {
		return nil, ""
	}
	b := &body{bytes: ex.respBody.kept(), total: ex.respBody.total}
	mediaType := ex.respHdr.Get("Content-Type")
	if strings.EqualFold(ex.respHdr.Get("Content-Encoding"), "gzip") && b.whole() {
		if zr, err := gzip.NewReader(bytes.NewReader(b.bytes)); err == nil {
			plain, err := io.ReadAll(io.LimitReader(zr, p.o.MaxBody+1))
			if err == nil {
				b = &body{bytes: plain, total: int64(len(plain))}
				if b.total > p.o.MaxBody {
					// Cut to the limit; total stays one past it, a lower
					// bound, so the body counts as truncated.
					b.bytes = b.bytes[:p.o.MaxBody]
				}
				ex.respHdr.Del("Content-Encoding")
				ex.respHdr.Del("Content-Length")
			}
		}
	}
	return b, mediaType
}

// check validates the call and its answer; the operation is nil when the
// call matches none of the document's.
func (p *Proxy) check(ex *exchange, resp *body) (*spec.Operation, []Violation) {
	path := strings.TrimPrefix(ex.path, p.o.BasePath)
	op, _, ok := p.o.Document.Route(ex.method, path)
	if !ok {
		return nil, []Violation{{Operation: ex.method + " " + ex.path, Direction: Request,
			Message: "the document has no operation " + ex.method + " " + path}}
	}
	u := &url.URL{Path: unescape(ex.path), RawPath: ex.path, RawQuery: ex.query}
	r := &http.Request{Method: ex.method, URL: u, Header: ex.reqHdr, Body: http.NoBody}
	var out []Violation
	var reqBody []byte
	switch {
	case ex.reqBody == nil:
	case ex.reqBody.whole():
		reqBody = ex.reqBody.kept()
	default:
		out = append(out, Violation{Operation: op.ID, Direction: Request, Unchecked: true,
			Message: fmt.Sprintf("not checked: the body is over the limit of %d bytes", p.o.MaxBody)})
	}
	if len(out) == 0 {
		for _, m := range p.validator.Request(r, op, reqBody) {
			out = append(out, newViolations(op.ID, Request, m)...)
		}
	}
	if ex.err != "" {
		return op, out
	}
	if resp != nil && !resp.whole() {
		return op, append(out, Violation{Operation: op.ID, Direction: Response, Unchecked: true,
			Message: fmt.Sprintf("not checked: the body is over the limit of %d bytes", p.o.MaxBody)})
	}
	hr := &http.Response{StatusCode: ex.status, Header: ex.respHdr, Body: http.NoBody, Request: r}
	if resp != nil {
		hr.Body = io.NopCloser(bytes.NewReader(resp.bytes))
	}
	for _, m := range p.validator.Response(r, op, hr) {
		out = append(out, newViolations(op.ID, Response, m)...)
	}
	return op, out
}

func unescape(p string) string {
	if u, err := url.PathUnescape(p); err == nil {
		return u
	}
	return p
}

// Close waits for the calls already answered to be checked and recorded,
// then closes the recording. Calls served afterwards are only forwarded.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		close(p.queue)
		p.mu.Unlock()
		<-p.done
		if p.rec != nil {
			p.closeErr = p.rec.Close()
		}
	})
	return p.closeErr
}

// Recorded is the number of calls written to the recording so far.
func (p *Proxy) Recorded() int {
	if p.rec == nil {
		return 0
	}
	return p.rec.Count()
}

// capture is a body that keeps a copy of its first max bytes as it is read.
type capture struct {
	rc    io.ReadCloser
	max   int64
	mu    sync.Mutex
	buf   bytes.Buffer
	total int64
}

func newCapture(rc io.ReadCloser, max int64) *capture { return &capture{rc: rc, max: max} }

func (c *capture) Read(b []byte) (int, error) {
	n, err := c.rc.Read(b)
	if n > 0 {
		c.mu.Lock()
		if room := c.max - int64(c.buf.Len()); room > 0 {
			c.buf.Write(b[:min(int64(n), room)])
		}
		c.total += int64(n)
		c.mu.Unlock()
	}
	return n, err
}

func (c *capture) Close() error { return c.rc.Close() }

func (c *capture) kept() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Bytes()
}

func (c *capture) size() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

func (c *capture) whole() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(c.buf.Len()) == c.total
}
