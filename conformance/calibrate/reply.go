package calibrate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/wmsmock/wmsmock/profile"
)

// answer is what one probe call got back.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// errorIDSuffix is the message shape the service's document shows for its
// errors; errorIDAnywhere finds an Error ID elsewhere in a text.
var (
	errorIDSuffix   = regexp.MustCompile(`^(.*) - Error ID: [0-9A-Za-z]{22}$`)
	errorIDAnywhere = regexp.MustCompile(`[0-9A-Za-z]{22}`)
)

// ignoredHeaders are headers every answer may carry, or that the fake
// writes on its own (Cache-Control on every refusal, Retry-After on an
// over-limit call): a reply's own headers are the others. X-RateLimit-*
// headers are a reply's own when the server's ordinary answers lack them
// (with them, they are rate_limit.headers): a fake calibrated on a server
// that sends them only with its refusals then sends them there too, which
// is what fidelity compares.
var ignoredHeaders = []string{"Cache-Control", "Content-Type", "Content-Length", "Date", "Connection", "Retry-After", "Server", "Vary", "Keep-Alive", "Transfer-Encoding"}

// replyOf turns a refusal into the profile reply that reproduces it, with a
// line saying what was seen. baseline holds the header names of an ordinary
// answer of the same server: a header both carry is not the refusal's own.
// retryAfter, when not empty, is the Retry-After value of an over-limit
// answer, which becomes the {retryAfter} placeholder where the body or a
// header repeats it. ok is false when the profile cannot hold the answer
// (a success, or a body that is not the message shape); seen says why.
func replyOf(a answer, baseline http.Header, retryAfter string) (r profile.Reply, seen string, ok bool) {
	r.Status = a.status
	seen = fmt.Sprintf("%d", a.status)
	if a.status < 400 {
		return r, seen + ": not a refusal", false
	}
	text := strings.TrimSpace(string(a.body))
	switch {
	case text == "":
		r.Body = profile.BodyEmpty
		seen += ", no body"
	default:
		var m map[string]any
		msg, isString := "", false
		if json.Unmarshal(a.body, &m) == nil && len(m) == 1 {
			msg, isString = m["message"].(string)
		}
		if !isString || strings.TrimSpace(msg) == "" {
			return r, seen + ", body not the message shape: " + clip(text, 80), false
		}
		if sub := errorIDSuffix.FindStringSubmatch(msg); sub != nil && strings.TrimSpace(sub[1]) != "" {
			r.Body, r.Message = profile.BodyMessage, sub[1]
			seen += fmt.Sprintf(", message %q with an Error ID", sub[1])
			break
		}
		r.Body, r.Message = profile.BodyTemplate, template(msg, retryAfter)
		seen += fmt.Sprintf(", message %q", msg)
	}
	for name, values := range a.header {
		if slices.Contains(ignoredHeaders, name) || len(values) == 0 {
			continue
		}
		if _, common := baseline[name]; common {
			continue
		}
		if r.Headers == nil {
			r.Headers = map[string]string{}
		}
		r.Headers[name] = template(values[0], retryAfter)
		seen += fmt.Sprintf(", header %s: %s", name, values[0])
	}
	return r, seen, true
}

// template writes the varying parts of a server's text as the profile's
// placeholders: an Error ID, and the seconds to wait where they stand as a
// number of their own. Braces the server sent are dropped, since the
// profile would read them as (misspelt) placeholders.
func template(s, retryAfter string) string {
	s = strings.NewReplacer("{", "", "}", "").Replace(s)
	s = errorIDAnywhere.ReplaceAllString(s, profile.PlaceErrorID)
	if retryAfter == "" {
		return s
	}
	num := regexp.MustCompile(`(^|[^0-9])` + regexp.QuoteMeta(retryAfter) + `([^0-9]|$)`)
	return num.ReplaceAllString(s, "${1}"+profile.PlaceRetryAfter+"${2}")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
