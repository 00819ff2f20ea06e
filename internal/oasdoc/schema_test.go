package oasdoc

import (
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

func TestSchema(t *testing.T) {
	if Schema(nil) != nil {
		t.Error("a nil proxy resolved to a schema")
	}
	doc, _, err := Read([]byte(`openapi: 3.0.3
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Known: {type: string}
`))
	if err != nil {
		t.Fatal(err)
	}
	if s := Schema(doc.Components.Schemas.GetOrZero("Known")); s == nil || len(s.Type) != 1 || s.Type[0] != "string" {
		t.Errorf("Known resolved to %+v", s)
	}
	if s := Schema(doc.Components.Schemas.GetOrZero("Absent")); s != nil {
		t.Errorf("a component the document lacks resolved to %+v", s)
	}
	var zero base.SchemaProxy
	_ = Schema(&zero) // a proxy with nothing behind it must not panic out
}
