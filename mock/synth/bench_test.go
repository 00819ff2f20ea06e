package synth

import (
	"strconv"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

func benchValue(b *testing.B, s *base.Schema) {
	g := New()
	g.Value(s, "warm-up", Response) // compile outside the timing
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		g.Value(s, "GET /workflow?offset="+strconv.Itoa(i), Response)
	}
}

func publishedSchema(b *testing.B, name string) *base.Schema {
	d := loadSpecFile(b, sharedSpec(b, "seqera-api-cloud.yaml"))
	return componentSchema(b, d, name)
}

// BenchmarkValueWorkflowList measures a typical list response: a few
// workflows, each with progress, labels and pipeline info.
func BenchmarkValueWorkflowList(b *testing.B) {
	benchValue(b, publishedSchema(b, "ListWorkflowsResponse"))
}

func BenchmarkValueDescribeWorkflow(b *testing.B) {
	benchValue(b, publishedSchema(b, "DescribeWorkflowResponse"))
}

// BenchmarkValueComputeEnv covers a 17-branch oneOf that needs
// disambiguation.
func BenchmarkValueComputeEnv(b *testing.B) {
	benchValue(b, publishedSchema(b, "DescribeComputeEnvResponse"))
}

func BenchmarkValueInlineScalars(b *testing.B) {
	d := loadSpec(b, []byte(keywordSpec31))
	benchValue(b, componentSchema(b, d, "Scalars"))
}

func BenchmarkValueWorkflowListParallel(b *testing.B) {
	s := publishedSchema(b, "ListWorkflowsResponse")
	g := New()
	g.Value(s, "warm-up", Response)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			g.Value(s, "GET /workflow?offset="+strconv.Itoa(i), Response)
		}
	})
}
