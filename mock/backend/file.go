package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/store"
)

// NewFile keeps the state in this process's memory and in the file at
// path: restored by Load, saved at every interval (0: only on Close) and
// on Close, always atomically. The file never holds a token's value, only
// its hash.
func NewFile(path string, interval time.Duration, opts ...Option) (*Backend, error) {
	if strings.TrimSpace(path) == "" {
		return nil, errors.New("state file: empty path")
	}
	if interval < 0 {
		return nil, errors.New("state file: negative interval")
	}
	if newConfig(opts).noRecords {
		return nil, errors.New("a state file needs state: a file and no records do not go together")
	}
	b, err := NewMemory(opts...)
	if err != nil {
		return nil, err
	}
	b.file = &stateFile{path: path, interval: interval, saved: store.NewMirror(b.records)}
	return b, nil
}

// stateFile is how a Backend made by NewFile reads and writes its file.
type stateFile struct {
	path     string
	interval time.Duration
	// saved is the last saved copy of the records, so that a save holds
	// the store's lock only to copy what changed since the previous one.
	saved  *store.Mirror
	saveMu sync.Mutex

	cancel   context.CancelFunc
	stopped  chan struct{}
	stopOnce sync.Once
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

// load restores the file into b and starts the periodic save. It reports
// false, and restores nothing, when there is no file yet.
func (f *stateFile) load(b *Backend) (bool, error) {
	// Saves this process never finished (a kill, a crash) leave their
	// temporary files behind; they hold nothing the state file needs.
	if n, err := store.RemoveTemporary(f.path); err != nil {
		b.logger.Warn("removing temporary files of interrupted saves", "file", f.path, "error", err)
	} else if n > 0 {
		b.logger.Info("removed temporary files of interrupted saves", "file", f.path, "count", n)
	}
	file, err := store.ReadFile(f.path)
	if errors.Is(err, store.ErrNoFile) {
		return false, nil
	}
	if err == nil {
		err = f.restore(b, file)
	}
	if err == nil {
		err = b.seeder.IndexRefs() // the restored records are what answers refer to
	}
	if err != nil {
		return false, fmt.Errorf("%w (the fake will not start on a state it cannot read; repair the file or move it away)", err)
	}
	b.logger.Info("state restored", "file", f.path, "saved_at", file.SavedAt)
	return true, nil
}

func (f *stateFile) restore(b *Backend, file store.File) error {
	var snap store.Snapshot
	if err := decodePart(file, partRecords, &snap); err != nil {
		return err
	}
	var saved []auth.Token
	if err := decodePart(file, partTokens, &saved); err != nil {
		return err
	}
	var ck clockPart
	if _, ok := file.Parts[partClock]; ok {
		if err := decodePart(file, partClock, &ck); err != nil {
			return err
		}
	}
	if err := b.records.Restore(snap); err != nil {
		return fmt.Errorf("state file %s: %w", f.path, err)
	}
	if err := b.tokens.Restore(mergeTokens(saved, b.configured)); err != nil {
		return fmt.Errorf("state file %s: %w", f.path, err)
	}
	if ck.Advanced > 0 {
		b.clock.Advance(ck.Advanced)
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

// save writes the file now.
func (f *stateFile) save(b *Backend) error {
	f.saveMu.Lock()
	defer f.saveMu.Unlock()
	// The stamp comes before the snapshots, never after: a call answered
	// before savedAt had finished its write before the stamp was taken, so
	// the snapshots below hold it. Stamping afterwards would let calls
	// waiting on the store's lock finish, and be answered, between the
	// snapshot and the stamp, and a file would claim writes it lacks.
	// The mirror copies only the records changed since the last save
	// under the store's lock; the rest of the file (sorting, encoding,
	// writing) is done outside it.
	savedAt := b.clock.Now().UTC()
	snap, err := f.saved.Snapshot()
	if err != nil {
		return err
	}
	tokens, err := b.tokens.Snapshot()
	if err != nil {
		return err
	}
	parts := map[string]any{partRecords: snap, partTokens: tokens, partClock: clockPart{Advanced: b.clock.Skew()}}
	file := store.File{SavedAt: savedAt, Parts: map[string]json.RawMessage{}}
	for name, v := range parts {
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding state part %s: %w", name, err)
		}
		file.Parts[name] = raw
	}
	return store.WriteFile(f.path, file)
}

// autosave saves the file every interval until stop.
func (f *stateFile) autosave(b *Backend) {
	if f.interval <= 0 || f.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel, f.stopped = cancel, make(chan struct{})
	ticker := time.NewTicker(f.interval)
	go func() {
		defer close(f.stopped)
		defer ticker.Stop()
		store.Autosave(ctx, ticker.C, func() error { return f.save(b) }, func(err error) {
			b.logger.Error("saving state", "file", f.path, "error", err)
		})
	}()
}

// stop ends the periodic save, once.
func (f *stateFile) stop() {
	f.stopOnce.Do(func() {
		if f.cancel != nil {
			f.cancel()
			<-f.stopped
		}
	})
}
