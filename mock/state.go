package mock

import (
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/datasets"
	"github.com/wmsmock/wmsmock/mock/refs"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/runs"
	"github.com/wmsmock/wmsmock/mock/studios"
)

// setupState is called by New once the backend is open: it builds the
// handlers over the backend's records, then has the backend restore its
// file or seed.
func (s *Server) setupState(cfg settings) error {
	records := s.backend.Records()
	if records == nil { // NoRecords
		return s.backend.Load(seeder{})
	}
	var seed *resources.Seed
	if !cfg.state.noSeed {
		var err error
		if seed, err = loadSeed(cfg.state.fixturesDir); err != nil {
			return fmt.Errorf("fixtures: %w", err)
		}
	}
	// One service per distinct document; versions served by the default
	// document share its api, and every version shares the store.
	var seedWith *resources.Service
	done := map[*api]bool{}
	for _, v := range s.versions.names {
		a := s.versions.apis[v]
		if done[a] {
			continue
		}
		done[a] = true
		// The index of the ids answers name, shared by the service (which
		// fills it and tells it of every write) and the synthesizer.
		idx := refs.New(records, refs.WithLogger(s.logger))
		data := &datasets.Part{} // its download URLs are served outside the API
		svc, err := resources.Register(a.doc, resources.Deps{
			Store:   records,
			Tokens:  s.backend.Tokens(),
			Clock:   s.clock,
			Profile: s.profile,
			Gen:     a.synth.gen,
			Caches:  s.caches,
			Check:   a.validator.Answer,
			Refs:    idx,
			Logger:  s.logger,
			Parts:   []resources.Part{runs.Register, studios.Register, data.Register},
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
		if a == s.versions.defaultAPI() {
			seedWith = svc
			s.downloads.data = data               // downloads.go
			a.synth = a.synth.withState(idx, svc) // synthesized ids name held items too
		}
	}
	return s.backend.Load(seeder{svc: seedWith, seed: seed})
}

// seeder is how the backend seeds the records: through the default
// version's handlers, which know what the seed files mean.
type seeder struct {
	svc  *resources.Service // nil without records
	seed *resources.Seed    // nil: WithoutSeed
}

var _ backend.Seeder = seeder{}

func (sd seeder) Seed() error      { return sd.svc.Seed(sd.seed) }
func (sd seeder) IndexRefs() error { return sd.svc.IndexRefs() }

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
