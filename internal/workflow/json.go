package workflow

import (
	"encoding/json"
	"strconv"
	"time"
)

// AppendJSON encodes the run record as encoding/json would (same fields,
// same omitempty rules), without reflection: launches write one record
// each, and encoding it was a tenth of a launch's cost. json.Unmarshal
// reads it back; TestRunJSON holds the two encodings to the same
// decoded value.
func (w *Run) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendField(b, "runName", true)
	b = AppendJSONString(b, w.RunName)
	b = appendField(b, "projectName", false)
	b = AppendJSONString(b, w.ProjectName)
	b = appendField(b, "pipeline", false)
	b = AppendJSONString(b, w.Pipeline)
	for _, f := range [...]struct{ name, v string }{
		{"revision", w.Revision}, {"commitId", w.CommitID}, {"workDir", w.WorkDir}, {"computeEnvId", w.ComputeEnvID},
	} {
		if f.v != "" {
			b = appendField(b, f.name, false)
			b = AppendJSONString(b, f.v)
		}
	}
	if len(w.ConfigProfiles) > 0 {
		b = appendField(b, "configProfiles", false)
		b = append(b, '[')
		for i, p := range w.ConfigProfiles {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, p)
		}
		b = append(b, ']')
	}
	for _, f := range [...]struct{ name, v string }{{"configText", w.ConfigText}, {"paramsText", w.ParamsText}} {
		if f.v != "" {
			b = appendField(b, f.name, false)
			b = AppendJSONString(b, f.v)
		}
	}
	if w.Resume {
		b = appendField(b, "resume", false)
		b = append(b, "true"...)
	}
	for _, f := range [...]struct{ name, v string }{{"sessionId", w.SessionID}, {"userName", w.UserName}} {
		if f.v != "" {
			b = appendField(b, f.name, false)
			b = AppendJSONString(b, f.v)
		}
	}
	if w.WorkspaceID != 0 {
		b = appendField(b, "workspaceId", false)
		b = strconv.AppendInt(b, w.WorkspaceID, 10)
	}
	b = appendField(b, "submit", false)
	b = appendTime(b, w.Submit)
	b = appendField(b, "submittedFor", false)
	b = strconv.AppendInt(b, int64(w.SubmittedFor), 10)
	b = appendField(b, "runningFor", false)
	b = strconv.AppendInt(b, int64(w.RunningFor), 10)
	b = appendField(b, "endStatus", false)
	b = AppendJSONString(b, w.EndStatus)
	if w.Pinned != "" {
		b = appendField(b, "pinned", false)
		b = AppendJSONString(b, w.Pinned)
	}
	if w.PinnedAt != nil {
		b = appendField(b, "pinnedAt", false)
		b = appendTime(b, *w.PinnedAt)
	}
	if w.Trace != nil {
		// A reported run is written once per report, not per launch: the
		// reflective encoder is fast enough for it.
		t, err := json.Marshal(w.Trace)
		if err == nil {
			b = appendField(b, "trace", false)
			b = append(b, t...)
		}
	}
	if len(w.Launch) > 0 {
		b = appendField(b, "launch", false)
		b = append(b, w.Launch...)
	}
	if w.SchedRunID != nil {
		b = appendField(b, "schedRunId", false)
		b = AppendJSONString(b, *w.SchedRunID)
	}
	if w.Seeded {
		b = appendField(b, "seeded", false)
		b = append(b, "true"...)
	}
	return append(b, '}')
}

func appendField(b []byte, name string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}
