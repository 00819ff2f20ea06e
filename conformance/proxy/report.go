package proxy

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/internal/report"
)

// Directions of a violation.
const (
	Request  = "request"
	Response = "response"
)

// maxDistinct bounds the distinct violations a report keeps; past it they
// are only counted, so a long session's report stays small.
const maxDistinct = 1000

// Violation is one thing the document rejects in a call or its answer.
type Violation struct {
	Operation string `json:"operation"`
	Direction string `json:"direction"`
	// Where is the place in the body (or the parameter) the problem is at,
	// when the validator names one.
	Where   string `json:"where,omitempty"`
	Message string `json:"message"`
	// Unchecked: the body was over the capture limit and was not checked.
	Unchecked bool `json:"unchecked,omitempty"`
	// Count is how many calls had it (in a Report).
	Count int `json:"count,omitempty"`
}

// located finds the places the validator's line names: "[loc: why]".
var located = regexp.MustCompile(`\[([^\]:]+): ([^\]]*)\]`)

// newViolations splits one line of the validator into one violation per
// place in the body it names, so the report counts each field apart.
func newViolations(op, direction, msg string) []Violation {
	var out []Violation
	for _, m := range located.FindAllStringSubmatch(msg, -1) {
		out = append(out, Violation{Operation: op, Direction: direction, Where: m[1], Message: m[2]})
	}
	if len(out) == 0 {
		out = append(out, Violation{Operation: op, Direction: direction, Message: msg})
	}
	return out
}

// OperationStats counts the calls to one operation.
type OperationStats struct {
	Operation string `json:"operation"`
	Calls     int    `json:"calls"`
	// RequestViolations and ResponseViolations count the calls whose request
	// (answer) the document rejects.
	RequestViolations  int            `json:"requestViolations"`
	ResponseViolations int            `json:"responseViolations"`
	Statuses           map[string]int `json:"statuses"`
}

// Report is what a session has shown so far.
type Report struct {
	Target  string    `json:"target"`
	Started time.Time `json:"started"`
	Calls   int       `json:"calls"`
	// Drifted counts calls with a violation in either direction.
	Drifted int `json:"drifted"`
	// Failed counts calls the target did not answer (502, 504).
	Failed     int              `json:"failed"`
	Operations []OperationStats `json:"operations"`
	Violations []Violation      `json:"violations"`
	// Dropped counts violations not listed, past the report's bound.
	Dropped int `json:"dropped,omitempty"`
}

// tally builds the report as calls finish.
type tally struct {
	mu       sync.Mutex
	r        Report
	ops      map[string]*OperationStats
	distinct map[Violation]int // without Count; index into r.Violations
}

func newTally(target string) *tally {
	return &tally{r: Report{Target: target, Started: time.Now().UTC()}, ops: map[string]*OperationStats{}, distinct: map[Violation]int{}}
}

func (t *tally) add(op string, status int, failed bool, vs []Violation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if op == "" {
		op = "(no operation)"
	}
	s := t.ops[op]
	if s == nil {
		s = &OperationStats{Operation: op, Statuses: map[string]int{}}
		t.ops[op] = s
	}
	t.r.Calls++
	s.Calls++
	s.Statuses[fmt.Sprint(status)]++
	if failed {
		t.r.Failed++
	}
	var req, resp bool
	for _, v := range vs {
		if v.Unchecked {
			continue
		}
		req = req || v.Direction == Request
		resp = resp || v.Direction == Response
	}
	if req {
		s.RequestViolations++
	}
	if resp {
		s.ResponseViolations++
	}
	if req || resp {
		t.r.Drifted++
	}
	for _, v := range vs {
		if i, ok := t.distinct[v]; ok {
			t.r.Violations[i].Count++
			continue
		}
		if len(t.r.Violations) >= maxDistinct {
			t.r.Dropped++
			continue
		}
		t.distinct[v] = len(t.r.Violations)
		v.Count = 1
		t.r.Violations = append(t.r.Violations, v)
	}
}

// Report returns the session's report so far: operations by name,
// violations by operation, then direction, then place.
func (p *Proxy) Report() Report {
	t := p.report
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.r
	r.Operations = make([]OperationStats, 0, len(t.ops))
	for _, s := range t.ops {
		c := *s
		c.Statuses = map[string]int{}
		for k, v := range s.Statuses {
			c.Statuses[k] = v
		}
		r.Operations = append(r.Operations, c)
	}
	sort.Slice(r.Operations, func(i, j int) bool { return r.Operations[i].Operation < r.Operations[j].Operation })
	r.Violations = append([]Violation(nil), t.r.Violations...)
	sort.SliceStable(r.Violations, func(i, j int) bool {
		a, b := r.Violations[i], r.Violations[j]
		if a.Operation != b.Operation {
			return a.Operation < b.Operation
		}
		if a.Direction != b.Direction {
			return a.Direction < b.Direction
		}
		return a.Where < b.Where
	})
	return r
}

// WriteJSON writes the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	return report.JSON(w, r)
}

// WriteMarkdown writes the report for people: the counts, a table per
// operation, then every distinct violation.
func (r Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Proxy report: %s\n\n", r.Target)
	fmt.Fprintf(&b, "Since %s: %d calls, %d with drift (the document rejects the call or its answer), %d not answered by the target.\n\n",
		r.Started.Format(time.RFC3339), r.Calls, r.Drifted, r.Failed)
	b.WriteString("| Operation | Calls | Requests rejected | Answers rejected | Statuses |\n|---|---:|---:|---:|---|\n")
	for _, o := range r.Operations {
		codes := make([]string, 0, len(o.Statuses))
		for c, n := range o.Statuses {
			codes = append(codes, fmt.Sprintf("%s×%d", c, n))
		}
		sort.Strings(codes)
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", o.Operation, o.Calls, o.RequestViolations, o.ResponseViolations, strings.Join(codes, " "))
	}
	if len(r.Violations) == 0 {
		b.WriteString("\nNo violations.\n")
	} else {
		b.WriteString("\n## Violations\n\n| Operation | Direction | Where | Calls | Problem |\n|---|---|---|---:|---|\n")
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s |\n", v.Operation, v.Direction, report.Cell(v.Where), v.Count, report.Cell(v.Message))
		}
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "\n%d further violations were counted but not listed.\n", r.Dropped)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFiles writes the report to prefix.md and prefix.json.
func (r Report) WriteFiles(prefix string) error {
	for ext, write := range map[string]func(io.Writer) error{".md": r.WriteMarkdown, ".json": r.WriteJSON} {
		f, err := os.Create(prefix + ext)
		if err != nil {
			return err
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
