package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/store"
)

// seed adds the seed's runs (Seed.Workflows), each planned on the
// fake's clock as a launch is: submitted SubmittedAgo before now.
func (w *runs) seed(sd *resources.Seed, now time.Time) error {
	for i, ws := range sd.Workflows {
		if err := w.seedRun(ws, now); err != nil {
			return fmt.Errorf("seed: workflow %d: %w", i+1, err)
		}
	}
	return nil
}

func (w *runs) seedRun(sd resources.WorkflowSeed, now time.Time) error {
	prof := w.k.Profile.Workflows
	wf := &workflow.Run{
		RunName: sd.RunName, Pipeline: sd.Pipeline, ProjectName: projectName(sd.Pipeline),
		Revision: sd.Revision, WorkDir: sd.WorkDir, WorkspaceID: sd.WorkspaceID,
		Submit: now.Add(-sd.SubmittedAgo), SubmittedFor: prof.SubmittedFor, RunningFor: prof.RunningFor,
		EndStatus: sd.EndStatus, UserName: w.k.UserName(), // the user seeded above
	}
	if wf.EndStatus == "" {
		wf.EndStatus = prof.EndStatus(wf.RunName)
	}
	if sd.Status != "" {
		at := now
		wf.Pinned, wf.PinnedAt = sd.Status, &at
	}
	build := func(id string) (store.Record, error) {
		if wf.RunName == "" {
			wf.RunName = runName(w.k.Gen, id)
		}
		wf.SessionID = sessionID(w.k.Gen, id)
		b, err := json.Marshal(wf)
		return store.Record{Created: wf.Submit, Updated: wf.Submit, Data: b}, err
	}
	if sd.ID != "" {
		r, err := build(sd.ID)
		if err != nil {
			return err
		}
		r.ID = sd.ID
		if _, err := w.k.Store.Insert(resources.WorkflowsCollection, r); errors.Is(err, store.ErrExists) {
			return fmt.Errorf("id %s is used twice", sd.ID)
		} else if err != nil {
			return err
		}
		return nil
	}
	_, err := resources.InsertRecord(w.k.Store, resources.WorkflowsCollection, func() (string, error) { return w.k.NewID(14), nil }, build)
	return err
}
