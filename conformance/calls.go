package conformance

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"go.yaml.in/yaml/v4"
)

// readCall builds a GET of op the way a client reading the document would:
// each path parameter from the identifiers seen in earlier answers, and the
// others (path and required query parameters no answer named, required
// header parameters) from the document's example, default or first enum value,
// else the plainest value their schema allows. A made-up identifier is
// most likely refused as not held, which the sweep allows. It returns the path (after the base URL, with the query) and the
// headers.
func readCall(op *Operation, ids identifiers) (string, http.Header) {
	var params []*v3.Parameter
	seen := map[string]bool{}
	// An operation's own parameters override its path's (same name and
	// place); they are taken first, so the path's duplicates are skipped.
	for _, list := range [][]*v3.Parameter{op.op.Parameters, op.pathItem.Parameters} {
		for _, p := range list {
			if p != nil && !seen[p.In+"\x00"+p.Name] {
				seen[p.In+"\x00"+p.Name] = true
				params = append(params, p)
			}
		}
	}
	path := op.Path
	query := url.Values{}
	header := http.Header{}
	for _, p := range params {
		switch p.In {
		case "path":
			v, ok := ids[p.Name]
			if !ok || !fits(p, v) {
				v = paramValue(p)
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(v))
		case "query":
			// A required identifier in the query (the organization a
			// role list is of) is one seen in an earlier answer, as for
			// the path: a made-up one names nothing the server holds.
			if p.Required != nil && *p.Required {
				v, ok := ids[p.Name]
				if !ok || !fits(p, v) {
					v = paramValue(p)
				}
				query.Set(p.Name, v)
			}
		case "header":
			if p.Required != nil && *p.Required {
				header.Set(p.Name, paramValue(p))
			}
		}
	}
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	return path, header
}

// fits reports whether an identifier seen in an answer can fill p: a
// numeric parameter takes only a number (a field of the same name
// elsewhere may hold other text).
func fits(p *v3.Parameter, v string) bool {
	if p.Schema == nil || p.Schema.Schema() == nil || len(p.Schema.Schema().Type) == 0 {
		return true
	}
	switch p.Schema.Schema().Type[0] {
	case "integer":
		_, err := strconv.ParseInt(v, 10, 64)
		return err == nil
	case "number":
		_, err := strconv.ParseFloat(v, 64)
		return err == nil
	}
	return true
}

// paramValue is a value the parameter's own description accepts.
func paramValue(p *v3.Parameter) string {
	if v, ok := scalarOf(p.Example); ok {
		return v
	}
	var s *base.Schema
	if p.Schema != nil {
		s = p.Schema.Schema()
	}
	return schemaValue(s, 0)
}

func schemaValue(s *base.Schema, depth int) string {
	if s == nil || depth > 3 {
		return "a"
	}
	for _, n := range []*yaml.Node{s.Example, s.Default} {
		if v, ok := scalarOf(n); ok {
			return v
		}
	}
	if len(s.Enum) > 0 {
		if v, ok := scalarOf(s.Enum[0]); ok {
			return v
		}
	}
	typ := ""
	if len(s.Type) > 0 {
		typ = s.Type[0]
	}
	switch typ {
	case "integer", "number":
		if s.Minimum != nil {
			return strconv.FormatFloat(*s.Minimum, 'f', -1, 64)
		}
		return "1"
	case "boolean":
		return "true"
	case "array":
		if s.Items != nil && s.Items.IsA() {
			return schemaValue(s.Items.A.Schema(), depth+1)
		}
		return "a"
	}
	switch s.Format {
	case "date-time":
		return "2026-01-01T00:00:00Z"
	case "date":
		return "2026-01-01"
	case "uuid":
		return "5d2c3f9e-7a41-4b8e-9c1d-2f6e8a0b4c7d"
	}
	n := 1
	if s.MinLength != nil && *s.MinLength > 1 {
		n = int(*s.MinLength)
	}
	return strings.Repeat("a", n)
}

// scalarOf is the text of a scalar YAML node.
func scalarOf(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", false
	}
	return n.Value, true
}
