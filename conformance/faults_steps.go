package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cucumber/godog"
)

// Steps that ask the fake for faults and overrides (docs/faults.md), for
// suites integrators write about their own clients: "the fake answers
// ListWorkflows with status 503 for the next 2 calls", then whatever the
// client does. They speak to the fake's admin API (/_mock/admin/faults and
// /_mock/admin/overrides), so a scenario using them is tagged @fake-only;
// every rule a scenario adds is removed when it ends.

// faultSteps is one scenario's faults: the rules it added, and what the
// last tried call did.
type faultSteps struct {
	w     *world
	rules []string // admin paths of the rules added, to remove
	// tried is the outcome of "I try to ...": an answer or the error of a
	// connection that broke.
	triedErr error
	attempts int
}

func registerFaultSteps(sc *godog.ScenarioContext, w *world) {
	f := &faultSteps{w: w}
	sc.After(f.removeRules)

	// Asking for faults.
	sc.Step(`^the fake answers "([^"]*)" with status (\d+)(?: for the next (\d+) calls?)?$`, f.status)
	sc.Step(`^the fake answers every call with status (\d+) for (\d+) (seconds|minutes)$`, f.outage)
	sc.Step(`^the fake is down for maintenance for (\d+) (seconds|minutes), asking clients to retry after (\d+) seconds$`, f.maintenance)
	sc.Step(`^the fake (drops the connection of|sends an empty reply to|cuts short its answer to|stalls its answer to) the next (\d+) calls? to "([^"]*)"$`, f.connection)
	sc.Step(`^the fake delays "([^"]*)" by (\d+)ms$`, f.delay)
	sc.Step(`^the fake adds the fault:$`, f.fault)

	// Pinning answers.
	sc.Step(`^the fake answers "([^"]*)" with status (\d+) and JSON:$`, f.pin)
	sc.Step(`^the fake adds the override:$`, f.override)
	sc.Step(`^the fake refuses the (fault|override):$`, f.refused)

	// Calls whose connection may break.
	sc.Step(`^I try to (GET|HEAD|DELETE|POST|PUT|PATCH) "([^"]*)"$`, f.try)
	sc.Step(`^the call failed with (a reset connection|an empty reply|an answer cut short|a timeout)$`, f.failedWith)
	sc.Step(`^I GET "([^"]*)" until it succeeds, at most (\d+) times$`, f.retry)
	sc.Step(`^it took (\d+) attempts?$`, f.tookAttempts)
}

func (f *faultSteps) status(op string, status int, times string) error {
	rule := map[string]any{"operation": op, "status": status}
	if times != "" {
		n, _ := strconv.Atoi(times)
		rule["times"] = n
	}
	return f.add("faults", rule)
}

func (f *faultSteps) outage(status int, n int, unit string) error {
	return f.add("faults", map[string]any{"status": status, "for": span(n, unit).String(), "note": "outage"})
}

func (f *faultSteps) maintenance(n int, unit string, retryAfter int) error {
	return f.add("faults", map[string]any{"status": 503, "for": span(n, unit).String(),
		"retryAfter": (time.Duration(retryAfter) * time.Second).String(), "note": "maintenance"})
}

func span(n int, unit string) time.Duration {
	if strings.HasPrefix(unit, "minute") {
		return time.Duration(n) * time.Minute
	}
	return time.Duration(n) * time.Second
}

// The connection faults the steps name, in the admin API's words.
var connectionFaults = map[string]string{
	"drops the connection of":  "reset",
	"sends an empty reply to":  "empty",
	"cuts short its answer to": "cut",
	"stalls its answer to":     "stall",
}

func (f *faultSteps) connection(what string, times int, op string) error {
	return f.add("faults", map[string]any{"operation": op, "connection": connectionFaults[what], "times": times})
}

func (f *faultSteps) delay(op string, ms int) error {
	return f.add("faults", map[string]any{"operation": op, "delay": (time.Duration(ms) * time.Millisecond).String()})
}

func (f *faultSteps) fault(doc *godog.DocString) error { return f.addJSON("faults", doc) }

func (f *faultSteps) override(doc *godog.DocString) error { return f.addJSON("overrides", doc) }

func (f *faultSteps) pin(op string, status int, doc *godog.DocString) error {
	body, err := f.w.expand(doc.Content)
	if err != nil {
		return err
	}
	if !json.Valid([]byte(body)) {
		return fmt.Errorf("the answer to pin is not JSON: %s", excerpt([]byte(body)))
	}
	return f.add("overrides", map[string]any{"operation": op, "status": status, "body": json.RawMessage(body)})
}

// refused checks that the fake refuses a rule with a Bad Request whose
// message ends with an Error ID.
func (f *faultSteps) refused(kind string, doc *godog.DocString) error {
	body, err := f.w.expand(doc.Content)
	if err != nil {
		return err
	}
	status, answer, err := f.admin(context.Background(), http.MethodPost, "/_mock/admin/"+kind+"s", []byte(body))
	if err != nil {
		return err
	}
	if status == http.StatusCreated {
		var e struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(answer, &e) == nil && e.ID != "" {
			f.rules = append(f.rules, "/_mock/admin/"+kind+"s/"+url.PathEscape(e.ID))
		}
		return fmt.Errorf("the fake took the %s: %s", kind, excerpt(answer))
	}
	var m struct {
		Message string `json:"message"`
	}
	if status != http.StatusBadRequest || json.Unmarshal(answer, &m) != nil || !errorMessage.MatchString(m.Message) {
		return fmt.Errorf("the refusal is %d %s, want a Bad Request with an Error ID", status, excerpt(answer))
	}
	return nil
}

func (f *faultSteps) addJSON(kind string, doc *godog.DocString) error {
	body, err := f.w.expand(doc.Content)
	if err != nil {
		return err
	}
	return f.post(kind, []byte(body))
}

func (f *faultSteps) add(kind string, rule map[string]any) error {
	b, err := json.Marshal(rule)
	if err != nil {
		return err
	}
	return f.post(kind, b)
}

// post adds a rule through the fake's admin API and remembers it.
func (f *faultSteps) post(kind string, body []byte) error {
	status, answer, err := f.admin(context.Background(), http.MethodPost, "/_mock/admin/"+kind, body)
	if err != nil {
		return err
	}
	if status != http.StatusCreated {
		return fmt.Errorf("the fake refused the rule: %d %s", status, excerpt(answer))
	}
	var e struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(answer, &e); err != nil || e.ID == "" {
		return fmt.Errorf("the fake's answer names no rule: %s", excerpt(answer))
	}
	f.rules = append(f.rules, "/_mock/admin/"+kind+"/"+url.PathEscape(e.ID))
	return nil
}

// removeRules removes what the scenario added; a rule already spent is
// gone, which is fine.
func (f *faultSteps) removeRules(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	ctx2, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, path := range f.rules {
		_, _, _ = f.admin(ctx2, http.MethodDelete, path, nil)
	}
	f.rules = nil
	return ctx, err
}

// admin calls one of the fake's admin endpoints, which live at the root
// of the base URL's host.
func (f *faultSteps) admin(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	if f.w.conn == nil {
		return 0, nil, errors.New("no target")
	}
	u, err := url.Parse(f.w.conn.BaseURL)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, u.Scheme+"://"+u.Host+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if f.w.conn.AdminToken != "" {
		req.Header.Set("Authorization", "Bearer "+f.w.conn.AdminToken)
	}
	resp, err := f.w.conn.Client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("the fake's admin API (%s %s): %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// freshClient is the target's client, sending every call on a new
// connection: a broken connection is then the call's own outcome, never
// hidden by the transport, which tries a GET again by itself when a
// connection it reused turns out broken.
func (f *faultSteps) freshClient() *http.Client {
	c := *f.w.conn.Client
	t, ok := c.Transport.(*http.Transport)
	if !ok || t == nil {
		t = http.DefaultTransport.(*http.Transport)
	}
	t = t.Clone()
	t.DisableKeepAlives = true
	c.Transport = t
	return &c
}

// try makes one call as the scenario's caller and keeps its outcome,
// an answer or a broken connection, without failing on the latter.
func (f *faultSteps) try(ctx context.Context, method, path string) error {
	f.triedErr = nil
	a, err := f.once(ctx, method, path)
	if err != nil {
		f.triedErr = err
		return nil
	}
	f.w.remember(a)
	return nil
}

func (f *faultSteps) once(ctx context.Context, method, path string) (*answer, error) {
	p, err := f.w.expand(path)
	if err != nil {
		return nil, err
	}
	if err := f.w.conn.Pace(ctx); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, f.w.conn.BaseURL+p, nil)
	if err != nil {
		return nil, err
	}
	if f.w.authorization != "" {
		req.Header.Set("Authorization", f.w.authorization)
	}
	resp, err := f.freshClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, err
	}
	a := &answer{req: req, status: resp.StatusCode, header: resp.Header, body: b}
	f.w.callsMu.Lock()
	if f.w.recording {
		f.w.calls = append(f.w.calls, observe(method, p, a))
	}
	f.w.callsMu.Unlock()
	return a, nil
}

// failedWith checks how the tried call's connection broke, by the error
// net/http reports for it.
func (f *faultSteps) failedWith(how string) error {
	err := f.triedErr
	if err == nil {
		if f.w.resp != nil {
			return fmt.Errorf("the call was answered: %s", f.w.resp)
		}
		return errors.New("no call was tried")
	}
	var ne net.Error
	ok := false
	switch how {
	case "a reset connection":
		ok = errors.Is(err, syscall.ECONNRESET)
	case "an empty reply":
		ok = errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET)
	case "an answer cut short":
		ok = errors.Is(err, io.ErrUnexpectedEOF)
	case "a timeout":
		ok = errors.As(err, &ne) && ne.Timeout()
	}
	if !ok {
		return fmt.Errorf("the call failed with %v, not %s", err, how)
	}
	return nil
}

// retry calls until an answer that is not one a client retries comes
// back: as the service's Terraform provider's SDK does by default, it
// retries 429, 502, 503 and 504 and a connection that broke before an
// answer (its waits between attempts left out: the scenario is about
// what the server does).
func (f *faultSteps) retry(ctx context.Context, path string, most int) error {
	f.attempts = 0
	var last error
	for f.attempts < most {
		f.attempts++
		a, err := f.once(ctx, http.MethodGet, path)
		if err != nil {
			var ne net.Error
			if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.As(err, &ne) && ne.Timeout() {
				last = err
				continue
			}
			return err
		}
		f.w.remember(a)
		if !slices.Contains([]int{429, 502, 503, 504}, a.status) {
			return nil
		}
		last = fmt.Errorf("status %d", a.status)
	}
	return fmt.Errorf("GET %s did not succeed in %d attempts; the last: %v", path, most, last)
}

func (f *faultSteps) tookAttempts(n int) error {
	if f.attempts != n {
		return fmt.Errorf("it took %d attempts, not %d", f.attempts, n)
	}
	return nil
}
