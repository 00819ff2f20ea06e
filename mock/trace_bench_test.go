package mock_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// progressBody is a progress call's body with the tasks from..to (by
// taskId), all in status, written as a client that follows the schema
// would (so the same body passes the validation stage whatever its
// leniency).
func progressBody(from, to int, status string) string {
	var b strings.Builder
	b.WriteString(`{"tasks":[`)
	for id := from; id <= to; id++ {
		if id > from {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"taskId":%d,"status":%q,"hash":"ab/%06x","name":"ALIGN (%d)","process":"ALIGN","tag":"sample_%d",`+
			`"submit":"2026-03-01T12:00:00Z","workdir":"/work/ab/%06x","cpus":2,"memory":4294967296,"attempt":1,`+
			`"nativeId":"%d","executor":"local","realtime":1500,"pcpu":97.5,"peakRss":104857600,"rchar":2048,"wchar":1024}`,
			id, status, id, id, id, id, 40000+id)
	}
	b.WriteString(`],"progress":{"running":0},"containers":[]}`)
	return b.String()
}

// traceServer starts a fake with a reported run holding stored tasks (in
// status COMPLETED), and returns its handler and the run's id.
func traceServer(b *testing.B, stored int) (*mock.Server, string) {
	srv, id, _, _ := traceServerMemory(b, embedded(b), stored)
	return srv, id
}

// traceServerMemory is traceServer that also says what each stored task
// costs: its share of the live heap and of the process's resident memory,
// measured after a collection (settledMemory) before and after they were
// reported.
func traceServerMemory(b *testing.B, doc *spec.Document, stored int) (*mock.Server, string, float64, float64) {
	srv, err := mock.New(mock.WithDocument("", doc), mock.WithRateLimit(nil))
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	do := func(method, target, body string) []byte {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newBenchRequest(method, target, body, devToken))
		if rec.Code != 200 {
			b.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body.String())
		}
		return rec.Body.Bytes()
	}
	var created struct{ WorkflowID string }
	_ = json.Unmarshal(do("POST", "/api/trace/create", `{"runName":"bench","sessionId":"s","projectName":"p"}`), &created)
	id := created.WorkflowID
	do("PUT", "/api/trace/"+id+"/begin", `{"processNames":["ALIGN"],"workflow":{"runName":"bench","projectName":"p","sessionId":"s","commandLine":"nextflow run p","userName":"u","workDir":"/work","submit":"2026-03-01T12:00:00Z"}}`)
	// One report first, so what the operation compiles once is not counted
	// against the tasks.
	do("PUT", "/api/trace/"+id+"/progress", progressBody(stored+1_000_000, stored+1_000_000, "RUNNING"))
	heap0, rss0 := settledMemory()
	for from := 1; from <= stored; from += 100 {
		do("PUT", "/api/trace/"+id+"/progress", progressBody(from, min(from+99, stored), "COMPLETED"))
	}
	if stored == 0 {
		return srv, id, 0, 0
	}
	heap1, rss1 := settledMemory()
	return srv, id, float64(heap1-heap0) / float64(stored), float64(rss1-rss0) / float64(stored)
}

// BenchmarkTraceProgress measures a progress call with 100 tasks on a run
// that already holds 0, 10,000 or 100,000 tasks, through the whole
// pipeline (validation of the 100 tasks included), on the embedded
// document and the published schema. Its cost must not
// depend on the tasks already stored: each task is a record of its own,
// and the run's counters move by each reported task's change of state.
// With tasks stored, update also reports what each costs in memory
// (B-heap/task, B-rss/task; see traceServerMemory).
//
//	go test ./mock -run '^$' -bench TraceProgress -benchtime 300x
//
// update reports the same 1,000 tasks above the stored ones again and
// again, moving them between RUNNING and COMPLETED (the run keeps its
// size); insert reports 100 new tasks each time (the run grows by as much
// in both cases).
func BenchmarkTraceProgress(b *testing.B) {
	for _, dc := range documents {
		for _, stored := range []int{0, 10_000, 100_000} {
			traceProgress(b, dc, stored)
		}
	}
}

// traceProgress is BenchmarkTraceProgress on one document and size.
func traceProgress(b *testing.B, dc docCase, stored int) {
	srv, id, heapPerTask, rssPerTask := traceServerMemory(b, dc.doc(b), stored)
	defer srv.Close()
	h := srv.Handler()
	target := "/api/trace/" + id + "/progress"
	next := stored + 1_000 + 1 // insert: above update's window, new on every call
	for _, mode := range []string{"update", "insert"} {
		b.Run(fmt.Sprintf("doc=%s/stored=%d/%s", dc.name, stored, mode), func(b *testing.B) {
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				var body string
				if mode == "update" {
					from := stored + 1 + 100*(i%10)
					status := []string{"RUNNING", "COMPLETED"}[(i/10)%2]
					body = progressBody(from, from+99, status)
				} else {
					body = progressBody(next, next+99, "RUNNING")
					next += 100
				}
				i++
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, newBenchRequest("PUT", target, body, devToken))
				if rec.Code != 200 {
					b.Fatalf("progress: %d %s", rec.Code, rec.Body.String())
				}
			}
			if mode == "update" && stored > 0 {
				b.ReportMetric(heapPerTask, "B-heap/task")
				if rssPerTask > 0 {
					b.ReportMetric(rssPerTask, "B-rss/task")
				}
			}
		})
	}
}

// BenchmarkReportedRunReads measures describing, listing and reading the
// progress of a reported run that holds 100 or 10,000 tasks: none of them
// reads the tasks, so none may get slower as they pile up. The tasks
// page reads one page of the run's list, in the middle of the run's
// tasks and at their end (where the store's newest-first list starts).
//
//	go test ./mock -run '^$' -bench ReportedRunReads
func BenchmarkReportedRunReads(b *testing.B) {
	for _, stored := range []int{100, 10_000} {
		srv, id := traceServer(b, stored)
		h := srv.Handler()
		for _, c := range []struct{ name, target string }{
			{"describe", "/api/workflow/" + id},
			{"list", "/api/workflow?max=20"},
			{"progress", "/api/workflow/" + id + "/progress"},
			{"tasks-middle", fmt.Sprintf("/api/workflow/%s/tasks?max=50&offset=%d", id, stored/2-25)},
			{"tasks-last", fmt.Sprintf("/api/workflow/%s/tasks?max=50&offset=%d", id, stored-50)},
		} {
			b.Run(fmt.Sprintf("stored=%d/%s", stored, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, newBenchRequest("GET", c.target, "", devToken))
					if rec.Code != 200 {
						b.Fatalf("%s: %d %s", c.name, rec.Code, rec.Body.String())
					}
				}
			})
		}
	}
}
