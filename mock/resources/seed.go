package resources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Seed is the data a fresh fake starts with, so that lists are never empty
// and a client has something to describe before it creates anything.
type Seed struct {
	// User is the user the tokens belong to (GET /user-info).
	User map[string]any `yaml:"user" json:"user,omitempty"`
	// Collections maps a collection's path ("/pipelines",
	// "/orgs/1001/workspaces") to its items, newest first, each written as
	// the item appears in a describe answer.
	Collections map[string][]map[string]any `yaml:"collections" json:"collections,omitempty"`
	// Workflows are runs, in any status.
	Workflows []WorkflowSeed `yaml:"workflows" json:"workflows,omitempty"`
}

// WorkflowSeed is one seeded run.
type WorkflowSeed struct {
	ID          string `yaml:"id" json:"id,omitempty"`
	RunName     string `yaml:"runName" json:"runName"`
	Pipeline    string `yaml:"pipeline" json:"pipeline"`
	Revision    string `yaml:"revision" json:"revision,omitempty"`
	WorkDir     string `yaml:"workDir" json:"workDir,omitempty"`
	WorkspaceID int64  `yaml:"workspaceId" json:"workspaceId,omitempty"`
	// SubmittedAgo places the submission before the moment of seeding.
	SubmittedAgo time.Duration `yaml:"submittedAgo" json:"submittedAgo,omitempty"`
	// Status, when set, holds the run in that status; without it the run
	// follows the clock from its submission like a launched one.
	Status string `yaml:"status" json:"status,omitempty"`
	// EndStatus is how an unheld run ends (default: the profile's rule).
	EndStatus string `yaml:"endStatus" json:"endStatus,omitempty"`
}

// LoadSeed reads every .yaml, .yml and .json file at the top of fsys, in
// name order, and merges them: collections and workflows add up, and at
// most one file may name the user. A file that does not parse, or has keys
// a seed does not know, is an error naming the file.
func LoadSeed(fsys fs.FS) (*Seed, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	out := &Seed{Collections: map[string][]map[string]any{}}
	userFrom := ""
	for _, e := range entries {
		ext := strings.ToLower(path.Ext(e.Name()))
		if e.IsDir() || ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("seed: %w", err)
		}
		var part Seed
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&part); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("seed file %s: %w", e.Name(), err)
		}
		if part.User != nil {
			if userFrom != "" {
				return nil, fmt.Errorf("seed file %s: the user is already given in %s", e.Name(), userFrom)
			}
			out.User, userFrom = spec.JSONValue(part.User).(map[string]any), e.Name()
		}
		for p, items := range part.Collections {
			if !strings.HasPrefix(p, "/") {
				return nil, fmt.Errorf("seed file %s: collection %q must be a path starting with /", e.Name(), p)
			}
			for _, it := range items {
				out.Collections[p] = append(out.Collections[p], spec.JSONValue(it).(map[string]any))
			}
		}
		for i, w := range part.Workflows {
			if err := workflow.CheckStatuses(w.Status, w.EndStatus); err != nil {
				return nil, fmt.Errorf("seed file %s: workflow %d: %w", e.Name(), i+1, err)
			}
			if w.Pipeline == "" {
				return nil, fmt.Errorf("seed file %s: workflow %d has no pipeline", e.Name(), i+1)
			}
		}
		out.Workflows = append(out.Workflows, part.Workflows...)
	}
	return out, nil
}

// Seed adds the seed's records to the store, as of the clock's now.
// Collections the document does not have, and values that do not fit its
// schemas, are left out: one seed serves every document.
func (s *Service) Seed(seed *Seed) error {
	if seed == nil {
		return nil
	}
	now := s.d.Clock.Now().UTC().Truncate(time.Second)
	if seed.User != nil {
		b, err := json.Marshal(seed.User)
		if err != nil {
			return err
		}
		if _, err := s.d.Store.Insert(UserCollection, store.Record{ID: UserID, Created: now, Updated: now, Data: b}); err != nil && !errors.Is(err, store.ErrExists) {
			return err
		}
	}
	paths := make([]string, 0, len(seed.Collections))
	for p := range seed.Collections {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		c := s.collectionFor(p)
		if c == nil {
			s.d.Logger.Debug("seed: the document has no such collection; skipped", "collection", p)
			continue
		}
		for i, item := range seed.Collections[p] {
			if err := c.seedItem(strings.TrimSuffix(p, "/"), i, item, now); err != nil {
				return fmt.Errorf("seed: %s item %d: %w", p, i+1, err)
			}
		}
	}
	for _, seed1 := range s.seeders { // the parts' (Kit.Seeds): the runs
		if err := seed1(seed, now); err != nil {
			return err
		}
	}
	return s.seedEveryCollection(now) // seedall.go
}

func (s *Service) collectionFor(p string) *Collection {
	for _, c := range s.colls {
		if matchTemplate(c.listPath, p) {
			return c
		}
	}
	return nil
}

func (c *Collection) seedItem(coll string, i int, item map[string]any, now time.Time) error {
	id := ""
	for _, k := range []string{c.idProp, c.param, "id"} {
		if v, ok := item[k]; ok && k != "" {
			id = fmt.Sprint(v)
			break
		}
	}
	d := &Item{Fields: c.fitFields(item, true), Seeded: true}
	// Seeds are listed newest first.
	created := now.Add(-time.Duration(i+1) * time.Hour)
	if t, ok := parseStamp(item["dateCreated"]); ok {
		created = t
	}
	updated := created
	if t, ok := parseStamp(item["lastUpdated"]); ok {
		updated = t
	}
	if ws, ok := item["workspaceId"].(int64); ok && c.scoped {
		d.Workspace = &ws
	}
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	rec := store.Record{ID: id, Created: created, Updated: updated, Data: b}
	if id != "" {
		if _, err := c.s.d.Store.Insert(coll, rec); errors.Is(err, store.ErrExists) {
			return fmt.Errorf("id %s is used twice", id)
		} else if err != nil {
			return err
		}
		return c.remember(coll, id)
	}
	r, err := InsertRecord(c.s.d.Store, coll, c.newID(coll), func(string) (store.Record, error) { return rec, nil })
	if err != nil {
		return err
	}
	return c.remember(coll, r.ID)
}

func parseStamp(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err == nil
}
