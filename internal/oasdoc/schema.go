package oasdoc

import "github.com/pb33f/libopenapi/datamodel/high/base"

// Schema resolves a schema proxy. libopenapi gives nil for a reference it
// cannot resolve, and can panic deep in its resolver on a malformed one;
// both come out as nil here, so a walk over any document skips the schema
// instead of failing the call that walks it.
func Schema(p *base.SchemaProxy) (s *base.Schema) {
	if p == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			s = nil
		}
	}()
	return p.Schema()
}
