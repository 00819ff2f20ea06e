package oasdoc

import (
	"fmt"
	"regexp"
	"strings"
)

// Router finds the path template a call addresses. Both the fake's request
// pipeline and the conformance judge route with it, so the two can never
// disagree about which operation a call named.
//
// Templates are kept in a tree of path segments. At each segment a literal
// is tried first, then a segment mixing text with a parameter ("v{n}",
// "{name}.json"), then a segment that is one parameter; the search goes
// back up when a branch leads nowhere. So /workflow/launch wins over
// /workflow/{workflowId} whatever order the document lists them in, and a
// lookup costs one step per segment, not one per template.
//
// Paths are matched as they arrive, escaped: "%2F" inside a segment never
// acts as a separator, and parameter values come back still escaped for
// the caller to decode.
type Router struct {
	root  routeNode
	names [][]string // parameter names of each template, in order
}

type routeNode struct {
	literal  map[string]*routeNode
	patterns []*patternEdge
	param    *routeNode
	// rest holds the templates whose last segment is a path parameter
	// (restParam) that takes the rest of the path, slashes and all.
	rest map[string]int
	// leaf maps a method to its template's index, for templates ending here.
	leaf map[string]int
}

// patternEdge is a segment holding text as well as parameters.
type patternEdge struct {
	text   string // the template segment, to share edges between templates
	prefix string
	suffix string
	re     *regexp.Regexp // set when the segment holds more than one parameter
	next   *routeNode
}

var paramRE = regexp.MustCompile(`\{[^{}/]+\}`)

// Add registers a method and template ("/workflow/{workflowId}") and
// returns its index, counted from 0 in the order of Add calls. A method and
// template given twice is an error.
func (r *Router) Add(method, template string) (int, error) {
	if !strings.HasPrefix(template, "/") {
		return 0, fmt.Errorf("path template %q does not start with /", template)
	}
	method = strings.ToUpper(method)
	n := &r.root
	var names []string
	segs := strings.Split(template[1:], "/")
	for i, seg := range segs {
		params := paramRE.FindAllStringIndex(seg, -1)
		if i == len(segs)-1 && len(params) == 1 && params[0][0] == 0 && params[0][1] == len(seg) && restParam(seg[1:len(seg)-1]) {
			if _, dup := n.rest[method]; dup {
				return 0, fmt.Errorf("%s %s is given twice", method, template)
			}
			if n.rest == nil {
				n.rest = map[string]int{}
			}
			n.rest[method] = len(r.names)
			r.names = append(r.names, append(names, seg[1:len(seg)-1]))
			return len(r.names) - 1, nil
		}
		for _, p := range params {
			names = append(names, seg[p[0]+1:p[1]-1])
		}
		switch {
		case len(params) == 0:
			if n.literal == nil {
				n.literal = map[string]*routeNode{}
			}
			if n.literal[seg] == nil {
				n.literal[seg] = &routeNode{}
			}
			n = n.literal[seg]
		case len(params) == 1 && params[0][0] == 0 && params[0][1] == len(seg):
			if n.param == nil {
				n.param = &routeNode{}
			}
			n = n.param
		default:
			n = n.pattern(seg, params)
		}
	}
	if _, dup := n.leaf[method]; dup {
		return 0, fmt.Errorf("%s %s is given twice", method, template)
	}
	if n.leaf == nil {
		n.leaf = map[string]int{}
	}
	n.leaf[method] = len(r.names)
	r.names = append(r.names, names)
	return len(r.names) - 1, nil
}

// pattern returns the node below a segment that mixes text and
// parameters, adding the edge if needed. Edges with more literal text are
// tried first: they are the more specific.
func (n *routeNode) pattern(seg string, params [][]int) *routeNode {
	for _, e := range n.patterns {
		if e.text == seg {
			return e.next
		}
	}
	e := &patternEdge{text: seg, next: &routeNode{}}
	if len(params) == 1 {
		e.prefix, e.suffix = seg[:params[0][0]], seg[params[0][1]:]
	} else {
		var b strings.Builder
		b.WriteString("^")
		last := 0
		for _, p := range params {
			b.WriteString(regexp.QuoteMeta(seg[last:p[0]]))
			b.WriteString("([^/]+?)")
			last = p[1]
		}
		b.WriteString(regexp.QuoteMeta(seg[last:]))
		b.WriteString("$")
		e.re = regexp.MustCompile(b.String())
	}
	literal := func(e *patternEdge) int { return len(paramRE.ReplaceAllString(e.text, "")) }
	i := 0
	for i < len(n.patterns) && literal(n.patterns[i]) >= literal(e) {
		i++
	}
	n.patterns = append(n.patterns[:i], append([]*patternEdge{e}, n.patterns[i:]...)...)
	return e.next
}

// match reads a segment's parameter values, or reports that it does not
// fit the edge.
func (e *patternEdge) match(seg string, vals []string) ([]string, bool) {
	if e.re != nil {
		m := e.re.FindStringSubmatch(seg)
		if m == nil {
			return vals, false
		}
		return append(vals, m[1:]...), true
	}
	if len(seg) <= len(e.prefix)+len(e.suffix) || !strings.HasPrefix(seg, e.prefix) || !strings.HasSuffix(seg, e.suffix) {
		return vals, false
	}
	return append(vals, seg[len(e.prefix):len(seg)-len(e.suffix)]), true
}

// Find returns the index of the template that method and path (escaped,
// starting with "/", without a query) address, and its parameter values in
// template order, still escaped. A parameter never matches an empty
// segment.
func (r *Router) Find(method, path string) (int, []string, bool) {
	if !strings.HasPrefix(path, "/") {
		return 0, nil, false
	}
	return r.root.find(method, path[1:], nil)
}

func (n *routeNode) find(method, rest string, vals []string) (int, []string, bool) {
	seg, rest, more := strings.Cut(rest, "/")
	if c := n.literal[seg]; c != nil {
		if i, v, ok := c.then(method, rest, more, vals); ok {
			return i, v, true
		}
	}
	for _, e := range n.patterns {
		if v, ok := e.match(seg, vals); ok {
			if i, v, ok := e.next.then(method, rest, more, v); ok {
				return i, v, true
			}
		}
	}
	if n.param != nil && seg != "" {
		if i, v, ok := n.param.then(method, rest, more, append(vals, seg)); ok {
			return i, v, true
		}
	}
	if n.rest != nil && seg != "" {
		all := seg
		if more {
			all += "/" + rest
		}
		if method == anyMethod {
			for _, i := range n.rest {
				return i, append(vals, all), true
			}
		}
		if i, ok := n.rest[method]; ok {
			return i, append(vals, all), true
		}
	}
	return 0, nil, false
}

// restParam says whether a template's last parameter, by its name, is a
// path within a store: the data links' browse/{path} and
// download/{filePath}. The service takes the rest of the call's path
// there, slashes and all (Nextflow's seqera:// file system sends
// browse/a/b/c with its slashes as they are), so the fake's router does
// too; such a template is tried after every other that fits the call.
func restParam(name string) bool {
	return name == "path" || name == "filePath"
}

// then goes on below n: to the next segment, or to n's own templates when
// the path ends here.
func (n *routeNode) then(method, rest string, more bool, vals []string) (int, []string, bool) {
	if more {
		return n.find(method, rest, vals)
	}
	if method == anyMethod {
		for _, i := range n.leaf {
			return i, vals, true
		}
		return 0, vals, false
	}
	i, ok := n.leaf[method]
	return i, vals, ok
}

// anyMethod is the method Knows looks a path up with: a node's templates
// match it whatever methods they define.
const anyMethod = "\x00any" // no method a document can declare

// Knows reports whether some template addresses path, whatever its method:
// a call that Find does not route is then a method the path does not
// define rather than a path the document does not have, which a server may
// answer differently (404 and 405, say).
func (r *Router) Knows(path string) bool {
	if !strings.HasPrefix(path, "/") {
		return false
	}
	_, _, ok := r.root.find(anyMethod, path[1:], nil)
	return ok
}

// Params returns the parameter names of template i, in the order Find
// returns their values.
func (r *Router) Params(i int) []string { return r.names[i] }

// RouteLess orders templates for listing, the way the router prefers them:
// compared segment by segment, a literal segment comes before one holding
// a parameter, whatever the parameters' names; then shorter templates
// first, then by text.
func RouteLess(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		ap, bp := strings.Contains(as[i], "{"), strings.Contains(bs[i], "{")
		if ap != bp {
			return !ap
		}
		if !ap && as[i] != bs[i] {
			return as[i] < bs[i]
		}
	}
	if len(as) != len(bs) {
		return len(as) < len(bs)
	}
	return a < b
}
