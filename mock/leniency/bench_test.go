package leniency

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// BenchmarkRead measures what a call pays for being read leniently: a
// launch body with nothing to tolerate (the common case: one walk, no
// copy), and a Nextflow progress body of 100 tasks, each with nulls and a
// number for its nativeId (edits and a copy).
func BenchmarkRead(b *testing.B) {
	embedded, err := embeddedDoc()
	if err != nil {
		b.Fatal(err)
	}
	launch := `{"launch":{"computeEnvId":"5Fq2Xw8RtLmN3p","pipeline":"https://github.com/nf-core/rnaseq","workDir":"s3://bucket/work"}}`
	b.Run("launch", func(b *testing.B) { benchRead(b, embedded, "CreateWorkflowLaunch", launch, 0) })
	published := published(b)
	tasks := make([]string, 100)
	for i := range tasks {
		tasks[i] = fmt.Sprintf(`{"taskId":%d,"status":"COMPLETED","hash":"8a/2f6c1e","name":"sayHello (%d)","process":"sayHello",`+
			`"tag":null,"submit":"2026-03-01T12:00:01Z","start":"2026-03-01T12:00:02Z","complete":"2026-03-01T12:00:03Z",`+
			`"nativeId":%d,"exit":0,"cpus":1,"memory":null,"disk":null,"time":null,"env":null,"workdir":"/w/8a/2f6c1e"}`, i+1, i+1, 81234+i)
	}
	progress := `{"tasks":[` + strings.Join(tasks, ",") + `],"progress":{"succeeded":100,"processes":[]},"instant":1772366403000}`
	b.Run("progress-100-tasks", func(b *testing.B) { benchRead(b, published, "UpdateTraceProgress", progress, 32) })
}

func benchRead(b *testing.B, doc *spec.Document, opID, body string, wantRecorded int) {
	var op *spec.Operation
	for _, o := range doc.Operations {
		if o.ID == opID {
			op = o
		}
	}
	if op == nil {
		b.Fatalf("no %s", opID)
	}
	r := New(doc, service)
	in := []byte(body)
	if res := r.Read(op, "application/json", in); len(res.Tolerated) != wantRecorded {
		b.Fatalf("%d deviations recorded, want %d", len(res.Tolerated), wantRecorded)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r.Read(op, "application/json", in)
	}
}
