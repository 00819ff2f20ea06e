package resources

import (
	"bytes"
	"sync"

	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// AnswerCheck returns a check that judges a JSON value the way the
// document's response validator judges an answer: with the document's
// OpenAPI version (so nullable means what it says in 3.0) and with
// writeOnly properties not required. A generic schema check differs on
// both counts, and a value that passes it can still make an answer invalid
// (a oneOf whose branches differ only by a writeOnly secret). Compiled
// schemas are kept, since the same item schemas are checked on every write.
func AnswerCheck(doc *spec.Document) func(*base.Schema, []byte) []string {
	opts := config.NewValidationOptions(config.WithRegexEngine(synth.RegexpEngine))
	version := helpers.VersionToFloat(doc.OpenAPI)
	var compiled sync.Map // uint64 schema hash -> *jsonschema.Schema (nil: does not compile)
	return func(s *base.Schema, body []byte) []string {
		if s == nil {
			return nil
		}
		if s.GoLow() == nil {
			return []string{"the schema has no source to compile"}
		}
		key := s.GoLow().Hash()
		c, ok := compiled.Load(key)
		if !ok {
			// Rendering writes to the model: see spec.Guard.
			spec.Guard(func() {
				if c, ok = compiled.Load(key); !ok {
					cs, err := schema_validation.CompileSchemaForValidation(s, schema_validation.SchemaValidationPurposeResponseBody, opts, version)
					var js *jsonschema.Schema
					if err == nil && cs != nil {
						js = cs.CompiledSchema
					}
					compiled.Store(key, js)
					c = js
				}
			})
		}
		js, _ := c.(*jsonschema.Schema)
		if js == nil {
			return []string{"the schema does not compile"}
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			return []string{"not JSON: " + err.Error()}
		}
		if err := js.Validate(v); err != nil {
			return []string{err.Error()}
		}
		return nil
	}
}
