package runs

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// A run Nextflow reported reads back as reported (CONTRACT.md, what the
// fake may invent): each task's exit status (Nextflow sends it as "exit",
// and a code that says "not ended yet" before the end), the params of
// begin, the peaks Nextflow measured rather than a recount from the tasks;
// and Nextflow's own statistics of the run, which the service does not
// keep, are not echoed. The run has failed, retried, cached and running
// tasks, on both documents.
func TestReportedRunReadsBackAsReported(t *testing.T) {
	for name, load := range bothDocs {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, load(t), true)
			id := fmt.Sprint(f.OK("POST", "/trace/create", `{"runName":"back","sessionId":"s-1","workflowId":null,"instant":1}`).Body["workflowId"])
			params := map[string]any{"input": "samplesheet.csv", "max_cpus": json.Number("4"), "skip_qc": true, "genomes": []any{"GRCh38"}}
			pb, _ := json.Marshal(params)
			f.OK("PUT", "/trace/"+id+"/begin", `{"workflow":{"params":`+string(pb)+`,"runName":"back","sessionId":"s-1"},"processNames":["ALIGN"],"instant":2}`)
			tasks := []string{
				`{"taskId":1,"status":"COMPLETED","process":"ALIGN","exit":0,"executor":"local","cpus":2,"realtime":1000,"pcpu":150,"memory":100,"peakRss":50}`,
				`{"taskId":2,"status":"FAILED","process":"ALIGN","exit":137,"errorAction":"RETRY","executor":"local"}`,
				`{"taskId":3,"status":"COMPLETED","process":"ALIGN","exit":0,"attempt":2,"executor":"awsbatch"}`,
				`{"taskId":4,"status":"CACHED","process":"ALIGN","exit":0}`,
				`{"taskId":5,"status":"RUNNING","process":"ALIGN","exit":2147483647,"executor":"local"}`,
			}
			progress := `{"succeeded":2,"failed":1,"cached":1,"running":1,"peakRunning":7,"peakCpus":14,"peakMemory":123,` +
				`"processes":[{"index":0,"name":"ALIGN","peakRunning":3,"peakCpus":6,"peakMemory":45}]}`
			f.OK("PUT", "/trace/"+id+"/progress", `{"tasks":[`+strings.Join(tasks, ",")+`],"progress":`+progress+`,"instant":3}`)
			f.OK("PUT", "/trace/"+id+"/complete", `{"workflow":{"success":false,"exitStatus":1,"params":`+string(pb)+
				`,"stats":{"succeedCount":99,"computeTimeFmt":"from nextflow"}},"metrics":[],"progress":`+progress+`,"instant":4}`)

			for n, want := range map[int]any{1: json.Number("0"), 2: json.Number("137"), 3: json.Number("0"), 4: json.Number("0"), 5: nil} {
				task := f.OK("GET", fmt.Sprintf("/workflow/%s/task/%d", id, n), "").Body
				if got := get(task, "task.exitStatus"); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("task %d: exitStatus = %v, Nextflow reported exit %v", n, got, want)
				}
			}
			d := f.OK("GET", "/workflow/"+id, "").Body
			if got := normalizeNumbers(get(d, "workflow.params")); !reflect.DeepEqual(got, normalizeNumbers(params)) {
				t.Errorf("workflow.params = %v, begin sent %v", got, params)
			}
			if got := get(d, "workflow.stats.computeTimeFmt"); got == "from nextflow" {
				t.Errorf("workflow.stats echoes Nextflow's own statistics: %v", get(d, "workflow.stats"))
			}
			p := f.OK("GET", "/workflow/"+id+"/progress", "").Body
			for path, want := range map[string]string{
				"progress.workflowProgress.peakTasks": "7", "progress.workflowProgress.peakCpus": "14",
				"progress.workflowProgress.peakMemory": "123", "progress.workflowProgress.executors": "[local awsbatch]",
			} {
				if got := fmt.Sprint(get(p, path)); got != want {
					t.Errorf("%s = %s, want %s (as reported)", path, got, want)
				}
			}
			procs, _ := get(p, "progress.processesProgress").([]any)
			if len(procs) != 1 || fmt.Sprint(get(procs[0], "peakTasks"), get(procs[0], "peakCpus"), get(procs[0], "peakMemory")) != "3 6 45" {
				t.Errorf("processesProgress = %v, want ALIGN with the peaks reported (3 6 45)", procs)
			}
			wp, _ := get(p, "progress.workflowProgress").(map[string]any)
			for _, k := range []string{"cpuEfficiency", "memoryEfficiency", "cost"} {
				if _, ok := wp[k]; !ok && f.prof.Answers.WithNulls() {
					t.Errorf("workflowProgress has no %s: every property the service answers is there", k)
				}
			}
			if wp["cost"] != nil {
				t.Errorf("workflowProgress.cost = %v: the fake cannot know what a task cost", wp["cost"])
			}
		})
	}
}

// normalizeNumbers writes every number as its text, so values decoded in
// different ways compare equal.
func normalizeNumbers(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// A launched run that has ended has metrics for each process that ran
// tasks, in the shape Nextflow's completion reports them; before the end
// it has none.
func TestLaunchedRunMetrics(t *testing.T) {
	f := newFixture(t, resourcestest.PublishedDoc(t), true)
	id := fmt.Sprint(f.OK("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq","computeEnvId":"5Fq2Xw8RtLmN3p"}}`).Body["workflowId"])
	if m := list(f.OK("GET", "/workflow/"+id+"/metrics", "").Body, "metrics"); len(m) != 0 {
		t.Errorf("a run just launched has metrics: %v", m)
	}
	f.clk.Advance(24 * time.Hour)
	m := list(f.OK("GET", "/workflow/"+id+"/metrics", "").Body, "metrics")
	if len(m) == 0 {
		t.Fatal("an ended run has no metrics")
	}
	for _, e := range m {
		for _, fig := range []string{"cpu", "mem", "time", "reads", "writes"} {
			if get(e, fig+".mean") == nil || get(e, fig+".maxLabel") == nil {
				t.Errorf("metrics of %v: %s = %v, want the figure's summary", get(e, "process"), fig, get(e, fig))
			}
		}
	}
}

// Every copy of a reported run is the run: the list's entry and the
// describe answer show the same value for each member of the run both
// have, on both documents, the members nobody reported among them (the
// ones a schema requires, which the frame has to fill).
func TestReportedRunListAndDescribeAgree(t *testing.T) {
	for name, load := range bothDocs {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, load(t), true)
			// What Nextflow's create sends: no workflowId yet, as null.
			id := fmt.Sprint(f.OK("POST", "/trace/create", `{"runName":"agree","sessionId":"s-2","workflowId":null,"instant":1}`).Body["workflowId"])
			f.OK("PUT", "/trace/"+id+"/begin", `{"workflow":{"runName":"agree","sessionId":"s-2","projectName":"nf-core/rnaseq"},"processNames":["ALIGN"],"instant":2}`)
			described, _ := get(f.OK("GET", "/workflow/"+id, "").Body, "workflow").(map[string]any)
			if described == nil {
				t.Fatal("the describe answer has no workflow")
			}
			var entry map[string]any
			for _, e := range asList(get(f.OK("GET", "/workflow", "").Body, "workflows")) {
				if w, _ := get(e, "workflow").(map[string]any); w != nil && fmt.Sprint(w["id"]) == id {
					entry = w
				}
			}
			if entry == nil {
				t.Fatalf("the list does not show run %s", id)
			}
			shared := 0
			for k, lv := range entry {
				dv, ok := described[k]
				if !ok {
					continue
				}
				shared++
				if !reflect.DeepEqual(normalizeNumbers(lv), normalizeNumbers(dv)) {
					t.Errorf("workflow.%s: the list shows %v, the describe answer %v", k, lv, dv)
				}
			}
			if shared < 3 {
				t.Errorf("the list and describe share %d members: the test compares too little", shared)
			}
		})
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }

// bothDocs loads the embedded document and the published schema (which
// skips where it is absent), for the tests that hold reported runs to
// the same rules on each.
var bothDocs = map[string]func(testing.TB) *spec.Document{
	"embedded":  embeddedDoc,
	"published": resourcestest.PublishedDoc,
}
