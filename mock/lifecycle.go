package mock

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/internal/oasdoc"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// Start listens on the configured address (a free loopback port unless
// WithAddr says otherwise) and serves in the background.
func (s *Server) Start() error {
	if err := s.listen(); err != nil {
		return err
	}
	s.reportStartup()
	s.startWarmUp() // warm.go
	return nil
}

func (s *Server) listen() error {
	l := &s.listening
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.httpSrv != nil {
		return errors.New("mock: server already started")
	}
	s.startup.Reset()
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		return err
	}
	defer s.startup.Lap("listen")
	l.url = "http://" + ln.Addr().String()
	l.httpSrv = &http.Server{
		Handler:           s.warming.serving(s.Handler()), // warm.go
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		// "OPTIONS *" is a call like any other: it needs a token (A1)
		// and names no operation, where Go's server would answer it 200
		// by itself.
		DisableGeneralOptionsHandler: true,
	}
	srv := l.httpSrv
	if l.tls != nil { // tls.go
		l.url = "https://" + ln.Addr().String()
		srv.TLSConfig = l.tls.config.Clone()
		// ServeTLS offers HTTP/2 next to HTTP/1.1 on the config it is given.
		go func() { _ = srv.ServeTLS(ln, "", "") }()
		return nil
	}
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// listening is the HTTP server Start runs and where it listens.
type listening struct {
	mu      sync.Mutex
	addr    string // where Start listens (WithAddr)
	httpSrv *http.Server
	url     string
	tls     *serverTLS // nil: plain HTTP (tls.go)
}

// StartupPhase is one step of a server's start-up and the time it took.
type StartupPhase struct {
	Name     string
	Duration time.Duration
}

// WithStartupReport has Start hand report where New and Start spent their
// time, step by step, in order: reading, parsing and modelling each
// document, indexing its operations, building its validator, the
// remaining set-up, seeding the state, and listening. A step done once per
// document adds up. `wmsmock serve` logs it, and bench/startup reads it
// from there.
func WithStartupReport(report func([]StartupPhase)) Option {
	return func(s *settings) error {
		s.startupReport = report
		return nil
	}
}

// reportStartup ends the listen step and hands the steps to
// WithStartupReport's function.
func (s *Server) reportStartup() {
	if s.startupReport == nil {
		return
	}
	laps := s.startup.Laps()
	out := make([]StartupPhase, len(laps))
	for i, l := range laps {
		out[i] = StartupPhase{Name: l.Name, Duration: l.Duration}
	}
	s.startupReport(out)
}

// URL is the server's base URL, e.g. http://127.0.0.1:41234 (without the
// API base path). It is empty before Start.
func (s *Server) URL() string {
	s.listening.mu.Lock()
	defer s.listening.mu.Unlock()
	return s.listening.url
}

// BaseURL is URL plus the API base path: where API paths are appended.
func (s *Server) BaseURL() string { return s.URL() + s.basePath }

// Close stops the server, letting calls in flight finish for a few seconds.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.Shutdown(ctx)
}

// Shutdown stops the server gracefully within ctx: it stops accepting
// calls and waits for those in flight, but never past ctx. When ctx ends
// first, the connections still open are closed, so shutdown takes no longer
// than its bound whatever a call is doing.
func (s *Server) Shutdown(ctx context.Context) error {
	// What the calls built lazily may have put in libopenapi's global
	// memo would keep this server's document alive after it is gone.
	defer oasdoc.ReleaseCaches()
	s.stopFaults() // stalled answers are not calls Shutdown waits for (faults.go)
	s.stopWarmUp() // warm.go
	s.listening.mu.Lock()
	srv := s.listening.httpSrv
	s.listening.mu.Unlock()
	if srv == nil {
		return s.backend.Close()
	}
	s.ready.Store(false)
	err := srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, srv.Close())
	}
	return errors.Join(err, s.backend.Close()) // the last save, once calls in flight are done
}

// Versions lists the served API versions.
func (s *Server) Versions() []string { return append([]string(nil), s.versionList...) }

// Document returns the document served as version.
func (s *Server) Document(version string) (*spec.Document, bool) {
	a, ok := s.versions[version]
	if !ok {
		return nil, false
	}
	return a.doc, true
}
