package runs

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// launchBody is what a launch reads from its request. Decoding into it is
// twice as fast as into a map, and launches are the hottest write.
type launchBody struct {
	Launch struct {
		Pipeline       string   `json:"pipeline"`
		RunName        string   `json:"runName"`
		Revision       string   `json:"revision"`
		CommitID       string   `json:"commitId"`
		WorkDir        string   `json:"workDir"`
		ComputeEnvID   string   `json:"computeEnvId"`
		ConfigText     string   `json:"configText"`
		ParamsText     string   `json:"paramsText"`
		SessionID      string   `json:"sessionId"`
		Resume         bool     `json:"resume"`
		ConfigProfiles []string `json:"configProfiles"`
	} `json:"launch"`
	// extra is the launch's other members, nulls left out, as a JSON
	// object; nil when there are none.
	extra json.RawMessage
}

// launchKept names the launch members the run record keeps in fields of
// its own; every other member the client wrote is kept as written
// (launchBody.extra), except those the service decides itself.
var launchKept = map[string]bool{
	"pipeline": true, "runName": true, "revision": true, "commitId": true, "workDir": true, "computeEnvId": true,
	"configText": true, "paramsText": true, "sessionId": true, "resume": true, "configProfiles": true,
	"id": true, "dateCreated": true,
}

// readLaunch decodes a launch request. A document whose launch fields have
// other types than the service's (the validator has accepted them) is read
// through a map, keeping the values that have the expected types.
func readLaunch(raw []byte) (*launchBody, error) {
	var b launchBody
	typed := json.Unmarshal(raw, &b) == nil
	body, err := resources.DecodeObject(raw)
	if err != nil {
		return nil, err
	}
	l, _ := body["launch"].(map[string]any)
	extra := map[string]any{}
	for k, v := range l {
		if !launchKept[k] && v != nil {
			extra[k] = jsonvalue.DropNulls(v)
		}
	}
	if len(extra) > 0 {
		if b.extra, err = json.Marshal(extra); err != nil {
			return nil, err
		}
	}
	if typed {
		return &b, nil
	}
	b = launchBody{extra: b.extra} // a failed decode leaves what it had read
	str := func(k string) string { v, _ := l[k].(string); return v }
	b.Launch.Pipeline, b.Launch.RunName, b.Launch.Revision = str("pipeline"), str("runName"), str("revision")
	b.Launch.CommitID, b.Launch.WorkDir, b.Launch.ComputeEnvID = str("commitId"), str("workDir"), str("computeEnvId")
	b.Launch.ConfigText, b.Launch.ParamsText, b.Launch.SessionID = str("configText"), str("paramsText"), str("sessionId")
	b.Launch.Resume, _ = l["resume"].(bool)
	if ps, ok := l["configProfiles"].([]any); ok {
		for _, p := range ps {
			if s, ok := p.(string); ok {
				b.Launch.ConfigProfiles = append(b.Launch.ConfigProfiles, s)
			}
		}
	}
	return &b, nil
}

// maxCachedLaunch is the largest launch body whose decoding is cached;
// bigger ones (long config or params texts) are decoded every time.
const maxCachedLaunch = 4 << 10

// launchOf decodes a launch body, through the cache when it is small. The
// result is shared: callers must not modify it.
func (w *runs) launchOf(raw []byte) (*launchBody, error) {
	if len(raw) > maxCachedLaunch {
		return readLaunch(raw)
	}
	return w.launches.Do(string(raw), func() (*launchBody, error) { return readLaunch(raw) })
}

func (w *runs) launch(req *handler.Request) (*handler.Response, error) {
	body, err := w.launchOf(req.Body)
	if err != nil {
		return nil, err
	}
	l := &body.Launch
	pipeline := strings.TrimSpace(l.Pipeline)
	if pipeline == "" {
		return nil, resources.Fail(resources.ErrBadInput, "launch.pipeline is missing")
	}
	ws, given, err := resources.WorkspaceOf(req.Query)
	if err != nil {
		return nil, err
	}
	computeEnvID, err := w.k.CheckLaunch(req, l.ComputeEnvID, ws, given) // the kernel's launchrefs.go
	if err != nil {
		return nil, err
	}
	prof := w.k.Profile.Workflows
	wf := &workflow.Run{
		RunName:        strings.TrimSpace(l.RunName),
		Pipeline:       pipeline,
		ProjectName:    projectName(pipeline),
		Revision:       l.Revision,
		CommitID:       l.CommitID,
		WorkDir:        l.WorkDir,
		ComputeEnvID:   computeEnvID,
		ConfigText:     l.ConfigText,
		ParamsText:     l.ParamsText,
		SessionID:      l.SessionID,
		Resume:         l.Resume,
		ConfigProfiles: l.ConfigProfiles,
		WorkspaceID:    ws,
		Submit:         req.Now.UTC(),
		SubmittedFor:   prof.SubmittedFor,
		RunningFor:     prof.RunningFor,
		UserName:       w.k.UserName(), // the seeded user's (user.yaml)
		Launch:         body.extra,
	}
	givenName := wf.RunName
	givenSession := wf.SessionID
	// The run name and outcome may depend on the id, so the record is
	// finished once the id is chosen.
	rec, err := resources.InsertRecord(w.k.Store, resources.WorkflowsCollection,
		func() (string, error) { return w.k.NewID(14), nil },
		func(id string) (store.Record, error) {
			wf.RunName, wf.SessionID = givenName, givenSession
			if wf.RunName == "" {
				wf.RunName = runName(w.k.Gen, id)
			}
			if wf.SessionID == "" {
				wf.SessionID = sessionID(w.k.Gen, id)
			}
			wf.EndStatus = w.k.Profile.Workflows.EndStatus(wf.RunName)
			data := wf.AppendJSON(make([]byte, 0, 512))
			// The run as built is what a read would decode: the store's
			// index (fileRun) and the first describe take it from here.
			built := *wf
			w.decoded.Put(decodedKey{id, w.hash.bytes(data)}, &built)
			return store.Record{Created: wf.Submit, Updated: wf.Submit, Data: data}, nil
		})
	if err != nil {
		return nil, err
	}
	// The rest of the answer depends only on the request, like any
	// synthesized answer, so repeated launches reuse one base.
	return resources.Success(req.Op, w.k.Bases.WithField(resources.SuccessSchema(req.Op), "launched/"+req.Key, "workflowId", rec.ID)), nil
}

// projectName is what the service shows for a pipeline: the repository
// path of a URL ("nf-core/rnaseq"), or the name as given.
func projectName(pipeline string) string {
	p := pipeline
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
		if j := strings.Index(p, "/"); j >= 0 {
			p = p[j+1:]
		}
	}
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git")
	if p == "" {
		return pipeline
	}
	return p
}

var (
	nameAdjectives = []string{"happy", "sleepy", "focused", "jolly", "nostalgic", "tender", "zen", "peaceful", "elated", "compassionate"}
	nameScientists = []string{"turing", "curie", "darwin", "franklin", "hopper", "lovelace", "mendel", "noether", "pasteur", "sanger"}
)

// runName makes up a run name the way Nextflow does (adjective_scientist).
func runName(gen *synth.Generator, id string) string {
	r := gen.Rand("run name/" + id)
	return nameAdjectives[r.IntN(len(nameAdjectives))] + "_" + nameScientists[r.IntN(len(nameScientists))]
}

func sessionID(gen *synth.Generator, id string) string {
	r := gen.Rand("session/" + id)
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	out := make([]byte, 0, 36)
	for i, part := range [][]byte{b[0:4], b[4:6], b[6:8], b[8:10], b[10:]} {
		if i > 0 {
			out = append(out, '-')
		}
		out = hex.AppendEncode(out, part)
	}
	return string(out)
}

// paramsOf reads launch parameters given as a JSON object.
func paramsOf(text string) map[string]any {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(text), &m) != nil {
		return nil
	}
	return m
}

// launched is what a run's answer shows of the launch that made it: the
// platform of the compute environment it runs on, and its labels.
func (w *runs) launched(wf *workflow.Run, now time.Time) map[string]any {
	f := map[string]any{"platform": nil}
	if ce, ok := w.computeEnv(wf, now); ok {
		if id, _ := ce["platform"].(string); id != "" {
			f["platform"] = map[string]any{"id": id}
		}
	}
	if ids := launchExtra(wf)["labelIds"]; ids != nil {
		var labels []any
		if l, ok := ids.([]any); ok {
			for _, id := range l {
				labels = append(labels, map[string]any{"id": id})
			}
		}
		f["labels"] = labels
	}
	return f
}

// computeEnv is the describe view of the compute environment a run was
// launched on, when the fake holds it.
func (w *runs) computeEnv(wf *workflow.Run, now time.Time) (map[string]any, bool) {
	if wf.ComputeEnvID == "" {
		return nil, false
	}
	return w.k.HeldBy("computeEnvId", wf.ComputeEnvID, nil, now)
}

// workDir is a run's work directory: the one its launch gave, else the one
// of the compute environment it runs on, as the service fills it in.
func (w *runs) workDir(wf *workflow.Run, now time.Time) string {
	if wf.WorkDir != "" {
		return wf.WorkDir
	}
	if ce, ok := w.computeEnv(wf, now); ok {
		if cfg, ok := ce["config"].(map[string]any); ok {
			dir, _ := cfg["workDir"].(string)
			return dir
		}
	}
	return ""
}

// launchExtra decodes the launch members a run keeps as written.
func launchExtra(wf *workflow.Run) map[string]any {
	if len(wf.Launch) == 0 {
		return nil
	}
	m, err := resources.DecodeObject(wf.Launch)
	if err != nil {
		return nil
	}
	return m
}

// launchView answers the launch that made a run (GET
// /workflow/{workflowId}/launch, and GET /launch/{launchId}, since a run's
// launch goes by the run's id): what the client wrote with it, read back as
// written, and what the launch derived (the compute environment it runs
// on, shown as that environment is; its work directory and session).
func (w *runs) launchView(param string) handler.Func {
	return func(req *handler.Request) (*handler.Response, error) {
		x, err := w.find(req, req.PathParams[param])
		if err != nil {
			return nil, err
		}
		sch := resources.SuccessSchema(req.Op)
		root := w.k.Bases.Bare(sch, "launch of a run")
		obj, osch := root, sch
		if inner := sch.Prop("launch"); inner.IsObject() {
			obj, osch = w.k.Bases.Bare(inner, "launch of a run"), inner
			root["launch"] = obj
		}
		w.k.Fit.Merge(osch, obj, w.launchFields(x, osch, req.Now), 0)
		return resources.Success(req.Op, root), nil
	}
}

// launchFields are the members of a run's launch, for a launch schema sch.
func (w *runs) launchFields(x *run, sch *spec.Schema, now time.Time) map[string]any {
	wf := x.wf
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	f := launchExtra(wf)
	if f == nil {
		f = map[string]any{}
	}
	for k, v := range map[string]any{
		"id": x.id, "pipeline": opt(wf.Pipeline), "revision": opt(wf.Revision), "commitId": opt(wf.CommitID),
		"workDir": opt(w.workDir(wf, now)), "configText": opt(wf.ConfigText), "paramsText": opt(wf.ParamsText),
		"sessionId": opt(wf.SessionID), "resume": wf.Resume, "dateCreated": resources.Stamp(wf.Submit),
	} {
		f[k] = v
	}
	if len(wf.ConfigProfiles) > 0 {
		ps := make([]any, len(wf.ConfigProfiles))
		for i, p := range wf.ConfigProfiles {
			ps[i] = p
		}
		f["configProfiles"] = ps
	}
	f["computeEnv"] = nil
	if wf.ComputeEnvID != "" {
		if view, ok := w.k.HeldBy("computeEnvId", wf.ComputeEnvID, sch.Prop("computeEnv"), now); ok {
			f["computeEnv"] = view
		}
	}
	return f
}
