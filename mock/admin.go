package mock

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/control/docs"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/mock/runs"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// admin is the server as the control API sees it: the fake's own endpoints
// under /_mock/ read and change the server through this adapter, so none
// of what they need is on Server's public surface.
type admin struct {
	s     *Server
	token string
}

var (
	_ control.Backend      = admin{}
	_ control.AdminBackend = admin{}
	_ control.RulesBackend = admin{}
	_ docs.Source          = admin{}
)

func (a admin) DevToken() string { return DevToken }

// Reference is the reference page's copy of a document (reference.go).
func (a admin) Reference(version string) ([]byte, error) {
	api, ok := a.s.versions.get(version)
	if !ok {
		return nil, errors.New("API version " + version + " is not served")
	}
	return a.s.references.of(api)
}

func (a admin) Ready() bool        { return a.s.ready.Load() }
func (a admin) Versions() []string { return a.s.Versions() }
func (a admin) BasePath() string   { return a.s.basePath }

// Unhealthy reports why the fake cannot serve its state: a shared store
// (Redis) that does not answer. Nil when healthy or when the store lives
// in this process.
func (a admin) Unhealthy() error { return a.s.backend.Health() }

func (a admin) DefaultVersion() string { return a.s.profile.Versions.Default }

func (a admin) Document(version string) (*spec.Document, bool) { return a.s.Document(version) }

func (a admin) ErrorEntry(id string) (apierror.Entry, bool) { return a.s.errors.Journal().Get(id) }

func (a admin) AdminToken() string { return a.token }

func (a admin) Now() time.Time { return a.s.clock.Now() }

// ResetState puts the fake back as it started: records, tokens and rate
// counters. In Redis (InRedis) they are the shared ones, so the reset is seen
// by every replica.
func (a admin) ResetState() error { return a.s.backend.Reset() }

func (a admin) SaveState() error { return a.s.backend.Save() }

// StateFile is where SaveState writes ("" without --state-file).
func (a admin) StateFile() string { return a.s.backend.StateFile() }

// AdvanceClock moves the fake's time; in Redis (InRedis) the shared clock, so
// every replica sees the move on its next call.
func (a admin) AdvanceClock(d time.Duration) (time.Time, error) { return a.s.clock.Move(d) }

func (a admin) SetWorkflowStatus(id, status, endStatus string) (string, error) {
	records := a.s.backend.Records()
	if records == nil {
		return "", control.ErrNotFound
	}
	now := a.s.clock.Now().UTC()
	err := runs.SetWorkflowStatus(records, id, status, endStatus, now)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", control.ErrNotFound
	case errors.Is(err, workflow.ErrInvalidStatus):
		return "", fmt.Errorf("%w: %v", control.ErrInvalid, err)
	case err != nil:
		return "", err
	}
	return runs.WorkflowStatus(records, id, now)
}

func (a admin) TokenInfos() ([]control.TokenInfo, error) {
	out := []control.TokenInfo{}
	tokens, err := a.s.backend.Tokens().List()
	if err != nil {
		return nil, err
	}
	for _, t := range tokens {
		out = append(out, control.TokenInfo{ID: t.ID, Name: t.Name, Created: t.Created, Expires: t.Expires,
			LastUsed: t.LastUsed, Revoked: t.Revoked, Configured: t.Pinned})
	}
	return out, nil
}

func (a admin) RecentRequests(n int) []control.RequestEntry { return a.s.requests.Recent(n) }

func (a admin) RateCounters() ([]ratelimit.Counter, error) { return a.s.backend.Limiter().Counters() }

func (a admin) CacheStats() []memo.Stat { return a.s.caches.Stats() }

// AddFault takes a fault from the admin API (faults.go).
func (a admin) AddFault(f faults.Fault) (faults.Entry, error) {
	return a.s.addFault(f, faults.SourceAdmin)
}

// AddOverride takes an override from the admin API (faults.go).
func (a admin) AddOverride(o faults.Override) (faults.Entry, error) {
	return a.s.addOverride(o, faults.SourceAdmin)
}

func (a admin) Rules(k faults.Kind) ([]faults.Entry, error) {
	return faults.List(a.s.backend.Faults(), k)
}

// RemoveRule removes a rule of kind k only: a fault's endpoint does not
// remove an override.
func (a admin) RemoveRule(k faults.Kind, id string) (bool, error) {
	e, ok, err := faults.Lookup(a.s.backend.Faults(), id)
	if err != nil || !ok || e.Kind != k {
		return false, err
	}
	return a.s.backend.Faults().Remove(id)
}

func (a admin) RemoveRules(k faults.Kind) (int, error) { return a.s.backend.Faults().RemoveKind(k) }

func (a admin) RefuseRule(w http.ResponseWriter, r *http.Request, err error) {
	a.s.refuseRule(w, r, err)
}

// NewSession implements control.SessionBackend: a session signed in as
// the dev token, as the extensions' sign-in makes one (extensions.go).
func (a admin) NewSession() (access, refresh string, expires time.Time, err error) {
	s := a.s
	switch {
	case s.strictAny():
		return "", "", time.Time{}, errors.New("strict mode refuses the session refresh (a call beyond the published schema), so a session could never be renewed")
	case !s.profile.Extensions.RefreshToken:
		return "", "", time.Time{}, errors.New("extensions.refresh_token is off in the profile, so a session could never be renewed")
	}
	dev, ok, err := s.backend.Tokens().Lookup(DevToken)
	if err != nil || !ok {
		return "", "", time.Time{}, fmt.Errorf("the dev token is not held (%v)", err)
	}
	now := s.clock.Now()
	ses := s.ext.server.NewSession(dev.ID, now)
	return ses.Access, ses.Refresh, now.Add(ses.ExpiresIn), nil
}
