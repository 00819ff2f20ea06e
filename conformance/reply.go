package conformance

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/wmsmock/wmsmock/profile"
)

// wholeSeconds is what Retry-After must hold: a delay in whole seconds.
var wholeSeconds = regexp.MustCompile(`^\d+$`)

// matchReply reports how an answer differs from a behaviour profile's
// reply: its status, its body (none; a message ending in an Error ID; or
// the reply's template, each placeholder standing for what it is filled
// with) and each header the reply adds.
func matchReply(r profile.Reply, a *answer) error {
	if a.status != r.Status {
		return fmt.Errorf("status %d, want %d", a.status, r.Status)
	}
	switch r.Body {
	case profile.BodyMessage, profile.BodyTemplate:
		msg, err := message(a)
		if err != nil {
			return err
		}
		want := r.Message + " - Error ID: " + profile.PlaceErrorID
		if r.Body == profile.BodyTemplate {
			want = r.Message
		}
		if !templatePattern(want).MatchString(msg) {
			return fmt.Errorf("message %q, want %q", msg, want)
		}
	default:
		if len(bytes.TrimSpace(a.body)) != 0 {
			return fmt.Errorf("a body, want none")
		}
	}
	for name, value := range r.Headers {
		if got := a.header.Get(name); !templatePattern(value).MatchString(got) {
			return fmt.Errorf("header %s is %q, want %q", name, got, value)
		}
	}
	return nil
}

// templatePattern matches the texts a template can be filled into.
func templatePattern(t string) *regexp.Regexp {
	p := regexp.QuoteMeta(t)
	p = strings.ReplaceAll(p, regexp.QuoteMeta(profile.PlaceErrorID), `[0-9A-Za-z]{22}`)
	p = strings.ReplaceAll(p, regexp.QuoteMeta(profile.PlaceRetryAfter), `\d+`)
	return regexp.MustCompile("^" + p + "$")
}
