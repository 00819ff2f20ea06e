package studios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// The studio tests run on both documents: the embedded one and the
// service's published schema. Every answer they read is also held to its
// answer check, as the server would judge it.

func studioDocs(t *testing.T) map[string]func(testing.TB) *spec.Document {
	return map[string]func(testing.TB) *spec.Document{"embedded": embeddedDoc, "published": publishedDoc}
}

// studioFixture is a fake on one document with helpers for its studios.
type studioFixture struct {
	*fixture
	ce    string // a compute environment of the seeded account
	check func(method, target string, r result)
}

func newStudioFixture(t *testing.T, load func(testing.TB) *spec.Document) *studioFixture {
	f := newFixture(t, load(t), true)
	ces := list(f.OK("GET", "/compute-envs", "").Body, "computeEnvs")
	if len(ces) == 0 {
		t.Fatal("the seeded account has no compute environment")
	}
	check := resourcestest.AnswerCheck(f.doc, f.prof)
	sf := &studioFixture{fixture: f, ce: fmt.Sprint(get(ces[0], "id"))}
	sf.check = func(method, target string, r result) {
		t.Helper()
		op, _ := f.Route(method, strings.SplitN(target, "?", 2)[0])
		if problems := check(SuccessSchema(op).Lib(), r.Raw); problems != nil {
			t.Errorf("%s %s does not pass its answer check: %s\n%s", method, target, strings.Join(problems, "; "), r.Raw)
		}
	}
	return sf
}

// do calls and holds the answer to its schema.
func (f *studioFixture) do(method, target, body string) map[string]any {
	f.t.Helper()
	r := f.OK(method, target, body)
	f.check(method, target, r)
	return r.Body
}

// create adds a studio named name with query q ("" or "?autoStart=false")
// and answers its id.
func (f *studioFixture) create(name, q string) string {
	f.t.Helper()
	body := fmt.Sprintf(`{"name":%q,"computeEnvId":%q,"dataStudioToolUrl":"cr.example/studio-jupyter:1.0","configuration":{"cpu":2,"memory":8192,"gpu":0}}`, name, f.ce)
	id, _ := get(f.do("POST", "/studios"+q, body), "studio.sessionId").(string)
	if id == "" {
		f.t.Fatalf("the create answer names no studio")
	}
	return id
}

// status reads a studio's status and its lastUpdate from describe, and
// fails the test unless its list entry says the same.
func (f *studioFixture) status(id string) (string, string) {
	f.t.Helper()
	d := f.do("GET", "/studios/"+id, "")
	status, _ := get(d, "statusInfo.status").(string)
	since, _ := get(d, "statusInfo.lastUpdate").(string)
	found := false
	for _, e := range list(f.do("GET", "/studios?max=100", ""), "studios") {
		if get(e, "sessionId") != id {
			continue
		}
		found = true
		if s, u := get(e, "statusInfo.status"), get(e, "statusInfo.lastUpdate"); s != status || u != since {
			f.t.Errorf("studio %s: describe says %s since %s, its list entry %v since %v", id, status, since, s, u)
		}
	}
	if !found {
		f.t.Errorf("studio %s is not listed", id)
	}
	return status, since
}

func (f *studioFixture) wantStatus(id, want string, since time.Time) {
	f.t.Helper()
	if got, at := f.status(id); got != want || at != Stamp(since) {
		f.t.Errorf("at +%s: studio is %s since %s, want %s since %s", f.clk.Now().Sub(t0), got, at, want, Stamp(since))
	}
}

// job calls start or stop and answers whether a job was submitted; the
// answer's status must be the one describe shows.
func (f *studioFixture) job(id, action string) bool {
	f.t.Helper()
	body := ""
	if action == "start" {
		body = `{}`
	}
	a := f.do("PUT", "/studios/"+id+"/"+action, body)
	if get(a, "sessionId") != id {
		f.t.Errorf("%s answers sessionId %v, want %s", action, get(a, "sessionId"), id)
	}
	if s, _ := f.status(id); get(a, "statusInfo.status") != s {
		f.t.Errorf("%s answers status %v, describe then %s", action, get(a, "statusInfo.status"), s)
	}
	sub, ok := get(a, "jobSubmitted").(bool)
	if !ok {
		f.t.Errorf("%s answers jobSubmitted %v", action, get(a, "jobSubmitted"))
	}
	return sub
}

func (f *studioFixture) checkpoints(id string) []any {
	f.t.Helper()
	a := f.do("GET", "/studios/"+id+"/checkpoints", "")
	cps := list(a, "checkpoints")
	if n := get(a, "totalSize"); fmt.Sprint(n) != fmt.Sprint(len(cps)) {
		f.t.Errorf("checkpoints: totalSize %v, %d listed", n, len(cps))
	}
	return cps
}

// TestStudioLifeOnTheClock holds a studio to its statuses over the fake's
// clock: created starting, running once started up, stopping on stop and
// stopped after; started again from stopped. A start of a studio that is
// not stopped and a stop of one that is not running submit nothing.
func TestStudioLifeOnTheClock(t *testing.T) {
	for name, load := range studioDocs(t) {
		t.Run(name, func(t *testing.T) {
			f := newStudioFixture(t, load)
			id := f.create("life", "")
			f.wantStatus(id, "starting", t0)
			if f.job(id, "start") {
				t.Error("a start of a starting studio submitted a job")
			}
			if f.job(id, "stop") {
				t.Error("a stop of a starting studio submitted a job")
			}
			f.clk.Advance(studioStartingFor - time.Second)
			f.wantStatus(id, "starting", t0)
			f.clk.Advance(time.Second)
			up := t0.Add(studioStartingFor)
			f.wantStatus(id, "running", up)
			if f.job(id, "start") {
				t.Error("a start of a running studio submitted a job")
			}
			f.wantStatus(id, "running", up)

			f.clk.Advance(time.Minute)
			stop := f.clk.Now()
			if !f.job(id, "stop") {
				t.Error("the stop of a running studio submitted no job")
			}
			f.wantStatus(id, "stopping", stop)
			if f.job(id, "stop") || f.job(id, "start") {
				t.Error("a start or stop of a stopping studio submitted a job")
			}
			f.clk.Advance(studioStoppingFor)
			down := stop.Add(studioStoppingFor)
			f.wantStatus(id, "stopped", down)
			if f.job(id, "stop") {
				t.Error("a stop of a stopped studio submitted a job")
			}

			f.clk.Advance(time.Hour)
			again := f.clk.Now()
			if !f.job(id, "start") {
				t.Error("the start of a stopped studio submitted no job")
			}
			f.wantStatus(id, "starting", again)
			if got := get(f.do("GET", "/studios/"+id, ""), "lastStarted"); got != Stamp(again) {
				t.Errorf("lastStarted %v, want %s", got, Stamp(again))
			}
			f.clk.Advance(studioStartingFor)
			f.wantStatus(id, "running", again.Add(studioStartingFor))
		})
	}
}

// TestStudioCreatedStopped: with autoStart=false a studio is stopped, was
// never started, has no checkpoint, and starts when told.
func TestStudioCreatedStopped(t *testing.T) {
	for name, load := range studioDocs(t) {
		t.Run(name, func(t *testing.T) {
			f := newStudioFixture(t, load)
			id := f.create("idle", "?autoStart=false")
			f.wantStatus(id, "stopped", t0)
			f.clk.Advance(time.Hour)
			f.wantStatus(id, "stopped", t0)
			if got := get(f.do("GET", "/studios/"+id, ""), "lastStarted"); got != nil {
				t.Errorf("a studio never started: lastStarted %v", got)
			}
			if cps := f.checkpoints(id); len(cps) != 0 {
				t.Errorf("a studio never started has checkpoints: %v", cps)
			}
			if !f.job(id, "start") {
				t.Error("the start of a stopped studio submitted no job")
			}
			f.wantStatus(id, "starting", f.clk.Now())
		})
	}
}

// TestStudioStopWritesCheckpoint: each session has a checkpoint, made when
// it starts (interim) and finalized once the studio has stopped, saved
// then; a second session adds a second, listed first. Each can be read
// by its id and renamed (spaces become underscores; a name taken in the
// studio is a 409).
func TestStudioStopWritesCheckpoint(t *testing.T) {
	for name, load := range studioDocs(t) {
		t.Run(name, func(t *testing.T) {
			f := newStudioFixture(t, load)
			id := f.create("saver", "")
			cps := f.checkpoints(id)
			if len(cps) != 1 || get(cps[0], "status") != "interim" || get(cps[0], "dateCreated") != Stamp(t0) {
				t.Fatalf("a started studio's checkpoints: %v; want one interim, made at the start", cps)
			}
			f.clk.Advance(12 * time.Minute)
			if got := get(f.checkpoints(id)[0], "dateSaved"); got != Stamp(t0.Add(10*time.Minute)) {
				t.Errorf("running 12 minutes, the checkpoint was last saved %v, want at 10 minutes", got)
			}
			f.job(id, "stop")
			stopped := f.clk.Now().Add(studioStoppingFor)
			f.clk.Advance(studioStoppingFor)
			cps = f.checkpoints(id)
			if len(cps) != 1 {
				t.Fatalf("after the stop: %d checkpoints, want 1", len(cps))
			}
			first := cps[0]
			for path, want := range map[string]any{
				"status": "finalized", "dateSaved": Stamp(stopped), "dateCreated": Stamp(t0), "name": "saver_1",
			} {
				if got := get(first, path); got != want {
					t.Errorf("the stopped session's checkpoint: %s = %v, want %v", path, got, want)
				}
			}
			if p, _ := get(first, "path").(string); !strings.Contains(p, ".studios/checkpoints/") {
				t.Errorf("checkpoint path %q is not in a .studios/checkpoints folder", p)
			}
			if get(first, "author.id") == nil {
				t.Errorf("the checkpoint names no author: %v", get(first, "author"))
			}
			cid := fmt.Sprint(get(first, "id"))
			if got := f.do("GET", "/studios/"+id+"/checkpoints/"+cid, ""); get(got, "name") != "saver_1" || fmt.Sprint(get(got, "id")) != cid {
				t.Errorf("checkpoint %s reads %v", cid, got)
			}

			f.job(id, "start")
			cps = f.checkpoints(id)
			if len(cps) != 2 || get(cps[0], "name") != "saver_2" || get(cps[0], "status") != "interim" || fmt.Sprint(get(cps[1], "id")) != cid {
				t.Fatalf("after a restart: %v; want the new session's checkpoint first, then %s", cps, cid)
			}
			if fmt.Sprint(get(cps[0], "id")) == cid {
				t.Error("two sessions share a checkpoint id")
			}
			if hasOp(f.doc, "PUT", "/studios/{sessionId}/checkpoints/{checkpointId}") {
				f.do("PUT", "/studios/"+id+"/checkpoints/"+cid, `{"name":"before upgrade"}`)
				if got := get(f.do("GET", "/studios/"+id+"/checkpoints/"+cid, ""), "name"); got != "before_upgrade" {
					t.Errorf("renamed to %q, the checkpoint reads %v", "before upgrade", got)
				}
				f.Refused(apierror.Conflict, "PUT", "/studios/"+id+"/checkpoints/"+fmt.Sprint(get(cps[0], "id")), `{"name":"before_upgrade"}`)
			}
			f.Refused(apierror.Forbidden, "GET", "/studios/"+id+"/checkpoints/999999", "")
		})
	}
}

func hasOp(doc *spec.Document, method, path string) bool {
	for _, o := range doc.Operations {
		if o.Method == method && o.Path == path {
			return true
		}
	}
	return false
}

// TestStudioFromCheckpoint: a studio created with initialCheckpointId
// starts from that checkpoint and names it, with the studio it belongs
// to, as its parent; one from a checkpoint the fake does not hold names
// none (the id is taken on trust, studios.go).
func TestStudioFromCheckpoint(t *testing.T) {
	for name, load := range studioDocs(t) {
		t.Run(name, func(t *testing.T) {
			f := newStudioFixture(t, load)
			parent := f.create("parent", "")
			f.clk.Advance(studioStartingFor)
			f.job(parent, "stop")
			f.clk.Advance(studioStoppingFor)
			cp := f.checkpoints(parent)[0]
			cid := fmt.Sprint(get(cp, "id"))
			body := fmt.Sprintf(`{"name":"child","computeEnvId":%q,"initialCheckpointId":%s}`, f.ce, cid)
			child := f.do("POST", "/studios", body)
			want := map[string]any{
				"checkpointId": cid, "checkpointName": "parent_1", "sessionId": parent, "studioName": "parent",
			}
			for k, v := range want {
				if got := get(child, "studio.parentCheckpoint."+k); fmt.Sprint(got) != v {
					t.Errorf("the child's parentCheckpoint.%s = %v, want %v", k, got, v)
				}
			}
			id, _ := get(child, "studio.sessionId").(string)
			if got := get(f.do("GET", "/studios/"+id, ""), "parentCheckpoint.checkpointId"); fmt.Sprint(got) != cid {
				t.Errorf("describe: parentCheckpoint.checkpointId %v, want %s", got, cid)
			}
			f.wantStatus(id, "starting", f.clk.Now())
			orphan := f.do("POST", "/studios", fmt.Sprintf(`{"name":"orphan","computeEnvId":%q,"initialCheckpointId":987654}`, f.ce))
			if p := get(orphan, "studio.parentCheckpoint"); p != nil {
				t.Errorf("a studio from a checkpoint the fake does not hold names a parent: %v", p)
			}
		})
	}
}

// TestStudioReadsBack: what a client wrote reads back, in describe and
// in the list, what nobody wrote is null, and a start's overrides are
// kept. A studio is deleted whatever its status (the Terraform provider
// deletes a running one), and is gone after.
func TestStudioReadsBack(t *testing.T) {
	for name, load := range studioDocs(t) {
		t.Run(name, func(t *testing.T) {
			f := newStudioFixture(t, load)
			body := fmt.Sprintf(`{"name":"written","description":"mine","computeEnvId":%q,"dataStudioToolUrl":"cr.example/rstudio:2.0","isPrivate":true,"configuration":{"cpu":4,"memory":16384,"gpu":1,"lifespanHours":8}}`, f.ce)
			id, _ := get(f.do("POST", "/studios?autoStart=false", body), "studio.sessionId").(string)
			var entry any
			for _, e := range list(f.do("GET", "/studios", ""), "studios") {
				if get(e, "sessionId") == id {
					entry = e
				}
			}
			for label, view := range map[string]any{"describe": f.do("GET", "/studios/"+id, ""), "list": entry} {
				for path, want := range map[string]any{
					"name": "written", "description": "mine", "isPrivate": true, "template.repository": "cr.example/rstudio:2.0",
					"configuration.cpu": "4", "configuration.memory": "16384", "configuration.gpu": "1",
					"configuration.lifespanHours": "8", "computeEnv.id": f.ce,
				} {
					if got := get(view, path); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s: %s = %v, want %v", label, path, got, want)
					}
				}
				for _, path := range []string{"studioUrl", "configuration.condaEnvironment", "parentCheckpoint", "effectiveLifespanHours"} {
					if m, _ := view.(map[string]any); m != nil {
						if v, ok := lookup(m, path); ok && v != nil {
							t.Errorf("%s: %s = %v, which nobody wrote", label, path, v)
						}
					}
				}
			}
			f.do("PUT", "/studios/"+id+"/start", `{"description":"overridden","configuration":{"cpu":8,"memory":16384,"gpu":1,"lifespanHours":8}}`)
			d := f.do("GET", "/studios/"+id, "")
			if get(d, "description") != "overridden" || fmt.Sprint(get(d, "configuration.cpu")) != "8" {
				t.Errorf("after a start that overrides them: description %v, cpu %v", get(d, "description"), get(d, "configuration.cpu"))
			}
			f.clk.Advance(studioStartingFor)
			f.wantStatus(id, "running", f.clk.Now())
			if r := f.OK("DELETE", "/studios/"+id, ""); r.Status != 204 {
				t.Errorf("delete of a running studio: %d, want 204", r.Status)
			}
			f.Refused(apierror.Forbidden, "GET", "/studios/"+id, "")
			f.Refused(apierror.Forbidden, "PUT", "/studios/"+id+"/stop", "")
			f.Refused(apierror.Forbidden, "GET", "/studios/"+id+"/checkpoints", "")
		})
	}
}

// lookup reads a dotted path, telling a null from an absent member.
func lookup(m map[string]any, path string) (any, bool) {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// TestSeededStudiosAreStopped: the seeded account's studios have never
// been started (their made-up views show no other status), and start like
// any other.
func TestSeededStudiosAreStopped(t *testing.T) {
	for name, load := range studioDocs(t) {
		t.Run(name, func(t *testing.T) {
			f := newStudioFixture(t, load)
			seeded := list(f.do("GET", "/studios", ""), "studios")
			if len(seeded) == 0 {
				t.Fatal("the seeded account has no studio")
			}
			for _, e := range seeded {
				if s := get(e, "statusInfo.status"); s != "stopped" {
					t.Errorf("seeded studio %v is %v, want stopped", get(e, "sessionId"), s)
				}
				if p := get(e, "parentCheckpoint"); p != nil {
					t.Errorf("seeded studio %v names a parent checkpoint nobody made: %v", get(e, "sessionId"), p)
				}
			}
			id, _ := get(seeded[0], "sessionId").(string)
			if !f.job(id, "start") {
				t.Error("the start of a seeded studio submitted no job")
			}
			f.wantStatus(id, "starting", f.clk.Now())
			if n := len(f.checkpoints(id)); n != 1 {
				t.Errorf("a seeded studio started once has %d checkpoints", n)
			}
		})
	}
}
