package validate

import (
	"net/http"
	"strings"
	"sync"

	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/requests"
	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// A call's JSON body is decoded once, by the pipeline, and the handler
// stores what was decoded. The library's own path decodes the body again,
// copies the decoded tree into its canonical form and only then judges
// it: for a 67 KB progress report (100 tasks) those two steps were as
// costly as the judging. The library takes a value decoded elsewhere
// (requests.ValidateRequestSchema's DecodedValue), so a decoded call is
// judged in two parts: its parameters by a second library validator that
// leaves bodies alone, and its body by that entry point, against the same
// compiled schema, with the same messages. Anything unusual (no or an
// unknown content type, a media type the document names only through a
// range, a number a float64 cannot hold) is left to the library's own
// path, which says what is wrong in its words.

// judge runs the library on a call (req is docRequest's copy) and returns
// its errors, none when the call is valid.
func (v *Validator) judge(req *http.Request, op *spec.Operation, body []byte, decoded *jsonvalue.Lazy) []*verrors.ValidationError {
	value := decoded.Value()
	schema, required, ok := v.decodedBody(req, op, value)
	if !ok {
		_, errs := v.v.ValidateHttpRequestSyncWithPathItem(req, op.PathItem, op.Path)
		return errs
	}
	_, errs := v.paramsOnly().ValidateHttpRequestSyncWithPathItem(req, op.PathItem, op.Path)
	if schema == nil {
		return errs
	}
	valid, bodyErrs := requests.ValidateRequestSchema(&requests.ValidateRequestSchemaInput{
		Request: req, Schema: schema, Version: v.version,
		Options:      []config.Option{config.WithExistingOpts(v.options)},
		BodyRequired: required, DecodedValue: value, RawBody: body, ValueDecoded: true,
	})
	if !valid {
		verrors.PopulateValidationErrors(bodyErrs, req, op.Path)
		errs = append(errs, bodyErrs...)
	}
	return errs
}

// decodedBody reports whether a call's decoded value can be judged
// without the library decoding the body, and if so against which schema
// (nil: the media type declares none) and whether the body is required.
// It mirrors how the library picks a request body's schema for a JSON
// body (requests.ValidateRequestBodyWithPathItem), where the decoder is
// always the library's JSON one, since New registers no body decoders of
// its own; every other case is the library's.
func (v *Validator) decodedBody(req *http.Request, op *spec.Operation, value any) (*base.Schema, bool, bool) {
	rb := op.Op.RequestBody
	ct := req.Header.Get(helpers.ContentTypeHeader)
	if value == nil || rb == nil || rb.Content == nil || ct == "" ||
		!strings.Contains(strings.ToLower(ct), helpers.JSONType) {
		return nil, false, false
	}
	mt, _, _ := helpers.ExtractContentType(ct)
	media, found := rb.Content.Get(mt)
	if !found || media == nil || !jsonvalue.Finite(value) {
		return nil, false, false
	}
	required := rb.Required != nil && *rb.Required
	if media.Schema == nil {
		return nil, required, true
	}
	return media.Schema.Schema(), required, true
}

// paramsOnly is the library validator that judges a call's parameters
// and not its body, built on first use with the options of the main one
// (its schema caches included).
func (v *Validator) paramsOnly() validator.Validator {
	v.paramsOnce.Do(func() {
		model := *v.model
		opts := append(append([]config.Option{}, v.vopts...), config.WithoutRequestBodyValidation())
		v.guard(func() { v.params = validator.NewValidatorFromV3Model(&model, opts...) })
	})
	return v.params
}

// paramsValidator is the state paramsOnly keeps.
type paramsValidator struct {
	paramsOnce sync.Once
	params     validator.Validator
}
