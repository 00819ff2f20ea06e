package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/wmsmock/wmsmock/internal/wait"
	"github.com/wmsmock/wmsmock/profile"
)

// registerSteps binds the step texts the feature files use. Steps are
// generic on purpose (a method and a path, a status, a field) so that a new
// rule of the contract is a new scenario, not new Go code.
func registerSteps(sc *godog.ScenarioContext, w *world) {
	// Who is calling.
	sc.Step(`^(?:I use )?no access token$`, w.noToken)
	sc.Step(`^(?:I use )?a valid access token$`, w.validToken)
	sc.Step(`^(?:I use )?the second access token$`, w.secondToken)
	sc.Step(`^(?:I use )?the expired access token$`, w.expiredToken)
	sc.Step(`^(?:I use )?the access token "([^"]*)"$`, w.literalToken)
	sc.Step(`^(?:I use )?the access token saved as "([^"]*)"$`, w.savedToken)
	sc.Step(`^the Authorization header is "([^"]*)"$`, w.rawAuthorization)
	sc.Step(`^the request header "([^"]*)" is "([^"]*)"$`, w.requestHeader)

	// Calls.
	sc.Step(`^I (GET|HEAD|DELETE|POST|PUT|PATCH) "([^"]*)"(?: without a body)?$`, w.request)
	sc.Step(`^I (POST|PUT|PATCH) "([^"]*)" with JSON:$`, w.requestJSON)
	sc.Step(`^I (POST|PUT|PATCH) "([^"]*)" (\d+) times with JSON:$`, w.requestJSONTimes)
	sc.Step(`^I send (\d+) requests to "([^"]*)" within one second$`, w.burstCalls)
	sc.Step(`^I POST "([^"]*)" with a body over the profile's body limit$`, w.postOverLimit)
	sc.Step(`^I call every read-only operation of the schema$`, w.sweepReadOnly)
	sc.Step(`^(one|a|\d+) (second|seconds|minute|minutes) pass(?:es)?$`, w.timePasses)

	// What came back.
	sc.Step(`^the response status is (\d+)$`, w.statusIs)
	sc.Step(`^the response status is not a success$`, w.statusNotSuccess)
	sc.Step(`^the response is the profile's ([a-z_.]+) reply$`, w.profileReplyIs)
	sc.Step(`^the response is the profile's answer to an unserved version$`, w.unservedAnswer)
	sc.Step(`^the response is the profile's answer to an open operation without a token$`, w.openWithoutToken)
	sc.Step(`^the response is the profile's answer for a deleted compute environment$`, w.deletedComputeEnv)
	sc.Step(`^the response body is empty$`, w.bodyEmpty)
	sc.Step(`^the response is a Bad Request with an Error ID$`, w.badRequest)
	sc.Step(`^the response is a message with an Error ID$`, w.messageWithErrorID)
	sc.Step(`^the Error IDs differ$`, w.errorIDsDiffer)
	sc.Step(`^the response header "([^"]*)" is a whole number of seconds$`, w.headerSeconds)
	sc.Step(`^the response holds at least one timestamp$`, w.hasTimestamp)
	sc.Step(`^every timestamp in the response is in the form YYYY-MM-DDTHH:MM:SSZ$`, w.timestampsInForm)
	sc.Step(`^the response body matches the schema of the operation$`, w.matchesSchema)
	sc.Step(`^every answer is a success whose body its schema accepts$`, w.sweepAllValid)
	sc.Step(`^the response field "([^"]*)" is "([^"]*)"$`, w.fieldIs)
	sc.Step(`^the response field "([^"]*)" is one of "([^"]*)"$`, w.fieldIsOneOf)
	sc.Step(`^the response field "([^"]*)" is a non-empty string$`, w.fieldNonEmptyString)
	sc.Step(`^the response field "([^"]*)" is a list of (at most )?(\d+) items?$`, w.fieldListLen)
	sc.Step(`^I save the response field "([^"]*)" as "([^"]*)"$`, w.saveField)
	sc.Step(`^the response body does not contain the value saved as "([^"]*)"$`, w.bodyLacksSaved)
	sc.Step(`^the response body is the same as the one before$`, w.sameAsBefore)
	sc.Step(`^(\d+) of them (?:are|were) accepted$`, w.burstAccepted)
	sc.Step(`^the rest (?:are|were) refused with status (\d+)$`, w.burstRefused)
	sc.Step(`^the rest (?:are|were) refused$`, w.burstRefusedAny)
	sc.Step(`^the refused calls get the profile's rate-limit reply$`, w.burstProfileReply)

	// Runs a client reports on (trace.feature).
	sc.Step(`^I GET "([^"]*)" until the response field "([^"]*)" is "([^"]*)"$`, w.getUntil)
	sc.Step(`^the run's client stays silent for longer than the profile's workflows\.unknown_after$`, w.silentPastLimit)

	// Faults and overrides asked of the fake (faults_steps.go).
	registerFaultSteps(sc, w)
}

// --- who is calling -------------------------------------------------------

func (w *world) noToken() { w.authorization = "" }

func (w *world) validToken() { w.authorization = "Bearer " + w.conn.Token }

func (w *world) secondToken() error {
	if w.conn.Token2 == "" {
		return errors.New("no second access token is configured (--token2)")
	}
	w.authorization = "Bearer " + w.conn.Token2
	return nil
}

func (w *world) expiredToken() error {
	if w.conn.ExpiredToken == "" {
		return errors.New("the target offers no expired token")
	}
	w.authorization = "Bearer " + w.conn.ExpiredToken
	return nil
}

func (w *world) literalToken(v string) error {
	v, err := w.expand(v)
	if err != nil {
		return err
	}
	w.authorization = "Bearer " + v
	return nil
}

func (w *world) savedToken(name string) error {
	v, ok := w.vars[name]
	if !ok || v == "" {
		return fmt.Errorf("no value saved as %q", name)
	}
	w.authorization = "Bearer " + v
	return nil
}

func (w *world) rawAuthorization(v string) { w.authorization = v }

func (w *world) requestHeader(name, value string) error {
	v, err := w.expand(value)
	if err != nil {
		return err
	}
	w.header.Set(name, v)
	return nil
}

// --- calls ----------------------------------------------------------------

func (w *world) request(ctx context.Context, method, path string) error {
	return w.send(ctx, method, path, nil)
}

func (w *world) requestJSON(ctx context.Context, method, path string, doc *godog.DocString) error {
	body, err := w.expand(doc.Content)
	if err != nil {
		return err
	}
	return w.send(ctx, method, path, []byte(body))
}

func (w *world) requestJSONTimes(ctx context.Context, method, path string, n int, doc *godog.DocString) error {
	for i := 0; i < n; i++ {
		if err := w.requestJSON(ctx, method, path, doc); err != nil {
			return err
		}
		if w.resp.status/100 != 2 {
			return fmt.Errorf("call %d of %d: %s", i+1, n, w.resp)
		}
	}
	return nil
}

func (w *world) timePasses(ctx context.Context, count, unit string) error {
	n := 1
	if count != "one" && count != "a" {
		var err error
		if n, err = strconv.Atoi(count); err != nil {
			return err
		}
	}
	d := time.Duration(n) * time.Second
	if strings.HasPrefix(unit, "minute") {
		d = time.Duration(n) * time.Minute
	}
	return w.conn.Advance(ctx, d)
}

// --- what came back -------------------------------------------------------

func (w *world) statusIs(want int) error {
	a, err := w.response()
	if err != nil {
		return err
	}
	if a.status != want {
		return fmt.Errorf("status %d, want %d: %s", a.status, want, a)
	}
	return nil
}

// statusNotSuccess: the call was refused, whatever the status.
func (w *world) statusNotSuccess() error {
	a, err := w.response()
	if err != nil {
		return err
	}
	if a.status/100 == 2 {
		return fmt.Errorf("status %d, want a refusal: %s", a.status, a)
	}
	return nil
}

// profileReplyIs: the answer is the reply the profile in use gives for
// key (a @profile check: the document leaves this answer open).
func (w *world) profileReplyIs(key string) error {
	a, err := w.response()
	if err != nil {
		return err
	}
	r, err := profileReply(w.r.opts.Profile, key)
	if err != nil {
		return err
	}
	if err := matchReply(r, a); err != nil {
		return differs("profile %s: %w: %s", key, err, a)
	}
	return nil
}

// profileDifference is a failed check of a point the document leaves open:
// the server answers it otherwise than the profile in use. Only such a
// failure makes a @profile scenario a difference; any other (no answer, a
// contract check inside the scenario) fails it like any scenario.
type profileDifference struct{ err error }

func (d *profileDifference) Error() string { return d.err.Error() }
func (d *profileDifference) Unwrap() error { return d.err }

func differs(format string, args ...any) error {
	return &profileDifference{fmt.Errorf(format, args...)}
}

// postOverLimit sends a body one byte over the profile's body limit: a
// JSON string member padded to the size, so that only its size is wrong.
func (w *world) postOverLimit(ctx context.Context, path string) error {
	p, err := w.expand(path)
	if err != nil {
		return err
	}
	size := int(w.r.opts.Profile.BodyLimit.Max) + 1
	const head, tail = `{"padding":"`, `"}`
	if size < len(head)+len(tail) {
		size = len(head) + len(tail)
	}
	body := make([]byte, 0, size)
	body = append(body, head...)
	body = append(body, bytes.Repeat([]byte{'x'}, size-len(head)-len(tail))...)
	body = append(body, tail...)
	a, err := w.call(ctx, http.MethodPost, p, body, nil, w.authorization, true)
	if err != nil {
		return err
	}
	w.remember(a)
	return nil
}

// unservedAnswer: a call asking for a version the server does not serve
// is refused with the profile's reply, or answered as the default version
// when the profile says so.
func (w *world) unservedAnswer() error {
	if !w.r.opts.Profile.Versions.UnservedAsDefault {
		return w.profileReplyIs("versions.unserved")
	}
	a, err := w.response()
	if err != nil {
		return err
	}
	if a.status/100 != 2 {
		return differs("status %d, want the default version's answer (the profile answers unserved versions as the default): %s", a.status, a)
	}
	return nil
}

// openWithoutToken checks a call without a token to an operation the
// document declares no security on against auth.require_on_unsecured:
// answered (the service's own client, Nextflow's auth status, needs 200)
// or refused with auth.missing.
func (w *world) openWithoutToken() error {
	if w.r.opts.Profile.Auth.RequireOnUnsecured {
		return w.profileReplyIs("auth.missing")
	}
	a, err := w.response()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return differs("status %d, want 200 (auth.require_on_unsecured: false): %s", a.status, a)
	}
	return nil
}

// deletedComputeEnv checks the describe of a compute environment whose
// deletion has finished against compute_envs.after_delete.
func (w *world) deletedComputeEnv() error {
	if w.r.opts.Profile.ComputeEnvs.AfterDelete == profile.AfterDeleteMissing {
		return w.profileReplyIs("missing_resource")
	}
	a, err := w.response()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return differs("status %d, want 200 with the environment DELETED (compute_envs.after_delete: %s): %s", a.status, profile.AfterDeleteDeleted, a)
	}
	st, _ := w.fieldValue("computeEnv.status")
	del, _ := w.fieldValue("computeEnv.deleted")
	if scalar(st) != "DELETED" || del != true {
		return differs("computeEnv.status %v and deleted %v, want DELETED and true (compute_envs.after_delete: %s)", st, del, profile.AfterDeleteDeleted)
	}
	return nil
}

func (w *world) bodyEmpty() error {
	a, err := w.response()
	if err != nil {
		return err
	}
	if len(a.body) != 0 {
		return fmt.Errorf("the body is not empty: %s", a)
	}
	return nil
}

func (w *world) badRequest() error {
	if err := w.statusIs(http.StatusBadRequest); err != nil {
		return err
	}
	return w.messageWithErrorID()
}

func (w *world) messageWithErrorID() error {
	a, err := w.response()
	if err != nil {
		return err
	}
	id, err := errorID(a)
	if err != nil {
		return fmt.Errorf("%w (%s %s answered %d)", err, a.req.Method, a.req.URL.RequestURI(), a.status)
	}
	w.errorIDs = append(w.errorIDs, id)
	return nil
}

func (w *world) errorIDsDiffer() error {
	if len(w.errorIDs) < 2 {
		return fmt.Errorf("only %d Error ID seen; the scenario needs at least two", len(w.errorIDs))
	}
	seen := map[string]bool{}
	for _, id := range w.errorIDs {
		if seen[id] {
			return fmt.Errorf("Error ID %s was given twice (IDs seen: %s)", id, strings.Join(w.errorIDs, ", "))
		}
		seen[id] = true
	}
	return nil
}

func (w *world) headerSeconds(name string) error {
	a, err := w.response()
	if err != nil {
		return err
	}
	v := a.header.Get(name)
	if n, err := strconv.Atoi(v); err != nil || n < 0 {
		return fmt.Errorf("header %s is %q, want a whole number of seconds: %s", name, v, a)
	}
	return nil
}

func (w *world) hasTimestamp() error {
	a, err := w.response()
	if err != nil {
		return err
	}
	ts, err := timestamps(a.body)
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		return fmt.Errorf("the answer holds no timestamp: %s", a)
	}
	return nil
}

func (w *world) timestampsInForm() error {
	a, err := w.response()
	if err != nil {
		return err
	}
	ts, err := timestamps(a.body)
	if err != nil {
		return err
	}
	var bad []string
	for _, t := range ts {
		if why := badTimestamp(t[1]); why != "" {
			bad = append(bad, fmt.Sprintf("%s = %q (%s)", t[0], t[1], why))
		}
	}
	if n := len(bad); n > 0 {
		if n > 5 {
			bad = append(bad[:5], fmt.Sprintf("and %d more", n-5))
		}
		return fmt.Errorf("%d of %d timestamps are not in the form YYYY-MM-DDTHH:MM:SSZ: %s", n, len(ts), strings.Join(bad, "; "))
	}
	return nil
}

func (w *world) fieldValue(path string) (any, error) {
	a, err := w.response()
	if err != nil {
		return nil, err
	}
	p, err := w.expand(path)
	if err != nil {
		return nil, err
	}
	v, err := field(a.body, p)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, a)
	}
	return v, nil
}

func (w *world) fieldIs(path, want string) error {
	v, err := w.fieldValue(path)
	if err != nil {
		return err
	}
	if want, err = w.expand(want); err != nil {
		return err
	}
	if got := scalar(v); got != want {
		return fmt.Errorf("field %s is %q, want %q", path, got, want)
	}
	return nil
}

func (w *world) fieldIsOneOf(path, list string) error {
	v, err := w.fieldValue(path)
	if err != nil {
		return err
	}
	got := scalar(v)
	var options []string
	for _, o := range strings.Split(list, ",") {
		o, err := w.expand(strings.TrimSpace(o))
		if err != nil {
			return err
		}
		if got == o {
			return nil
		}
		options = append(options, o)
	}
	return fmt.Errorf("field %s is %q, want one of %s", path, got, strings.Join(options, ", "))
}

func (w *world) fieldNonEmptyString(path string) error {
	v, err := w.fieldValue(path)
	if err != nil {
		return err
	}
	if s, ok := v.(string); !ok || s == "" {
		return fmt.Errorf("field %s is %s %q, want a non-empty string", path, kind(v), scalar(v))
	}
	return nil
}

func (w *world) fieldListLen(path, atMost string, n int) error {
	v, err := w.fieldValue(path)
	if err != nil {
		return err
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("field %s is a %s, want a list", path, kind(v))
	}
	if atMost != "" && len(list) > n || atMost == "" && len(list) != n {
		return fmt.Errorf("field %s has %d items, want %s%d", path, len(list), atMost, n)
	}
	return nil
}

func (w *world) saveField(path, name string) error {
	v, err := w.fieldValue(path)
	if err != nil {
		return err
	}
	switch v.(type) {
	case map[string]any, []any, nil:
		return fmt.Errorf("field %s is a %s; only a string, number or boolean can be saved", path, kind(v))
	}
	w.vars[name] = scalar(v)
	return nil
}

func (w *world) bodyLacksSaved(name string) error {
	a, err := w.response()
	if err != nil {
		return err
	}
	v, ok := w.vars[name]
	if !ok || v == "" {
		return fmt.Errorf("no value saved as %q", name)
	}
	if strings.Contains(string(a.body), v) {
		return fmt.Errorf("the answer contains the value saved as %q: %s %s", name, a.req.Method, a.req.URL.RequestURI())
	}
	return nil
}

func (w *world) sameAsBefore() error {
	if w.resp == nil || w.prev == nil {
		return errors.New("the scenario needs two answers to compare")
	}
	if !sameJSON(w.prev.body, w.resp.body) {
		return fmt.Errorf("the answers differ:\n  before: %s\n  now:    %s", w.prev, w.resp)
	}
	return nil
}

func (w *world) burstStatuses() (accepted int, summary string, err error) {
	if len(w.burst) == 0 {
		return 0, "", errors.New("no burst of requests has been sent")
	}
	counts := map[int]int{}
	for _, a := range w.burst {
		counts[a.status]++
		if a.status/100 == 2 {
			accepted++
		}
	}
	var parts []string
	for s := 100; s < 600; s++ {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d x %d", counts[s], s))
		}
	}
	return accepted, strings.Join(parts, ", "), nil
}

func (w *world) burstAccepted(n int) error {
	accepted, summary, err := w.burstStatuses()
	if err != nil {
		return err
	}
	if accepted != n {
		return fmt.Errorf("%d of %d calls were accepted, want %d (statuses: %s)", accepted, len(w.burst), n, summary)
	}
	return nil
}

func (w *world) burstRefused(status int) error {
	accepted, summary, err := w.burstStatuses()
	if err != nil {
		return err
	}
	if accepted == len(w.burst) {
		return fmt.Errorf("all %d calls were accepted; none was refused (statuses: %s)", len(w.burst), summary)
	}
	for _, a := range w.burst {
		if a.status/100 != 2 && a.status != status {
			return fmt.Errorf("a refused call got %d, want %d (statuses: %s): %s", a.status, status, summary, a)
		}
	}
	return nil
}

// burstRefusedAny: some calls of the burst were refused, whatever the
// status (the contract says how many calls a token may make, not how the
// rest are answered).
func (w *world) burstRefusedAny() error {
	accepted, summary, err := w.burstStatuses()
	if err != nil {
		return err
	}
	if accepted == len(w.burst) {
		return fmt.Errorf("all %d calls were accepted; none was refused (statuses: %s)", len(w.burst), summary)
	}
	return nil
}

// burstProfileReply: every refused call of the burst is answered as the
// profile's rate-limit reply says: its status, its body (empty, a message
// with an Error ID, or its template with the placeholders filled) and its
// headers, plus Retry-After in whole seconds.
func (w *world) burstProfileReply() error {
	if err := w.burstRefusedAny(); err != nil {
		return err
	}
	reply := w.r.opts.Profile.RateLimit.Reject
	for _, a := range w.burst {
		if a.status/100 == 2 {
			continue
		}
		if err := matchReply(reply, a); err != nil {
			return differs("profile rate_limit.reject: %w: %s", err, a)
		}
		if v := a.header.Get("Retry-After"); !wholeSeconds.MatchString(v) {
			return differs("Retry-After %q is not a whole number of seconds: %s", v, a)
		}
	}
	return nil
}

// --- runs a client reports on ----------------------------------------------

// reportedWithin is how long getUntil waits for a real service to show
// what a client reported: the service stores reported tasks and counters
// in the background (its open-source predecessor buffered them for up to
// five seconds), so a read right after a report may not see it yet.
const reportedWithin = time.Minute

// getUntil GETs path until the field has the wanted value. The fake stores
// a report with the call that makes it, so it is asked once; a real
// service is asked again every two seconds, up to reportedWithin.
func (w *world) getUntil(ctx context.Context, path, fieldPath, want string) error {
	deadline := time.Now().Add(reportedWithin)
	for {
		if err := w.request(ctx, http.MethodGet, path); err != nil {
			return err
		}
		err := w.fieldIs(fieldPath, want)
		if err == nil || w.r.info.Fake || time.Now().After(deadline) {
			return err
		}
		if err := wait.For(ctx, 2*time.Second); err != nil {
			return err
		}
	}
}

// silentPastLimit lets more than the profile's silence limit pass on the
// target's clock without a report.
func (w *world) silentPastLimit(ctx context.Context) error {
	limit := w.r.opts.Profile.Workflows.UnknownAfter
	if limit <= 0 {
		return differs("the profile keeps a silent run RUNNING (workflows.unknown_after is 0)")
	}
	return w.conn.Advance(ctx, limit+time.Second)
}
