package validate

import (
	"testing"

	"github.com/pb33f/libopenapi-validator/schema_validation"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// BenchmarkFirstAnswerCompile compiles, on a fresh validator each time,
// the published schema's largest answer: an audit log entry, whose two
// states reach every image of the document. It is what the first call to
// ListAuditLogsV2 paid, once per schema checked.
//
//	go test ./mock/validate -run '^$' -bench FirstAnswerCompile
func BenchmarkFirstAnswerCompile(b *testing.B) {
	doc, err := spec.LoadFile(testenv.PublishedSpec(b, ""))
	if err != nil {
		b.Fatal(err)
	}
	entry := doc.Model.Components.Schemas.GetOrZero("AuditLogV2ResponseDto")
	if entry == nil {
		b.Skip("the published schema has no AuditLogV2ResponseDto")
	}
	s := entry.Schema()
	for _, nulls := range []bool{false, true} {
		name := "document"
		var opts []Option
		if nulls {
			name, opts = "nulls", []Option{WithNulls()}
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				v := New(doc, "/api", opts...)
				v.compile(s, schema_validation.SchemaValidationPurposeResponseBody, v.version)
				if cacheSize(v) != 1 {
					b.Fatal("the schema did not compile")
				}
			}
		})
	}
}
