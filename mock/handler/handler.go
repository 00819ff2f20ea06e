// Package handler holds the types that pass between the fake's request
// pipeline and the code that answers a routed call: the call as the pipeline
// has understood it, and the answer as a value. Handlers never write to the
// wire themselves; the server encodes their Response, and apierror encodes
// their errors, so every answer takes one of two well-tested roads.
package handler

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Request is a call that has passed authentication, the rate limit, the
// version check, routing and validation.
type Request struct {
	HTTP       *http.Request
	Version    string          // the API version the call selected
	Op         *spec.Operation // the operation it was routed to
	PathParams map[string]string
	Query      url.Values
	Body       []byte // the request body, already read and size-checked
	// Decoded is Body decoded at most once (jsonvalue.Decode: numbers as
	// json.Number), shared with the validator, when it was sent as JSON
	// to an operation that takes a body; nil otherwise. The validator is
	// done with it when the handler runs: the handler may change it.
	Decoded *jsonvalue.Lazy
	TokenID int64 // the ID of the token that authenticated the call
	Now     time.Time
	// Key identifies the call for deterministic synthesis: the same key
	// (with the same seed) always yields the same synthesized body.
	Key string
}

// Response is a handler's answer.
type Response struct {
	Status int
	Header http.Header
	// Body is encoded as JSON when Raw is nil; a nil Body and nil Raw mean
	// no body at all.
	Body any
	// Raw is a body already encoded in MediaType.
	Raw       []byte
	MediaType string
}

// Func answers one routed call.
type Func func(*Request) (*Response, error)

// ErrSynthesize is the error a Func returns to leave the call to the
// fake's synthesized answer, as if the operation had no handler: the
// stateful behaviour does so once it has checked that what a call names
// exists, for an operation whose answer it does not build itself (a run's
// log). The synthesizer is then the caller's to run, so a handler needs no
// pointer to it.
var ErrSynthesize = errors.New("handler: left to synthesis")

// JSON is a convenience for a JSON answer.
func JSON(status int, body any) *Response {
	return &Response{Status: status, Body: body, MediaType: "application/json"}
}

// NoContent is an answer without a body, such as a 204.
func NoContent(status int) *Response { return &Response{Status: status} }

// RenamedParams returns a copy of the request whose path parameters go by
// other names: names maps each new name to the one the call used. A check
// written for /a/{x} can so read a call routed as /a/{y}; the original is
// left as it was.
func (r *Request) RenamedParams(names map[string]string) *Request {
	c := *r
	c.PathParams = make(map[string]string, len(names))
	for to, from := range names {
		c.PathParams[to] = r.PathParams[from]
	}
	return &c
}

// Scheme is the scheme a call reached the fake by: https over TLS, else
// http.
func Scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// Origin is scheme://host as the caller reached the fake, for the
// addresses an answer gives (a download URL, a sign-in's endpoints, the
// page that watches a run).
func Origin(r *http.Request) string { return Scheme(r) + "://" + r.Host }
