package validate

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// intParam is a parameter the document declares as a sized integer
// (format int32 or int64). The validator library checks that such a value
// is an integer and within minimum and maximum, but not that it fits its
// format: max=2147483648 passed, where the service, which reads the value
// into a 32-bit field, refuses it.
type intParam struct {
	name, in string
	bits     int
	// segment is a path parameter's index among the path's segments.
	segment int
}

// intParams lists op's sized integer parameters.
func intParams(op *spec.Operation) []intParam {
	var out []intParam
	for _, p := range append(append([]*v3.Parameter{}, op.PathItem.Parameters...), op.Op.Parameters...) {
		if p == nil || p.Schema == nil {
			continue
		}
		s := p.Schema.Schema()
		if s == nil || len(s.Type) != 1 || s.Type[0] != "integer" {
			continue
		}
		bits := 0
		switch s.Format {
		case "int32":
			bits = 32
		case "int64":
			bits = 64
		default:
			continue
		}
		ip := intParam{name: p.Name, in: p.In, bits: bits, segment: -1}
		if p.In == "path" {
			for i, seg := range strings.Split(op.Path, "/") {
				if seg == "{"+p.Name+"}" {
					ip.segment = i
				}
			}
			if ip.segment < 0 {
				continue // a parameter inside a segment: left to the library
			}
		}
		out = append(out, ip)
	}
	return out
}

// outOfRange names the sized integer parameters of a call whose values do
// not fit their format. A value that is not a whole number at all is left
// to the library, which says so in its own words. path is the call's path
// below the base path, with as many segments as the operation's template.
func outOfRange(params []intParam, r *http.Request, path string) []string {
	if len(params) == 0 {
		return nil
	}
	var query map[string][]string
	var segments []string
	var out []string
	for _, p := range params {
		var values []string
		switch p.in {
		case "query":
			if query == nil {
				query = r.URL.Query()
			}
			values = query[p.name]
		case "header":
			values = r.Header.Values(p.name)
		case "path":
			if segments == nil {
				segments = strings.Split(path, "/")
			}
			if p.segment < len(segments) {
				values = segments[p.segment : p.segment+1]
			}
		}
		for _, v := range values {
			if !wholeNumber(v) {
				continue
			}
			if _, err := strconv.ParseInt(v, 10, p.bits); errors.Is(err, strconv.ErrRange) {
				out = append(out, fmt.Sprintf("%s parameter %s=%s is out of range for int%d", p.in, p.name, v, p.bits))
			}
		}
	}
	return out
}

// wholeNumber reports whether s is written as a whole number: an optional
// sign and decimal digits.
func wholeNumber(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
