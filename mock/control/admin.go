package control

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/ring"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/leniency"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
)

// The admin endpoints change or reveal the fake's state: reset it to the
// seed, move its clock, force a workflow's status, and show tokens (never
// their values), recent requests and rate-limit counters. Since they can
// wipe a shared fake, they answer only calls from loopback, unless an admin
// token is configured; then they answer any caller presenting it.

// AdminPrefix is where the admin endpoints live.
const AdminPrefix = "/_mock/admin/"

// Errors an AdminBackend returns for the answers they stand for.
var (
	ErrNotFound = errors.New("not found")
	ErrInvalid  = errors.New("invalid")
)

// AdminBackend is what the admin endpoints need from the server. A Backend
// that also implements it gets the endpoints.
type AdminBackend interface {
	// AdminToken is the token admin calls must present; "" means admin
	// calls are accepted from loopback only.
	AdminToken() string
	// ResetState puts records and tokens back to what the fake started with.
	ResetState() error
	// AdvanceClock moves the fake's clock forward and returns the new time.
	AdvanceClock(d time.Duration) (time.Time, error)
	// Now is the fake's current time.
	Now() time.Time
	// SetWorkflowStatus forces a run's status now and/or the status it will
	// end in, and returns the status it shows now. It fails with
	// ErrNotFound or ErrInvalid.
	SetWorkflowStatus(id, status, endStatus string) (string, error)
	// TokenInfos lists the tokens, without values. It fails when a
	// shared token store (Redis) does not answer.
	TokenInfos() ([]TokenInfo, error)
	// RecentRequests returns up to n journal entries, newest first.
	RecentRequests(n int) []RequestEntry
	// RateCounters is the limiter's snapshot. It fails when shared
	// counters (Redis) cannot be read.
	RateCounters() ([]ratelimit.Counter, error)
	// SaveState writes the state file now (a no-op without one).
	SaveState() error
	// CacheStats reports the server's caches: entries, limits, hits and
	// misses.
	CacheStats() []memo.Stat
}

// TokenInfo is what the admin API shows of a token: never its value.
type TokenInfo struct {
	ID       int64      `json:"id"`
	Name     string     `json:"name"`
	Created  time.Time  `json:"created"`
	Expires  *time.Time `json:"expires,omitempty"`
	LastUsed *time.Time `json:"lastUsed"`
	Revoked  bool       `json:"revoked,omitempty"`
	// Configured marks the tokens the fake was started with, which
	// DELETE /tokens/delete-all leaves in place.
	Configured bool `json:"configured"`
}

// RequestEntry is one call in the request journal. It holds no header at
// all, so an Authorization value can never end up in it.
type RequestEntry struct {
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Operation is the operationId the call was routed to; empty when it
	// was refused before routing or addressed no operation.
	Operation string `json:"operation,omitempty"`
	Status    int    `json:"status"`
	ErrorID   string `json:"errorId,omitempty"`
	// Reason says why the call was refused (or failed), as the log does:
	// a 403 carries no Error ID to look up at /_mock/errors.
	Reason    string  `json:"reason,omitempty"`
	LatencyMS float64 `json:"latencyMs"`
	// Extension names the call beyond the published schema the request
	// addressed (an OpenID sign-in, a Fusion license, a session refresh),
	// whether it was answered or refused (strict mode, a profile switch).
	Extension string `json:"extension,omitempty"`
	// Deviations are where the body differed from the document and the
	// fake read it as the service does (or, refused, why: the same list
	// is under the Error ID). MoreDeviations counts those past the list.
	Deviations     []leniency.Deviation `json:"deviations,omitempty"`
	MoreDeviations int                  `json:"moreDeviations,omitempty"`
	// Injected are the fault and the override that acted on the call,
	// when a test asked for them (mock/faults).
	Injected []Injection `json:"injected,omitempty"`
}

// Injection is a fault or override that acted on a call: which rule, its
// how-manieth use, and what it did ("delay 200ms, then status 503",
// "connection reset", "status 200").
type Injection struct {
	Rule   string `json:"rule"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
	Hit    int64  `json:"hit"`
	What   string `json:"what"`
	Note   string `json:"note,omitempty"`
}

// RequestJournal keeps the most recent calls, bounded.
type RequestJournal struct {
	mu   sync.Mutex
	ring *ring.Buffer[RequestEntry]
}

// NewRequestJournal returns a journal holding at most capacity entries.
func NewRequestJournal(capacity int) *RequestJournal {
	return &RequestJournal{ring: ring.New[RequestEntry](capacity)}
}

// Add records one call.
func (j *RequestJournal) Add(e RequestEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ring.Add(e)
}

// Recent returns up to n entries (all when n <= 0), newest first.
func (j *RequestJournal) Recent(n int) []RequestEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ring.Recent(n)
}

type admin struct{ b AdminBackend }

func registerAdmin(r *mux.Router, b AdminBackend) {
	a := &admin{b: b}
	sub := r.PathPrefix(strings.TrimSuffix(AdminPrefix, "/")).Subrouter()
	sub.Use(a.guard)
	sub.HandleFunc("/reset", a.reset).Methods(http.MethodPost)
	sub.HandleFunc("/clock", a.clock).Methods(http.MethodGet)
	sub.HandleFunc("/clock/advance", a.advance).Methods(http.MethodPost)
	sub.HandleFunc("/workflows/{id}/status", a.workflowStatus).Methods(http.MethodPost, http.MethodPut)
	sub.HandleFunc("/tokens", a.tokens).Methods(http.MethodGet)
	sub.HandleFunc("/requests", a.requests).Methods(http.MethodGet)
	sub.HandleFunc("/ratelimit", a.rateLimit).Methods(http.MethodGet)
	sub.HandleFunc("/state/save", a.save).Methods(http.MethodPost)
	sub.HandleFunc("/caches", a.caches).Methods(http.MethodGet)
	if rb, ok := b.(RulesBackend); ok {
		registerRules(sub, rb) // rules.go: faults and overrides
	}
	if sb, ok := b.(SessionBackend); ok {
		sub.HandleFunc("/sessions", (&sessions{b: sb}).create).Methods(http.MethodPost)
	}
}

// SessionBackend mints sessions: the access token (a JWT) and refresh
// token the service gives a run it launches.
type SessionBackend interface {
	// NewSession mints a session of the fake's dev token. It fails when
	// the profile's refresh_token extension is off or in strict mode,
	// where no client could refresh it.
	NewSession() (access, refresh string, expires time.Time, err error)
	BasePath() string
}

type sessions struct{ b SessionBackend }

// create answers a new session, with the environment the service sets for
// the Nextflow it starts: started by hand with it, Nextflow reports to the
// fake as a run the service launched, and refreshes its token through the
// fake when it expires.
func (s *sessions) create(w http.ResponseWriter, r *http.Request) {
	var body struct {
		WorkflowID  string `json:"workflowId"`
		WorkspaceID string `json:"workspaceId"`
	}
	if r.ContentLength != 0 {
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body); err != nil {
			writeJSON(w, http.StatusBadRequest, message("sessions: the body must be a JSON object with optional workflowId and workspaceId: "+err.Error()))
			return
		}
	}
	access, refresh, expires, err := s.b.NewSession()
	if err != nil {
		writeJSON(w, http.StatusConflict, message("sessions: "+err.Error()))
		return
	}
	env := map[string]string{
		"TOWER_API_ENDPOINT":  handler.Origin(r) + s.b.BasePath(),
		"TOWER_ACCESS_TOKEN":  access,
		"TOWER_REFRESH_TOKEN": refresh,
	}
	if body.WorkflowID != "" {
		env["TOWER_WORKFLOW_ID"] = body.WorkflowID
	}
	if body.WorkspaceID != "" {
		env["TOWER_WORKSPACE_ID"] = body.WorkspaceID
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"accessToken": access, "refreshToken": refresh, "expiresAt": expires.UTC().Format(time.RFC3339), "env": env,
	})
}

// guard lets a call through from loopback, or from anywhere with the admin
// token when one is set.
func (a *admin) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token := a.b.AdminToken(); token != "" {
			got := []byte(r.Header.Get("Authorization"))
			if subtle.ConstantTimeCompare(got, []byte("Bearer "+token)) != 1 {
				writeJSON(w, http.StatusForbidden, message("admin endpoints need the admin token (Authorization: Bearer <admin-token>)"))
				return
			}
		} else if !fromLoopback(r) {
			writeJSON(w, http.StatusForbidden, message("admin endpoints answer loopback callers only; start the fake with --admin-token to open them"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (a *admin) reset(w http.ResponseWriter, _ *http.Request) {
	if err := a.b.ResetState(); err != nil {
		writeJSON(w, http.StatusInternalServerError, message("reset: "+err.Error()))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "reset"})
}

type clockBody struct {
	Now string `json:"now"`
}

func (a *admin) clock(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, clockBody{Now: a.b.Now().UTC().Format(time.RFC3339Nano)})
}

func (a *admin) advance(w http.ResponseWriter, r *http.Request) {
	by := r.URL.Query().Get("by")
	d, err := time.ParseDuration(by)
	if err != nil || d <= 0 {
		writeJSON(w, http.StatusBadRequest, message("?by= needs a positive Go duration such as 30s, 10m or 1h30m; got "+strconv.Quote(by)))
		return
	}
	now, err := a.b.AdvanceClock(d)
	if err != nil {
		writeJSON(w, http.StatusConflict, message(err.Error()))
		return
	}
	writeJSON(w, http.StatusOK, clockBody{Now: now.UTC().Format(time.RFC3339Nano)})
}

type statusBody struct {
	ID        string `json:"id,omitempty"`
	Status    string `json:"status,omitempty"`
	EndStatus string `json:"endStatus,omitempty"`
}

// workflowStatus takes {"status": "FAILED"} (hold that status from now
// on) and/or {"endStatus": "FAILED"} (how the run will end), in the body
// or as query parameters.
func (a *admin) workflowStatus(w http.ResponseWriter, r *http.Request) {
	var in statusBody
	if r.Body != nil && r.ContentLength != 0 {
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil {
			writeJSON(w, http.StatusBadRequest, message("body must be {\"status\": ..., \"endStatus\": ...}: "+err.Error()))
			return
		}
	}
	q := r.URL.Query()
	if v := q.Get("status"); v != "" {
		in.Status = v
	}
	if v := q.Get("endStatus"); v != "" {
		in.EndStatus = v
	}
	in.Status, in.EndStatus = strings.ToUpper(in.Status), strings.ToUpper(in.EndStatus)
	if in.Status == "" && in.EndStatus == "" {
		writeJSON(w, http.StatusBadRequest, message("give status and/or endStatus"))
		return
	}
	id := mux.Vars(r)["id"]
	now, err := a.b.SetWorkflowStatus(id, in.Status, in.EndStatus)
	switch {
	case errors.Is(err, ErrNotFound):
		writeJSON(w, http.StatusNotFound, message("no workflow "+id))
	case errors.Is(err, ErrInvalid):
		writeJSON(w, http.StatusBadRequest, message(err.Error()))
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, message(err.Error()))
	default:
		writeJSON(w, http.StatusOK, statusBody{ID: id, Status: now, EndStatus: in.EndStatus})
	}
}

func (a *admin) tokens(w http.ResponseWriter, _ *http.Request) {
	tokens, err := a.b.TokenInfos()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, message("tokens: "+err.Error()))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": tokens})
}

// requests lists recent calls, newest first: ?n= of them (100 by
// default), and with ?deviations=true only the calls whose body differed
// from the document.
func (a *admin) requests(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n := 100
	if v := q.Get("n"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			writeJSON(w, http.StatusBadRequest, message("?n= needs a positive number"))
			return
		}
	}
	onlyDeviating := false
	if v := q.Get("deviations"); v != "" {
		var err error
		if onlyDeviating, err = strconv.ParseBool(v); err != nil {
			writeJSON(w, http.StatusBadRequest, message("?deviations= needs true or false"))
			return
		}
	}
	if !onlyDeviating {
		writeJSON(w, http.StatusOK, map[string]any{"requests": a.b.RecentRequests(n)})
		return
	}
	out := []RequestEntry{}
	for _, e := range a.b.RecentRequests(0) {
		if len(e.Deviations) > 0 && len(out) < n {
			out = append(out, e)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"requests": out})
}

type windowUse struct {
	Window string `json:"window"`
	Limit  int    `json:"limit"`
	Used   int    `json:"used"`
}

type counterBody struct {
	Key     string      `json:"key"`
	Windows []windowUse `json:"windows"`
}

func (a *admin) rateLimit(w http.ResponseWriter, _ *http.Request) {
	counters, err := a.b.RateCounters()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, message("rate counters: "+err.Error()))
		return
	}
	out := []counterBody{}
	for _, c := range counters {
		cb := counterBody{Key: c.Key, Windows: []windowUse{}}
		for i, win := range c.Windows {
			used := 0
			if i < len(c.Used) {
				used = c.Used[i]
			}
			cb.Windows = append(cb.Windows, windowUse{Window: win.String(), Limit: win.Limit, Used: used})
		}
		out = append(out, cb)
	}
	writeJSON(w, http.StatusOK, map[string]any{"counters": out})
}

// stateFiler is an AdminBackend that says where SaveState writes.
type stateFiler interface{ StateFile() string }

func (a *admin) save(w http.ResponseWriter, _ *http.Request) {
	file := ""
	if sf, ok := a.b.(stateFiler); ok {
		if file = sf.StateFile(); file == "" {
			// Saying "saved" here would let a user believe the state
			// survives a restart.
			writeJSON(w, http.StatusConflict, message("nothing to save: the fake keeps its state in memory (or in Redis with --store); start it with --state-file FILE to save it"))
			return
		}
	}
	if err := a.b.SaveState(); err != nil {
		writeJSON(w, http.StatusInternalServerError, message("saving state: "+err.Error()))
		return
	}
	body := map[string]string{"status": "saved"}
	if file != "" {
		body["file"] = file
	}
	writeJSON(w, http.StatusOK, body)
}

func (a *admin) caches(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"caches": a.b.CacheStats()})
}
