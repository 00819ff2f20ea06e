package conformance

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
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
	case profile.BodyText:
		if !templatePattern(r.Message).MatchString(string(a.body)) {
			return fmt.Errorf("body %q, want %q", excerpt(a.body), r.Message)
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

// profileReply finds the reply a profile key names (auth.missing,
// unknown_route...), the keys feature files may use.
func profileReply(p *profile.Profile, key string) (profile.Reply, error) {
	replies := map[string]profile.Reply{
		"auth.missing":      p.Auth.Missing,
		"auth.bad_scheme":   p.Auth.BadScheme,
		"auth.malformed":    p.Auth.Malformed,
		"auth.unknown":      p.Auth.Unknown,
		"auth.expired":      p.Auth.Expired,
		"auth.revoked":      p.Auth.Revoked,
		"unknown_route":     p.UnknownRoute,
		"unknown_method":    p.MethodReply(),
		"bad_request":       p.BadRequest,
		"body_limit.reject": p.BodyLimit.Reject,
		"rate_limit.reject": p.RateLimit.Reject,
		"versions.unserved": p.Versions.Unserved,
		"missing_resource":  p.MissingResource,
		// Injected faults (docs/faults.md).
		"faults.internal_error":  p.Faults.InternalError,
		"faults.bad_gateway":     p.Faults.BadGateway,
		"faults.unavailable":     p.Faults.Unavailable,
		"faults.gateway_timeout": p.Faults.GatewayTimeout,
		"faults.maintenance":     p.Faults.Maintenance,
	}
	r, ok := replies[key]
	if !ok {
		keys := make([]string, 0, len(replies))
		for k := range replies {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return r, fmt.Errorf("the profile has no reply %q (it has %s)", key, strings.Join(keys, ", "))
	}
	return r, nil
}

// templatePattern matches the texts a template can be filled into.
func templatePattern(t string) *regexp.Regexp {
	p := regexp.QuoteMeta(t)
	p = strings.ReplaceAll(p, regexp.QuoteMeta(profile.PlaceErrorID), `[0-9A-Za-z]{22}`)
	p = strings.ReplaceAll(p, regexp.QuoteMeta(profile.PlaceRetryAfter), `\d+`)
	return regexp.MustCompile("^" + p + "$")
}
