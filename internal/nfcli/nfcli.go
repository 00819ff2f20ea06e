// Package nfcli replays what Nextflow's own commands for the service do
// (plugin nf-tower: AuthCommandImpl for "nextflow auth status",
// LaunchCommandImpl for "nextflow launch", with the TowerClient and
// BaseCommandImpl helpers they share): the calls in their order, with the
// headers and bodies Nextflow builds, and what each command reads from the
// answers, so a test can tell whether a user of the command gets through.
// It is for tests, as internal/nftrace is for run reporting.
//
// The facts come from reading the client's source (nextflow-io/nextflow);
// the code is this project's own.
package nfcli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/wmsmock/wmsmock/internal/nftrace"
)

// PollInterval is how long "nextflow launch" waits between two polls of a
// run (LOG_POLL_INTERVAL_MS), and GracePeriod how long it keeps polling
// once the run has a final status, for the last log lines
// (LOG_GRACE_PERIOD_MS).
const (
	PollInterval = 2 * time.Second
	GracePeriod  = 5 * time.Second
)

// FinalStatuses end the launch command's polling.
var FinalStatuses = []string{"SUCCEEDED", "FAILED", "CANCELLED", "UNKNOWN", "ABORTED"}

// MaxPolls bounds a replayed launch's polling, so a run that never ends
// fails the check instead of hanging the test.
const MaxPolls = 1000

// Client makes Nextflow's calls through Send with its token.
type Client struct {
	Send  nftrace.Send
	Token string
}

// get is TowerClient.apiGet: a GET with the token, the query appended,
// the answer a JSON object (anything else fails the command).
func (c Client) get(path string, query url.Values) (map[string]any, error) {
	return c.do(http.MethodGet, path, query, nil, true)
}

func (c Client) do(method, path string, query url.Values, body any, withToken bool) (map[string]any, error) {
	call := nftrace.Call{Step: method + " " + path, Method: method, Path: path, Header: http.Header{}}
	if len(query) > 0 {
		call.Path += "?" + query.Encode()
	}
	if withToken {
		call.Header.Set("Authorization", nftrace.Authorization(c.Token))
	}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		call.Body = b
		call.Header.Set("Content-Type", "application/json")
	}
	status, out, err := c.Send(call)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", method, call.Path, err)
	}
	if status/100 != 2 {
		return nil, fmt.Errorf("%s %s: HTTP %d %.300s", method, call.Path, status, out)
	}
	if len(out) == 0 {
		return map[string]any{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("%s %s: the answer is not a JSON object: %.200s", method, call.Path, out)
	}
	return m, nil
}

// userInfo is TowerClient.getUserInfo: the user object of GET /user-info.
func (c Client) userInfo() (map[string]any, error) {
	m, err := c.get("/user-info", nil)
	if err != nil {
		return nil, err
	}
	u, ok := m["user"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("GET /user-info: no user object: %v", m)
	}
	return u, nil
}

// workspaces is BaseCommandImpl.listUserWorkspaces: the entries of
// GET /user/{userId}/workspaces that name a workspace (organization
// entries have none).
func (c Client) workspaces(userID string) ([]map[string]any, error) {
	m, err := c.get("/user/"+userID+"/workspaces", nil)
	if err != nil {
		return nil, err
	}
	list, ok := m["orgsAndWorkspaces"].([]any)
	if !ok {
		return nil, fmt.Errorf("GET /user/%s/workspaces: orgsAndWorkspaces is not a list: %v", userID, m["orgsAndWorkspaces"])
	}
	var out []map[string]any
	for _, e := range list {
		if w, ok := e.(map[string]any); ok && w["workspaceId"] != nil {
			out = append(out, w)
		}
	}
	return out, nil
}

// computeEnvs is BaseCommandImpl.listComputeEnvironments.
func (c Client) computeEnvs(workspaceID string) ([]any, error) {
	q := url.Values{}
	if workspaceID != "" {
		q.Set("workspaceId", workspaceID)
	}
	m, err := c.get("/compute-envs", q)
	if err != nil {
		return nil, err
	}
	l, _ := m["computeEnvs"].([]any)
	return l, nil
}

// Status is what "nextflow auth status" shows.
type Status struct {
	// Connection: GET /service-info without a token answered 200.
	Connection bool
	// UserName is the authenticated user ("" when the check failed).
	UserName string
	// Workspace is the default workspace's entry ("Default workspace"
	// with its organization and roles), nil without one.
	Workspace map[string]any
	// ComputeEnv is the primary compute environment (or the configured
	// one), nil when the workspace has none; WorkDir its work directory.
	ComputeEnv map[string]any
	WorkDir    string
	// Problems are what the command would show as errors.
	Problems []string
}

// AuthStatus replays "nextflow auth status" with tower.workspaceId set to
// workspaceID ("" for none): the connection check without a token, the
// token's user, the workspace's details and its primary compute
// environment (AuthCommandImpl.collectStatus).
func (c Client) AuthStatus(workspaceID string) Status {
	var st Status
	// checkApiConnection: a plain GET, no Authorization header.
	if _, err := c.do(http.MethodGet, "/service-info", nil, nil, false); err != nil {
		st.Problems = append(st.Problems, "API connection ERROR: "+err.Error())
	} else {
		st.Connection = true
	}
	u, err := c.userInfo()
	if err != nil {
		st.Problems = append(st.Problems, "Authentication: connection check failed: "+err.Error())
		return st
	}
	st.UserName, _ = u["userName"].(string)
	if st.UserName == "" {
		st.Problems = append(st.Problems, fmt.Sprintf("Authentication: user-info has no userName: %v", u))
	}
	if workspaceID != "" {
		// TowerClient.getUserWorkspaceDetails
		wss, err := c.workspaces(idText(u["id"]))
		if err != nil {
			st.Problems = append(st.Problems, "Default workspace: "+err.Error())
		}
		for _, w := range wss {
			if idText(w["workspaceId"]) == workspaceID {
				st.Workspace = w
			}
		}
		if st.Workspace == nil {
			st.Problems = append(st.Problems, "Default workspace "+workspaceID+": not among the user's workspaces")
		} else if _, ok := st.Workspace["roles"].([]any); !ok {
			st.Problems = append(st.Problems, fmt.Sprintf("Default workspace %s: roles is not a list: %v", workspaceID, st.Workspace["roles"]))
		}
	}
	ces, err := c.computeEnvs(workspaceID)
	if err != nil {
		st.Problems = append(st.Problems, "Compute Environment: Error fetching: "+err.Error())
		return st
	}
	for _, e := range ces {
		if ce, ok := e.(map[string]any); ok && ce["primary"] == true {
			st.ComputeEnv = ce
			st.WorkDir, _ = ce["workDir"].(string)
		}
	}
	return st
}

// Launch is one "nextflow launch" command line.
type Launch struct {
	// Pipeline is the repository URL (Nextflow resolves a name to one
	// before it calls the service).
	Pipeline string
	// Workspace is -workspace: a workspace's name, looked up among the
	// user's workspaces; "" launches in the personal context.
	Workspace string
	RunName   string
	Revision  string
}

// Launched is what the launch command did and printed.
type Launched struct {
	WorkflowID string
	// RunName is what the command printed after launching (from the
	// run's describe).
	RunName string
	// Printed are the log lines printed, in order.
	Printed []string
	// Statuses are the statuses the spinner showed, each change once.
	Statuses []string
	// Final is the final status printed ("" when polling never ended).
	Final string
	// Polls counts the polling rounds.
	Polls    int
	Problems []string
}

// Launch replays "nextflow launch": it resolves -workspace by name
// through the user's workspaces, takes the primary compute environment
// and its work directory from the list of environments, launches, reads
// the run, then polls its describe and its log every PollInterval on
// wait's clock, printing the log entries past those it printed (by count,
// as the command does), until GracePeriod after a final status.
func (c Client) Launch(l Launch, wait func(time.Duration)) Launched {
	var out Launched
	fail := func(format string, args ...any) Launched {
		out.Problems = append(out.Problems, fmt.Sprintf(format, args...))
		return out
	}
	// resolveWorkspaceId, then initializeLaunchContext.
	workspaceID := ""
	if l.Workspace != "" {
		u, err := c.userInfo()
		if err != nil {
			return fail("resolving the workspace: %v", err)
		}
		wss, err := c.workspaces(idText(u["id"]))
		if err != nil {
			return fail("resolving the workspace: %v", err)
		}
		for _, w := range wss {
			if w["workspaceName"] == l.Workspace {
				workspaceID = idText(w["workspaceId"])
				break
			}
		}
		if workspaceID == "" {
			return fail("Workspace '%s' not found", l.Workspace)
		}
	}
	if _, err := c.userInfo(); err != nil {
		return fail("%v", err)
	}
	ces, err := c.computeEnvs(workspaceID)
	if err != nil {
		return fail("Failed to get compute environments: %v", err)
	}
	var ce map[string]any
	for _, e := range ces {
		if m, ok := e.(map[string]any); ok && m["primary"] == true {
			ce = m
			break
		}
	}
	if ce == nil {
		return fail("No primary compute environment found")
	}
	workDir, _ := ce["workDir"].(string)
	if workDir == "" {
		return fail("Work directory is required: the primary compute environment %v has no workDir in the list", ce["id"])
	}
	q := url.Values{}
	if workspaceID != "" {
		q.Set("workspaceId", workspaceID)
	}
	launch := map[string]any{"computeEnvId": ce["id"], "workDir": workDir, "pipeline": l.Pipeline,
		"resume": false, "pullLatest": nil, "stubRun": nil}
	if l.RunName != "" {
		launch["runName"] = l.RunName
	}
	if l.Revision != "" {
		launch["revision"] = l.Revision
	}
	resp, err := c.do(http.MethodPost, "/workflow/launch", q, map[string]any{"launch": launch}, true)
	if err != nil {
		return fail("Failed to launch workflow: %v", err)
	}
	out.WorkflowID, _ = resp["workflowId"].(string)
	if out.WorkflowID == "" {
		return fail("the launch answered no workflowId: %v", resp)
	}
	d, err := c.get("/workflow/"+out.WorkflowID, q)
	if err != nil {
		return fail("%v", err)
	}
	if wf, ok := d["workflow"].(map[string]any); ok {
		out.RunName, _ = wf["runName"].(string)
	}
	// runLogPollingLoop
	var finishedAt time.Duration
	var elapsed time.Duration
	finished := false
	for out.Polls = 1; out.Polls <= MaxPolls; out.Polls++ {
		d, err := c.get("/workflow/"+out.WorkflowID, q)
		if err != nil {
			// The command logs the error and polls again.
			out.Problems = append(out.Problems, "Error polling workflow logs: "+err.Error())
		}
		status := ""
		if wf, ok := d["workflow"].(map[string]any); ok {
			status, _ = wf["status"].(string)
		}
		lg, err := c.get("/workflow/"+out.WorkflowID+"/log", q)
		if err != nil {
			out.Problems = append(out.Problems, "Error polling workflow logs: "+err.Error())
		} else if entries, err := logEntries(lg); err != nil {
			out.Problems = append(out.Problems, "Error polling workflow logs: "+err.Error())
		} else if len(entries) > len(out.Printed) {
			if !slices.Equal(entries[:len(out.Printed)], out.Printed) {
				out.Problems = append(out.Problems, fmt.Sprintf("poll %d: the log no longer begins with the %d entries printed before; printing by count shows %q",
					out.Polls, len(out.Printed), entries[len(out.Printed):]))
			}
			out.Printed = append(out.Printed, entries[len(out.Printed):]...)
		}
		if status != "" && (len(out.Statuses) == 0 || out.Statuses[len(out.Statuses)-1] != status) {
			out.Statuses = append(out.Statuses, status)
		}
		if status != "" && slices.Contains(FinalStatuses, status) && !finished {
			finished, finishedAt, out.Final = true, elapsed, status
		}
		if finished && elapsed-finishedAt > GracePeriod {
			return out
		}
		wait(PollInterval)
		elapsed += PollInterval
	}
	return fail("the run did not reach a final status in %d polls (statuses %v)", MaxPolls, out.Statuses)
}

// logEntries reads log.entries as the command does (a list of strings);
// anything else makes every poll fail.
func logEntries(m map[string]any) ([]string, error) {
	lg, _ := m["log"].(map[string]any)
	if lg == nil || lg["entries"] == nil {
		return nil, nil
	}
	list, ok := lg["entries"].([]any)
	if !ok {
		return nil, fmt.Errorf("log.entries is not a list of strings: %.200v", lg["entries"])
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("log.entries[%d] is not a string: %v", i, e)
		}
		out[i] = s
	}
	return out, nil
}

// idText is an id as Groovy's toString gives it: a JSON number without a
// fraction, or the text.
func idText(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatInt(int64(x), 10)
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
