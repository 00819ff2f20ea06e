package mock

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/profile"
)

// Faults a test asked for (mock/faults) act on a call at three points: the
// fault stage (injectFault) answers a failure status at once; an override
// answers in place of the operation's handler at the answer stage
// (pinnedAnswer); a delay or a broken connection acts on the writing of
// the answer, whatever it turns out to be (faultWriter, breakAnswer).

// injectFault is the fault stage: it finds the fault, if any, that acts on
// the call. A failure status is answered at once, with the profile's
// reply for it; a delay or a connection fault is kept for the writing of
// the answer.
func (c *call) injectFault() (*handler.Response, error) {
	s, op := c.s, c.matched
	in := s.faultRules.injector
	rs, err := in.Current()
	if err != nil {
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "reading the fault rules: " + err.Error()}
	}
	if rs.Empty() {
		return nil, nil
	}
	c.rules = rs
	c.fault = &faults.Call{Op: op, Token: c.tok.Hash, HasToken: c.result == auth.OK, Now: c.now}
	inj, err := in.Fault(rs, c.fault)
	if err != nil {
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "counting a fault's use: " + err.Error()}
	}
	if inj == nil {
		return nil, nil
	}
	c.injected = inj
	s.logger.Info("fault injected", "rule", inj.Rule, "source", inj.Source, "operation", op.ID, "hit", inj.Hit,
		"what", inj.What(), "note", inj.Fault.Note)
	if inj.Fault.Status == 0 {
		return nil, nil
	}
	reply, _ := s.profile.Faults.Reply(inj.Fault.Status, inj.Fault.RetryAfter > 0)
	e := &apierror.Error{Kind: apierror.Injected, Reason: inj.Reason(), Reply: &reply}
	if inj.Fault.RetryAfter > 0 {
		e.Values = map[string]string{profile.PlaceRetryAfter: strconv.Itoa(int(inj.Fault.RetryAfter / time.Second))}
	}
	return nil, e
}

// pinnedAnswer is the answer an override pins for the call, if one
// matches; nil otherwise, and the operation's own handler answers.
func (c *call) pinnedAnswer(req *handler.Request) (*handler.Response, error) {
	if c.rules == nil {
		return nil, nil
	}
	s := c.s
	fc := *c.fault
	fc.Path, fc.Query, fc.Body = req.PathParams, req.Query, req.Body
	p, err := s.faultRules.injector.Override(c.rules, &fc)
	if err != nil {
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "counting an override's use: " + err.Error()}
	}
	if p == nil {
		return nil, nil
	}
	c.pinned = p
	s.logger.Info("answer overridden", "rule", p.Rule, "source", p.Source, "operation", req.Op.ID, "hit", p.Hit,
		"status", p.Override.Status, "deliberate", p.Override.Deliberate, "note", p.Override.Note)
	resp := &handler.Response{Status: p.Override.Status, Header: http.Header{}}
	for k, v := range p.Override.Headers {
		resp.Header.Set(k, v)
	}
	if len(p.Override.Body) > 0 {
		resp.Raw, resp.MediaType = p.Override.Body, "application/json"
	}
	return resp, nil
}

// faultWriter is where the answer is written: the call's recorder itself,
// once a fault's delay has passed, or a held answer that breakAnswer then
// sends broken. ctx is the call's own context, which ends when the client
// goes away.
func (c *call) faultWriter(ctx context.Context) *recorder {
	inj := c.injected
	if inj == nil {
		return c.rec
	}
	if inj.Delay > 0 {
		_ = c.s.faultRules.sleep(ctx, inj.Delay)
	}
	if inj.Fault.Connection == "" {
		return c.rec
	}
	return &recorder{ResponseWriter: faults.NewHeld()}
}

// breakAnswer sends the held answer broken as the call's connection fault
// says. When the connection cannot be taken over (HTTP/2), the handler is
// aborted, which resets the stream.
func (c *call) breakAnswer(ctx context.Context, w *recorder) {
	rec := c.rec
	if w == rec {
		return
	}
	rec.errorID = w.errorID
	inj := c.injected
	status, abort := faults.Break(ctx, rec, w.ResponseWriter.(*faults.Held), inj.Fault.Connection, inj.Fault.Stall, c.s.faultRules.stop)
	if status == 0 {
		// No status line reached the client: the journal says 0.
		rec.status, rec.wrote = 0, true
	}
	if abort {
		panic(http.ErrAbortHandler)
	}
}

// injections is what the journal shows of the rules that acted on a call.
func (c *call) injections() []control.Injection {
	var out []control.Injection
	if i := c.injected; i != nil {
		out = append(out, control.Injection{Rule: i.Rule, Kind: string(faults.KindFault), Source: i.Source, Hit: i.Hit, What: i.What(), Note: i.Fault.Note})
	}
	if o := c.pinned; o != nil {
		what := fmt.Sprintf("status %d", o.Override.Status)
		if o.Override.Deliberate {
			what += " (deliberate)"
		}
		out = append(out, control.Injection{Rule: o.Rule, Kind: string(faults.KindOverride), Source: o.Source, Hit: o.Hit, What: what, Note: o.Override.Note})
	}
	return out
}
