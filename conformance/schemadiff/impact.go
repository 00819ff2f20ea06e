package schemadiff

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/internal/oasdoc"
)

// User is something that calls operations of the old document: a
// conformance scenario, or one call of a user's traffic. Any record of
// traffic becomes users through Requests (a journal of the fake, or a
// recording in a format of its own: turn each entry into a Request and
// hand them to old.Requests).
type User struct {
	// Name says which scenario or call it is: "tokens.feature: A token's
	// value is shown only when it is created", "GET /api/workflow/4dF...".
	Name string
	// Operations are the operations it calls, as "METHOD path template" of
	// the old document.
	Operations []string
}

// Affected is one user and the changes that reach it.
type Affected struct {
	Name    string   `json:"name"`
	Changes []Change `json:"changes"`
}

// Impact is which users a report's changes reach.
type Impact struct {
	// Source says where the users came from (a run, a journal file).
	Source string `json:"source"`
	// Checked is how many users were looked at.
	Checked int `json:"checked"`
	// Affected are the users one of whose operations has a change of at
	// least Min, in the order they were given.
	Affected []Affected `json:"affected"`
	// Min is the least severity counted (review: breaking changes and
	// those that need review).
	Min Severity `json:"min"`
	// Unmatched counts calls that addressed no operation of the old
	// document (an unknown path, a refused call): they cannot be judged.
	Unmatched int `json:"unmatched,omitempty"`
	// Failed names the scenarios that failed in the run their operations
	// came from (against the fake serving the old document): their calls
	// still count, but a suite that does not pass on the old document is
	// worth knowing before its changes are trusted.
	Failed []string `json:"failed,omitempty"`
}

// Affect says which users call an operation with a change of severity min
// or more, and which changes those are.
func (r *Report) Affect(source string, users []User, min Severity) *Impact {
	byOp := r.byOperation(min)
	imp := &Impact{Source: source, Checked: len(users), Min: min, Affected: []Affected{}}
	for _, u := range users {
		var hit []Change
		for _, op := range u.Operations {
			hit = append(hit, byOp[op]...)
		}
		if len(hit) > 0 {
			imp.Affected = append(imp.Affected, Affected{Name: u.Name, Changes: hit})
		}
	}
	return imp
}

// Scenarios turns a conformance run into users: one per scenario that
// called at least one operation of the run's document. The run should be
// made on the old document, so that its operations are the old ones.
func Scenarios(res *conformance.Result) []User {
	var out []User
	for _, s := range res.Scenarios {
		if len(s.Operations) == 0 {
			continue
		}
		out = append(out, User{Name: scenarioName(s), Operations: s.Operations})
	}
	return out
}

// FailedScenarios names the scenarios of a run that failed, as Scenarios
// names them (Impact.Failed).
func FailedScenarios(res *conformance.Result) []string {
	var out []string
	for _, s := range res.Scenarios {
		if s.Status == conformance.Failed {
			out = append(out, scenarioName(s))
		}
	}
	return out
}

// scenarioName is "file.feature: name".
func scenarioName(s conformance.ScenarioResult) string {
	if s.URI == "" {
		return s.Name
	}
	return baseName(s.URI) + ": " + s.Name
}

// ReadResult reads a conformance result saved as JSON (the Result type
// encoded with encoding/json).
func ReadResult(r io.Reader) (*conformance.Result, error) {
	var res conformance.Result
	if err := json.NewDecoder(r).Decode(&res); err != nil {
		return nil, fmt.Errorf("not a conformance result: %w", err)
	}
	if len(res.Scenarios) == 0 {
		return nil, fmt.Errorf("not a conformance result: no scenarios")
	}
	return &res, nil
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Request is one call of a user's traffic, whatever recorded it.
type Request struct {
	Method string `json:"method"`
	// Path is the path as sent, with or without the API's base path and
	// query.
	Path string `json:"path"`
	// Operation is the operationId the call was routed to, when the
	// recorder knew it; otherwise the call is routed here by its path.
	Operation string `json:"operation,omitempty"`
}

// ReadJournal reads the fake's request journal as GET
// /_mock/admin/requests answers it ({"requests": [...]}), or a bare array
// of its entries.
func ReadJournal(r io.Reader) ([]Request, error) {
	b, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		return nil, err
	}
	var wrapped struct {
		Requests *[]Request `json:"requests"`
	}
	if err := json.Unmarshal(b, &wrapped); err == nil && wrapped.Requests != nil {
		return *wrapped.Requests, nil
	}
	var bare []Request
	if err := json.Unmarshal(b, &bare); err != nil {
		return nil, fmt.Errorf("not a request journal (the JSON of GET /_mock/admin/requests): %w", err)
	}
	return bare, nil
}

// ReadJournalFile is ReadJournal on a file.
func ReadJournalFile(path string) ([]Request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	reqs, err := ReadJournal(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return reqs, nil
}

// Requests turns calls into users of s, one per distinct method and path
// (a journal repeats the same call many times), in the order first seen.
// A call names its operation by operationId when it has one that s knows;
// otherwise by its path, matched against s's templates with any leading
// segments the templates do not have (a base path such as /api) left out.
// Calls that match no operation are counted, not listed.
func (s *Spec) Requests(reqs []Request) (users []User, unmatched int) {
	byID, router, templates := s.operations()
	seen := map[string]bool{}
	for _, rq := range reqs {
		method := strings.ToUpper(rq.Method)
		path := rq.Path
		if u, err := url.Parse(path); err == nil {
			path = u.EscapedPath()
		}
		key := method + " " + path
		if seen[key] {
			continue
		}
		seen[key] = true
		op, ok := byID[rq.Operation]
		if !ok || rq.Operation == "" || !strings.EqualFold(strings.Fields(op)[0], method) {
			op, ok = route(router, templates, method, path)
		}
		if !ok {
			unmatched++
			continue
		}
		users = append(users, User{Name: key, Operations: []string{op}})
	}
	return users, unmatched
}

// operations indexes s's operations by operationId and by path.
func (s *Spec) operations() (map[string]string, *oasdoc.Router, []string) {
	byID := map[string]string{}
	router := &oasdoc.Router{}
	var templates []string
	doc := s.info.Spec
	if doc.Paths == nil {
		return byID, router, nil
	}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, p := range paths {
		item := doc.Paths.Value(p)
		for method, op := range item.Operations() {
			key := strings.ToUpper(method) + " " + p
			if op.OperationID != "" {
				byID[op.OperationID] = key
			}
			if i, err := router.Add(strings.ToUpper(method), p); err == nil {
				for len(templates) <= i {
					templates = append(templates, "")
				}
				templates[i] = key
			}
		}
	}
	return byID, router, templates
}

// route finds the operation a path addresses, trying it as sent and then
// without one leading segment after another.
func route(r *oasdoc.Router, templates []string, method, path string) (string, bool) {
	for {
		if i, _, ok := r.Find(method, path); ok && i < len(templates) && templates[i] != "" {
			return templates[i], true
		}
		rest := strings.TrimPrefix(path, "/")
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return "", false
		}
		path = rest[j:]
	}
}
