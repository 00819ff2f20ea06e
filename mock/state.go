package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/store"
)

// This file wires the fake's state into the server: the record store and
// the handlers that use it (package resources), the seed, the state file,
// and the server's side of the control API's admin endpoints.

// serverState is everything the server keeps about its state.
type serverState struct {
	store    store.Store
	seedWith *resources.Service // the default version's service seeds the store
	seed     *resources.Seed

	file       string
	adminToken string
	offset     *clock.Offset
	requests   *control.RequestJournal

	mu sync.Mutex
	// configured are the tokens the fake was started with (built-in, profile
	// and --token ones), as first created: a reset goes back to them.
	configured []auth.Token
	// keep are the ids of the configured tokens now in the token store;
	// DELETE /tokens/delete-all leaves them.
	keep []int64
	// advanced is how far the control API has moved the clock, saved so a
	// restart resumes at the same fake time.
	advanced time.Duration

	saveMu    sync.Mutex
	stop      context.CancelFunc
	stopped   chan struct{}
	closeOnce sync.Once
}

// tokenPorter is the part of a token store that can be saved and restored
// (auth.Memory has it).
type tokenPorter interface {
	Export() []auth.Token
	Import([]auth.Token) error
}

// State file parts.
const (
	partRecords = "records"
	partTokens  = "tokens"
	partClock   = "clock"
)

type clockPart struct {
	Advanced time.Duration `json:"advanced"`
}

// setupState is called by New once tokens and limiter exist.
func (s *Server) setupState(cfg settings) error {
	st := &serverState{
		file:       cfg.state.file,
		adminToken: cfg.state.adminToken,
		requests:   control.NewRequestJournal(1000),
	}
	st.offset, _ = s.clock.(*clock.Offset)
	s.state = st
	if p, ok := s.tokens.(tokenPorter); ok {
		st.configured = p.Export()
	}
	st.keep = tokenIDs(st.configured)
	if cfg.state.disabled {
		if st.file != "" {
			return errors.New("a state file needs state: WithStateFile and WithoutState do not go together")
		}
		return nil
	}
	st.store = cfg.state.store
	if st.store == nil {
		st.store = store.NewMemory()
	}
	if !cfg.state.noSeed {
		var fsys fs.FS = fixtures.Seed()
		if cfg.state.fixturesDir != "" {
			info, err := os.Stat(cfg.state.fixturesDir)
			if err != nil {
				return fmt.Errorf("fixtures: %w", err)
			}
			if !info.IsDir() {
				return fmt.Errorf("fixtures: %s is not a directory", cfg.state.fixturesDir)
			}
			fsys = os.DirFS(cfg.state.fixturesDir)
		}
		seed, err := resources.LoadSeed(fsys)
		if err != nil {
			return fmt.Errorf("fixtures: %w", err)
		}
		st.seed = seed
	}
	// One service per distinct document; versions served by the default
	// document share its api, and every version shares the store.
	done := map[*api]bool{}
	for _, v := range s.versionList {
		a := s.versions[v]
		if done[a] {
			continue
		}
		done[a] = true
		svc, err := resources.Register(a.doc, resources.Deps{
			Store:      st.store,
			Tokens:     s.tokens,
			KeepTokens: st.keptTokens,
			Clock:      s.clock,
			Profile:    s.profile,
			Gen:        a.synth.gen,
			Check:      a.validator.Answer,
			Fallback:   a.synth.answer,
			Logger:     s.logger,
		})
		if err != nil {
			return err
		}
		s.logger.Debug("stateful collections", "version", v, "collections", strings.Join(svc.Collections(), " "))
		for op, h := range svc.Handlers() {
			if _, taken := a.handlers[op]; !taken { // WithHandler wins
				a.handlers[op] = h
			}
		}
		if a == s.versions[s.profile.Versions.Default] {
			st.seedWith = svc
		}
	}
	if err := s.loadState(); err != nil {
		return err
	}
	if st.file != "" && cfg.state.interval > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		st.stop, st.stopped = cancel, make(chan struct{})
		ticker := time.NewTicker(cfg.state.interval)
		go func() {
			defer close(st.stopped)
			defer ticker.Stop()
			store.Autosave(ctx, ticker.C, s.SaveState, func(err error) {
				s.logger.Error("saving state", "file", st.file, "error", err)
			})
		}()
	}
	return nil
}

// loadState restores the state file, or seeds a fresh store when there is
// none yet. A file that exists but cannot be restored stops the start: the
// fake must not run on (and later save over) a state it could not read.
func (s *Server) loadState() error {
	st := s.state
	if st.file == "" {
		return st.seedWith.Seed(st.seed)
	}
	f, err := store.ReadFile(st.file)
	if errors.Is(err, store.ErrNoFile) {
		return st.seedWith.Seed(st.seed)
	}
	if err == nil {
		err = s.restore(f)
	}
	if err != nil {
		return fmt.Errorf("%w (the fake will not start on a state it cannot read; repair the file or move it away)", err)
	}
	s.logger.Info("state restored", "file", st.file, "saved_at", f.SavedAt)
	return nil
}

func (s *Server) restore(f store.File) error {
	st := s.state
	var snap store.Snapshot
	if err := decodePart(f, partRecords, &snap); err != nil {
		return err
	}
	var saved []auth.Token
	if err := decodePart(f, partTokens, &saved); err != nil {
		return err
	}
	var ck clockPart
	if _, ok := f.Parts[partClock]; ok {
		if err := decodePart(f, partClock, &ck); err != nil {
			return err
		}
	}
	if err := st.store.Restore(snap); err != nil {
		return fmt.Errorf("state file %s: %w", st.file, err)
	}
	if p, ok := s.tokens.(tokenPorter); ok {
		merged, keep := mergeTokens(saved, st.configured)
		if err := p.Import(merged); err != nil {
			return fmt.Errorf("state file %s: %w", st.file, err)
		}
		st.mu.Lock()
		st.keep = keep
		st.mu.Unlock()
	}
	if ck.Advanced > 0 && st.offset != nil {
		st.offset.Advance(ck.Advanced)
		st.mu.Lock()
		st.advanced = ck.Advanced
		st.mu.Unlock()
	}
	return nil
}

func decodePart(f store.File, name string, v any) error {
	raw, ok := f.Parts[name]
	if !ok {
		return fmt.Errorf("the state file has no %q part", name)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the state file's %q part is damaged: %w", name, err)
	}
	return nil
}

// mergeTokens lays the configured tokens over the saved ones: tokens the
// user created come back as they were, and the tokens this start was
// configured with are present whatever the saved file says (configuration
// wins over a stale save, e.g. after --token changed).
func mergeTokens(saved, configured []auth.Token) (merged []auth.Token, keep []int64) {
	merged = slices.Clone(saved)
	var maxID int64
	for _, t := range merged {
		maxID = max(maxID, t.ID)
	}
	for _, c := range configured {
		i := slices.IndexFunc(merged, func(t auth.Token) bool { return t.Hash == c.Hash })
		if i < 0 {
			i = slices.IndexFunc(merged, func(t auth.Token) bool { return t.Name == c.Name })
		}
		if i >= 0 {
			// Drop any other saved token holding the name or value, so the
			// configured one fits.
			keepID := merged[i].ID
			merged = slices.DeleteFunc(merged, func(t auth.Token) bool {
				return t.ID != keepID && (t.Name == c.Name || t.Hash == c.Hash)
			})
			i = slices.IndexFunc(merged, func(t auth.Token) bool { return t.ID == keepID })
			merged[i].Name, merged[i].Hash, merged[i].Expires, merged[i].Revoked = c.Name, c.Hash, c.Expires, false
			keep = append(keep, keepID)
			continue
		}
		maxID++
		c.ID = maxID
		merged = slices.DeleteFunc(merged, func(t auth.Token) bool { return t.Name == c.Name || t.Hash == c.Hash })
		merged = append(merged, c)
		keep = append(keep, c.ID)
	}
	return merged, keep
}

func tokenIDs(ts []auth.Token) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func (st *serverState) keptTokens() []int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Clone(st.keep)
}

// SaveState writes the state file now. Without a state file it does
// nothing. The file never holds a token's value: only its hash.
func (s *Server) SaveState() error {
	st := s.state
	if st == nil || st.file == "" || st.store == nil {
		return nil
	}
	st.saveMu.Lock()
	defer st.saveMu.Unlock()
	snap, err := st.store.Snapshot()
	if err != nil {
		return err
	}
	parts := map[string]any{partRecords: snap}
	if p, ok := s.tokens.(tokenPorter); ok {
		parts[partTokens] = p.Export()
	}
	st.mu.Lock()
	parts[partClock] = clockPart{Advanced: st.advanced}
	st.mu.Unlock()
	f := store.File{SavedAt: s.clock.Now().UTC(), Parts: map[string]json.RawMessage{}}
	for name, v := range parts {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding state part %s: %w", name, err)
		}
		f.Parts[name] = b
	}
	return store.WriteFile(st.file, f)
}

// closeState stops the periodic save and saves one last time; Shutdown
// calls it once the last call in flight has been answered.
func (s *Server) closeState() error {
	st := s.state
	if st == nil {
		return nil
	}
	st.closeOnce.Do(func() {
		if st.stop != nil {
			st.stop()
			<-st.stopped
		}
	})
	return s.SaveState()
}

// recordRequest adds a finished call to the request journal. Control calls
// are left out, so reading the journal does not fill it.
func (s *Server) recordRequest(r *http.Request, rec *recorder, took time.Duration) {
	if s.state == nil || strings.HasPrefix(r.URL.EscapedPath(), control.Prefix) {
		return
	}
	s.state.requests.Add(control.RequestEntry{
		Time: s.clock.Now().UTC(), Method: r.Method, Path: r.URL.Path, Status: rec.statusCode(),
		ErrorID: rec.errorID, LatencyMS: float64(took.Microseconds()) / 1000,
	})
}

// Store is the server's record store (nil when started WithoutState).
func (s *Server) Store() store.Store { return s.state.store }

// The control API's admin endpoints (control.AdminBackend).

var _ control.AdminBackend = (*Server)(nil)

// AdminToken implements control.AdminBackend.
func (s *Server) AdminToken() string { return s.state.adminToken }

// Now is the fake's current time.
func (s *Server) Now() time.Time { return s.clock.Now() }

// ResetState puts the fake back as it started: the seed's records, the
// configured tokens only. The clock is left where it is.
func (s *Server) ResetState() error {
	st := s.state
	if st.store != nil {
		if err := st.store.Restore(store.Snapshot{}); err != nil {
			return err
		}
		if err := st.seedWith.Seed(st.seed); err != nil {
			return err
		}
	}
	if p, ok := s.tokens.(tokenPorter); ok {
		if err := p.Import(st.configured); err != nil {
			return err
		}
		st.mu.Lock()
		st.keep = tokenIDs(st.configured)
		st.mu.Unlock()
	}
	return nil
}

// AdvanceClock moves the fake's clock forward by d.
func (s *Server) AdvanceClock(d time.Duration) (time.Time, error) {
	st := s.state
	if st.offset == nil {
		return time.Time{}, errors.New("this server's clock cannot be moved")
	}
	st.mu.Lock()
	st.advanced += d
	st.mu.Unlock()
	return st.offset.Advance(d), nil
}

// SetWorkflowStatus implements control.AdminBackend.
func (s *Server) SetWorkflowStatus(id, status, endStatus string) (string, error) {
	st := s.state
	if st.store == nil {
		return "", control.ErrNotFound
	}
	now := s.clock.Now().UTC()
	err := resources.SetWorkflowStatus(st.store, id, status, endStatus, now)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", control.ErrNotFound
	case errors.Is(err, resources.ErrInvalidStatus):
		return "", fmt.Errorf("%w: %v", control.ErrInvalid, err)
	case err != nil:
		return "", err
	}
	return resources.WorkflowStatus(st.store, id, now)
}

// TokenInfos implements control.AdminBackend.
func (s *Server) TokenInfos() []control.TokenInfo {
	keep := s.state.keptTokens()
	out := []control.TokenInfo{}
	for _, t := range s.tokens.List() {
		out = append(out, control.TokenInfo{ID: t.ID, Name: t.Name, Created: t.Created, Expires: t.Expires,
			LastUsed: t.LastUsed, Revoked: t.Revoked, Configured: slices.Contains(keep, t.ID)})
	}
	return out
}

// RecentRequests implements control.AdminBackend.
func (s *Server) RecentRequests(n int) []control.RequestEntry { return s.state.requests.Recent(n) }

// RateCounters implements control.AdminBackend.
func (s *Server) RateCounters() []ratelimit.Counter { return s.limiter.Snapshot() }
