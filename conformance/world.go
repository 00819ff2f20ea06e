package conformance

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
)

// world is one scenario's state: a fresh one per scenario, so nothing a
// scenario remembers (tokens, answers, saved values) leaks into the next.
type world struct {
	r    *runner
	conn *Conn
	tags map[string]bool

	// skip is why the scenario is skipped, when it is.
	skip string

	// authorization is the Authorization header sent with each call; ""
	// sends none.
	authorization string
	header        http.Header
	vars          map[string]string

	resp, prev *answer
	burst      []*answer
	errorIDs   []string
	sweep      []sweepOutcome
	// habits are the service's habits the scenario's answers showed.
	habits []Habit
	// undo lists what the scenario created and has not deleted, so the
	// After hook can remove it.
	undo []undoCall

	// calls are what the scenario's steps sent and got, for the result
	// (cleaning up is not recorded); bursts add to it concurrently.
	callsMu   sync.Mutex
	calls     []Call
	recording bool
}

// answer is one call and what the target said.
type answer struct {
	req    *http.Request
	status int
	header http.Header
	body   []byte
}

func (a *answer) String() string {
	return fmt.Sprintf("%s %s -> %d %s", a.req.Method, a.req.URL.RequestURI(), a.status, excerpt(a.body))
}

// undoCall is a DELETE that removes something a scenario created.
type undoCall struct {
	path string
	// key matches the DELETE a scenario sends itself, so that what it
	// already deleted is not deleted twice.
	key string
}

// maxBody bounds how much of an answer is read; answers of this API are far
// smaller, and a runaway body must not exhaust memory.
const maxBody = 32 << 20

func (r *runner) initScenario(sc *godog.ScenarioContext) {
	w := &world{r: r, header: http.Header{}, vars: map[string]string{}}
	sc.Before(w.before)
	sc.After(w.after)
	registerSteps(sc, w)
}

func (w *world) before(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
	w.tags = tagSet(pickleTags(sc.Tags))
	// {unique} names what the scenario creates, so that names cannot
	// clash on a shared server.
	w.vars["unique"] = w.r.uniqueSuffix(pickleKey(sc.Uri, sc.AstNodeIds))
	// Scenarios the target cannot serve are normally left out of the run
	// by tag; this catches any that get through, without sending a call.
	if _, reason := w.r.skipReason(w.tags); reason != "" {
		w.skip = reason
		godog.T(ctx).SkipNow()
	}
	conn, err := w.r.opts.Target.Open(ctx)
	if err != nil {
		return ctx, fmt.Errorf("opening the target: %w", err)
	}
	w.conn = conn
	w.recording = true
	return ctx, nil
}

func (w *world) after(ctx context.Context, sc *godog.Scenario, err error) (context.Context, error) {
	w.callsMu.Lock()
	w.recording = false
	calls := w.calls
	w.callsMu.Unlock()
	sr := &ScenarioResult{
		Feature: w.r.feature[sc.Uri],
		Name:    sc.Name,
		URI:     sc.Uri,
		Tags:    pickleTags(sc.Tags),
		Calls:   calls,
		Habits:  w.habits,
	}
	switch {
	case err == nil:
		sr.Status = Passed
	case errors.Is(err, godog.ErrSkip):
		sr.Status, sr.Reason = Skipped, w.skip
		if sr.Reason == "" {
			sr.Reason = "skipped by a step"
		}
	case slices.Contains(sr.Tags, tagProfile) && !w.r.opts.StrictProfile && errors.As(err, new(*profileDifference)):
		sr.Status, sr.Reason = Differs, err.Error()
	default:
		sr.Status, sr.Reason = Failed, err.Error()
	}
	if w.conn != nil {
		// Cleaning up must happen even when the run's time is up, within a
		// bound of its own.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		sr.Warnings = w.cleanUp(cctx)
		cancel()
		if cerr := w.conn.Close(); cerr != nil {
			sr.Warnings = append(sr.Warnings, "closing the target: "+cerr.Error())
		}
	}
	w.r.record(sr, pickleKey(sc.Uri, sc.AstNodeIds))
	return ctx, nil
}

// cleanUp deletes what the scenario created, newest first, with the valid
// token. A 403 or 404 means it is already gone, which is fine.
func (w *world) cleanUp(ctx context.Context) []string {
	var warnings []string
	if w.tags[tagRateLimit] && len(w.burst) > 0 && !w.r.info.Disposable {
		// The token's window is full; let it empty before anything else
		// (here, or in the next scenario on a shared server) calls.
		if err := w.conn.Advance(ctx, time.Second+100*time.Millisecond); err != nil {
			warnings = append(warnings, "waiting for the rate window to empty: "+err.Error())
		}
	}
	for i := len(w.undo) - 1; i >= 0; i-- {
		u := w.undo[i]
		a, err := w.call(ctx, http.MethodDelete, u.path, nil, nil, "Bearer "+w.conn.Token, true)
		switch {
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("cleaning up with DELETE %s: %v", u.path, err))
		case a.status/100 == 2, a.status == http.StatusForbidden, a.status == http.StatusNotFound:
		default:
			warnings = append(warnings, fmt.Sprintf("cleaning up with DELETE %s: status %d %s", u.path, a.status, excerpt(a.body)))
		}
	}
	w.undo = nil
	return warnings
}

// send makes one ordinary call as the scenario's current caller, paced, and
// remembers the answer as "the response".
func (w *world) send(ctx context.Context, method, path string, body []byte) error {
	p, err := w.expand(path)
	if err != nil {
		return err
	}
	a, err := w.call(ctx, method, p, body, nil, w.authorization, true)
	if err != nil {
		return err
	}
	w.remember(a)
	w.track(method, p, a)
	return nil
}

func (w *world) remember(a *answer) {
	w.prev, w.resp = w.resp, a
}

// call sends one request to the target. paced calls wait their turn; a
// burst does not.
func (w *world) call(ctx context.Context, method, path string, body []byte, extra http.Header, authorization string, paced bool) (*answer, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("path %q must start with /", path)
	}
	if paced {
		if err := w.conn.Pace(ctx); err != nil {
			return nil, err
		}
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.conn.BaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	for _, h := range []http.Header{w.header, extra} {
		for k, vs := range h {
			req.Header[k] = append([]string(nil), vs...)
		}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := w.conn.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	a := &answer{req: req, status: resp.StatusCode, header: resp.Header, body: b}
	w.callsMu.Lock()
	if w.recording {
		w.calls = append(w.calls, observe(method, path, a))
	}
	w.callsMu.Unlock()
	return a, nil
}

// burst1 sends one burst: against a target on a running clock, after the
// previous second's calls have left the window (by moving the target's
// clock where it can be moved, else by waiting), all at once; otherwise
// one after another on the target's stopped clock.
func (w *world) burst1(ctx context.Context, n int, p string) ([]*answer, error) {
	answers := make([]*answer, n)
	errs := make([]error, n)
	if w.conn.RunningClock {
		if err := w.conn.Advance(ctx, time.Second+100*time.Millisecond); err != nil {
			return nil, err
		}
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i], errs[i] = w.call(ctx, http.MethodGet, p, nil, nil, w.authorization, false)
			}()
		}
		wg.Wait()
	} else {
		for i := 0; i < n; i++ {
			answers[i], errs[i] = w.call(ctx, http.MethodGet, p, nil, nil, w.authorization, false)
		}
	}
	return answers, errors.Join(errs...)
}

func acceptedAll(answers []*answer) bool {
	for _, a := range answers {
		if a.status/100 != 2 {
			return false
		}
	}
	return true
}

// burstCalls sends n identical calls unpaced, so that they all land within
// one second (see Conn.RunningClock).
func (w *world) burstCalls(ctx context.Context, n int, path string) error {
	p, err := w.expand(path)
	if err != nil {
		return err
	}
	answers, err := w.burst1(ctx, n, p)
	if err != nil {
		return err
	}
	if w.conn.RunningClock && acceptedAll(answers) {
		// A server that counts in windows fixed to the clock's seconds
		// accepts up to twice its limit from a burst that straddles a
		// boundary (CONTRACT.md, "Contract and profile"). Such a burst is
		// short, so a second one, a window later, straddles none: the
		// stricter of the two attempts is the server's limit.
		again, err := w.burst1(ctx, n, p)
		if err != nil {
			return err
		}
		answers = again
	}
	w.burst = answers
	// "The response" after a burst is a refused one when there is one, so
	// the usual checks can look at how the refusal was answered.
	last := answers[n-1]
	for _, a := range answers {
		if a.status/100 != 2 {
			last = a
			break
		}
	}
	w.remember(last)
	return nil
}

// creations says how to undo what a successful call created: the DELETE
// path is built from a field of the answer.
var creations = []struct {
	method, path string
	field        string
	undo         func(id string) (path, key string)
}{
	{"POST", "/tokens", "token.id", func(id string) (string, string) {
		return "/tokens/" + id, "/tokens/" + id
	}},
	{"POST", "/workflow/launch", "workflowId", func(id string) (string, string) {
		return "/workflow/" + id + "?force=true", "/workflow/" + id
	}},
	{"POST", "/trace/create", "workflowId", func(id string) (string, string) {
		return "/workflow/" + id + "?force=true", "/workflow/" + id
	}},
	{"POST", "/compute-envs", "computeEnvId", func(id string) (string, string) {
		return "/compute-envs/" + id, "/compute-envs/" + id
	}},
}

// track keeps the undo list in step with what the scenario creates and
// deletes.
func (w *world) track(method, path string, a *answer) {
	if a.status/100 != 2 {
		return
	}
	route, _, _ := strings.Cut(path, "?")
	if method == http.MethodDelete {
		for i, u := range w.undo {
			if u.key == route {
				w.undo = append(w.undo[:i], w.undo[i+1:]...)
				break
			}
		}
		return
	}
	for _, c := range creations {
		if c.method != method || c.path != route {
			continue
		}
		v, err := field(a.body, c.field)
		if err != nil {
			continue
		}
		if id := scalar(v); id != "" {
			p, key := c.undo(id)
			w.undo = append(w.undo, undoCall{path: p, key: key})
		}
	}
}

var placeholder = regexp.MustCompile(`\{([A-Za-z][A-Za-z0-9_.-]*)\}`)

// expand replaces {name} with a value the scenario saved ({unique} is
// always there). An unknown name is an error: sending it literally would
// test something other than what the scenario says.
func (w *world) expand(s string) (string, error) {
	var missing []string
	out := placeholder.ReplaceAllStringFunc(s, func(m string) string {
		name := m[1 : len(m)-1]
		if v, ok := w.vars[name]; ok {
			return v
		}
		missing = append(missing, name)
		return m
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no saved value named %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func (w *world) response() (*answer, error) {
	if w.resp == nil {
		return nil, errors.New("no call has been made yet")
	}
	return w.resp, nil
}

// uniqueSuffix is random on a shared server, where names must not clash
// with an earlier run's leftovers, and derived from the scenario on a
// disposable one, where the fake's answers then repeat from run to run.
func (r *runner) uniqueSuffix(key string) string {
	b := make([]byte, 6)
	if r.info.Disposable {
		h := fnv.New64a()
		_, _ = h.Write([]byte(key))
		copy(b, h.Sum(nil))
	} else {
		_, _ = rand.Read(b)
	}
	return hex.EncodeToString(b)
}

// excerpt shortens a body for an error message.
func excerpt(b []byte) string {
	const max = 300
	s := strings.Join(strings.Fields(string(b)), " ")
	if s == "" {
		return "(empty body)"
	}
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}
