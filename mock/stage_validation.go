package mock

import (
	"strings"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// validate is the validation stage: what was read is checked against the
// document (CONTRACT E1). A JSON body is decoded at most once, for the
// validator and the handler both.
func (c *call) validate() (*handler.Response, error) {
	op := c.matched
	c.decoded = jsonBody(op, c.r.Header.Get("Content-Type"), c.body)
	if problems := c.api.validator.RequestDecoded(c.r, op, c.body, c.decoded); problems != nil {
		return nil, apierror.BadRequestf("%s: %s", op.ID, strings.Join(problems, "; "))
	}
	return nil, nil
}

// jsonBody is a call's body, to be decoded once if a stage needs it, when
// it is JSON sent to an operation that takes one (handler.Request.Decoded);
// nil otherwise.
func jsonBody(op *spec.Operation, contentType string, body []byte) *jsonvalue.Lazy {
	if len(body) == 0 || op.Op.RequestBody == nil || !spec.IsJSON(contentType) {
		return nil
	}
	return jsonvalue.NewLazy(body)
}
