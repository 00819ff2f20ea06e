package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/store"
)

// state is the fake's state as one part of the server: the record store,
// the token store and the clock's advance, and how they are seeded, saved
// to the state file, restored from it and reset. The handlers that use
// the records live in package resources; the admin adapter (admin.go)
// drives this part for the control API.
type state struct {
	records store.Store // nil when the server runs WithoutState
	// saved is the last saved copy of records, so that a save holds the
	// store's lock only to copy what changed since the previous one.
	saved    *store.Mirror
	tokens   auth.Store
	clock    *clock.Offset
	seedWith *resources.Service // the default version's service seeds the records
	seed     *resources.Seed
	file     string
	logger   *slog.Logger
	// shared is set when the records live in a store other replicas use
	// too (WithStore): the first replica to start seeds it, once.
	shared bool
	// configured are the tokens the fake was started with (built-in,
	// profile and --token ones), pinned, as first created: a reset goes
	// back to them.
	configured []auth.Token

	saveMu    sync.Mutex
	stop      context.CancelFunc
	stopped   chan struct{}
	closeOnce sync.Once
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

// setupState is called by New once tokens and limiter exist: it builds the
// record store and the handlers over it, then restores the state file or
// seeds.
func (s *Server) setupState(cfg settings) error {
	st := &state{tokens: s.tokens, clock: s.clock, file: cfg.state.file, logger: s.logger, configured: s.configuredTokens}
	s.state = st
	if cfg.state.disabled {
		if st.file != "" {
			return errors.New("a state file needs state: WithStateFile and WithoutState do not go together")
		}
		return nil
	}
	st.records, st.shared = cfg.state.records, cfg.state.records != nil
	if st.records == nil {
		st.records = store.NewMemory()
	}
	st.saved = store.NewMirror(st.records)
	if !cfg.state.noSeed {
		var err error
		if st.seed, err = loadSeed(cfg.state.fixturesDir); err != nil {
			return fmt.Errorf("fixtures: %w", err)
		}
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
			Store:    st.records,
			Tokens:   s.tokens,
			Clock:    s.clock,
			Profile:  s.profile,
			Gen:      a.synth.gen,
			Caches:   s.caches,
			Check:    a.validator.Answer,
			Fallback: a.synth.answer,
			Logger:   s.logger,
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
			a.synth.refs = svc.FixRefs // synthesized ids name held items too
		}
	}
	if err := st.load(); err != nil {
		return err
	}
	if st.file != "" && cfg.state.interval > 0 {
		st.autosave(cfg.state.interval)
	}
	return nil
}

// loadSeed reads the seed files from dir, or the embedded ones when dir is
// empty.
func loadSeed(dir string) (*resources.Seed, error) {
	var fsys fs.FS = fixtures.Seed()
	if dir != "" {
		info, err := os.Stat(dir)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("%s is not a directory", dir)
		}
		fsys = os.DirFS(dir)
	}
	return resources.LoadSeed(fsys)
}

// autosave saves the state file every interval until close.
func (st *state) autosave(interval time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	st.stop, st.stopped = cancel, make(chan struct{})
	ticker := time.NewTicker(interval)
	go func() {
		defer close(st.stopped)
		defer ticker.Stop()
		store.Autosave(ctx, ticker.C, st.save, func(err error) {
			st.logger.Error("saving state", "file", st.file, "error", err)
		})
	}()
}

// load restores the state file, or seeds a fresh store when there is none
// yet. A file that exists but cannot be restored stops the start: the fake
// must not run on (and later save over) a state it could not read.
func (st *state) load() error {
	if st.file == "" {
		return st.seedOnce()
	}
	// Saves this process never finished (a kill, a crash) leave their
	// temporary files behind; they hold nothing the state file needs.
	if n, err := store.RemoveTemporary(st.file); err != nil {
		st.logger.Warn("removing temporary files of interrupted saves", "file", st.file, "error", err)
	} else if n > 0 {
		st.logger.Info("removed temporary files of interrupted saves", "file", st.file, "count", n)
	}
	f, err := store.ReadFile(st.file)
	if errors.Is(err, store.ErrNoFile) {
		return st.seedOnce()
	}
	if err == nil {
		err = st.restore(f)
	}
	if err == nil {
		err = st.seedWith.IndexRefs() // the restored records are what answers refer to
	}
	if err != nil {
		return fmt.Errorf("%w (the fake will not start on a state it cannot read; repair the file or move it away)", err)
	}
	st.logger.Info("state restored", "file", st.file, "saved_at", f.SavedAt)
	return nil
}

func (st *state) restore(f store.File) error {
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
	if err := st.records.Restore(snap); err != nil {
		return fmt.Errorf("state file %s: %w", st.file, err)
	}
	if err := st.tokens.Restore(mergeTokens(saved, st.configured)); err != nil {
		return fmt.Errorf("state file %s: %w", st.file, err)
	}
	if ck.Advanced > 0 {
		st.clock.Advance(ck.Advanced)
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
// configured with are present, and the only pinned ones, whatever the
// saved file says (configuration wins over a stale save, e.g. after --token
// changed).
func mergeTokens(saved, configured []auth.Token) []auth.Token {
	merged := slices.Clone(saved)
	var maxID int64
	for i := range merged {
		merged[i].Pinned = false
		maxID = max(maxID, merged[i].ID)
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
			merged[i].Pinned = true
			continue
		}
		maxID++
		c.ID = maxID
		merged = slices.DeleteFunc(merged, func(t auth.Token) bool { return t.Name == c.Name || t.Hash == c.Hash })
		merged = append(merged, c)
	}
	return merged
}

// save writes the state file now. Without a state file it does nothing.
// The file never holds a token's value: only its hash.
func (st *state) save() error {
	if st.file == "" || st.records == nil {
		return nil
	}
	st.saveMu.Lock()
	defer st.saveMu.Unlock()
	// The stamp comes before the snapshots, never after: a call answered
	// before savedAt had finished its write before the stamp was taken, so
	// the snapshots below hold it. Stamping afterwards would let calls
	// waiting on the store's lock finish, and be answered, between the
	// snapshot and the stamp, and a file would claim writes it lacks.
	// The mirror copies only the records changed since the last save
	// under the store's lock; the rest of the file (sorting, encoding,
	// writing) is done outside it.
	savedAt := st.clock.Now().UTC()
	snap, err := st.saved.Snapshot()
	if err != nil {
		return err
	}
	tokens, err := st.tokens.Snapshot()
	if err != nil {
		return err
	}
	parts := map[string]any{partRecords: snap, partTokens: tokens, partClock: clockPart{Advanced: st.clock.Skew()}}
	f := store.File{SavedAt: savedAt, Parts: map[string]json.RawMessage{}}
	for name, v := range parts {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding state part %s: %w", name, err)
		}
		f.Parts[name] = b
	}
	return store.WriteFile(st.file, f)
}

// Where a shared store notes that it has been seeded.
const (
	metaCollection = "wmsmock-meta"
	seededID       = "seeded"
)

// seedOnce seeds the records, unless they are shared and another replica
// has seeded them already: the replica that inserts the marker seeds, the
// others find it and leave the store alone, but still index the references
// the seed holds (seeding builds that index for the replica that seeds).
func (st *state) seedOnce() error {
	if st.shared {
		_, err := st.records.Insert(metaCollection, store.Record{ID: seededID, Created: st.clock.Now(), Data: []byte("true")})
		if errors.Is(err, store.ErrExists) {
			return st.seedWith.IndexRefs()
		}
		if err != nil {
			return err
		}
	}
	return st.seedWith.Seed(st.seed)
}

// reset puts the fake back as it started: the seed's records, the
// configured tokens only. The clock is left where it is.
func (st *state) reset() error {
	if st.records != nil {
		if err := st.records.Restore(store.Snapshot{}); err != nil {
			return err
		}
		if err := st.seedOnce(); err != nil {
			return err
		}
	}
	return st.tokens.Restore(st.configured)
}

// close stops the periodic save and saves one last time; Shutdown calls it
// once the last call in flight has been answered.
func (st *state) close() error {
	st.closeOnce.Do(func() {
		if st.stop != nil {
			st.stop()
			<-st.stopped
		}
	})
	return st.save()
}
