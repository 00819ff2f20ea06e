package mock

import (
	"context"
	"errors"
	"time"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Start listens on the configured address (a free loopback port unless
// WithAddr says otherwise) and serves in the background.
func (s *Server) Start() error {
	s.startup.Reset()
	if err := s.listening.listen(s.warming.serving(s.Handler())); err != nil { // warm.go
		return err
	}
	s.startup.Lap("listen")
	s.reportStartup()
	if s.warmUp {
		s.warming.start(s.versions.distinct()) // warm.go
	}
	return nil
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

// reportStartup hands the steps to WithStartupReport's function.
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
func (s *Server) URL() string { return s.listening.baseURL() }

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
	s.faultRules.end() // stalled answers are not calls Shutdown waits for (faults.go)
	s.warming.stop()   // warm.go
	s.ready.Store(false)
	err := s.listening.shutdown(ctx)
	return errors.Join(err, s.backend.Close()) // the last save, once calls in flight are done
}

// Versions lists the served API versions.
func (s *Server) Versions() []string { return append([]string(nil), s.versions.names...) }

// Document returns the document served as version.
func (s *Server) Document(version string) (*spec.Document, bool) {
	a, ok := s.versions.get(version)
	if !ok {
		return nil, false
	}
	return a.doc, true
}
