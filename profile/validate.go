package profile

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/ratewindow"
	"github.com/wmsmock/wmsmock/internal/token68"
	"github.com/wmsmock/wmsmock/internal/workflow"
)

// FieldError is one problem with one profile key. Key is the dotted path
// ("rate_limit.windows[1]"); Line is where the key appears in the user's file,
// or 0 if the value came from the default.
type FieldError struct {
	Key  string
	Line int
	Msg  string
}

func (e *FieldError) Error() string {
	key := e.Key
	if key == "" {
		key = "the document"
	}
	if e.Line > 0 {
		return fmt.Sprintf("profile: line %d: %s: %s", e.Line, key, e.Msg)
	}
	return fmt.Sprintf("profile: %s: %s", key, e.Msg)
}

// Validate reports every value the fake cannot work with, one FieldError per
// problem, joined. It does not stop at the first, so one edit can fix a file.
func (p *Profile) Validate() error {
	var v validator
	a := &p.Auth
	v.reply("auth.missing", a.Missing)
	v.reply("auth.bad_scheme", a.BadScheme)
	v.reply("auth.malformed", a.Malformed)
	v.reply("auth.unknown", a.Unknown)
	v.reply("auth.expired", a.Expired)
	v.reply("auth.revoked", a.Revoked)
	v.reply("auth.session_expired", a.SessionExpired)
	v.reply("unknown_route", p.UnknownRoute)
	if p.UnknownMethod != nil {
		v.reply("unknown_method", *p.UnknownMethod)
	}
	v.reply("bad_request", p.BadRequest)
	v.reply("missing_resource", p.MissingResource)
	v.reply("internal_error", p.InternalError)

	if p.BodyLimit.Max <= 0 {
		v.add("body_limit.max", "must be more than 0 bytes, got %d", p.BodyLimit.Max)
	}
	v.reply("body_limit.reject", p.BodyLimit.Reject)

	rl := &p.RateLimit
	if rl.Enabled && len(rl.Windows) == 0 {
		v.add("rate_limit.windows", "list at least one window, or set rate_limit.enabled: false")
	}
	windowsOK := true
	for i, w := range rl.Windows {
		if _, err := ratewindow.Parse(w); err != nil || strings.EqualFold(strings.TrimSpace(w), "off") {
			if err == nil {
				err = fmt.Errorf("%q is not a window: to turn limiting off set rate_limit.enabled: false", w)
			}
			v.add(fmt.Sprintf("rate_limit.windows[%d]", i), "%v", err)
			windowsOK = false
		}
	}
	if windowsOK && len(rl.Windows) > 1 {
		// Two windows with the same period are refused by the limiter; say
		// so at load time, naming the list.
		if _, err := ratewindow.Parse(strings.Join(rl.Windows, ",")); err != nil {
			v.add("rate_limit.windows", "%v", err)
		}
	}
	if rl.Hold < 0 || rl.Hold > MaxHold {
		v.add("rate_limit.hold", "%s: use 0s (refuse at once) up to %s", rl.Hold, MaxHold)
	}
	if rl.Key != "" && rl.Key != KeyToken && rl.Key != KeyUser {
		v.add("rate_limit.key", "%q: use %q or %q", rl.Key, KeyToken, KeyUser)
	}
	v.reply("rate_limit.reject", rl.Reject)

	vs := &p.Versions
	if len(vs.Served) == 0 {
		v.add("versions.served", "list at least one version")
	}
	for i, s := range vs.Served {
		switch {
		case strings.TrimSpace(s) == "":
			v.add(fmt.Sprintf("versions.served[%d]", i), "must not be empty")
		case slices.Index(vs.Served, s) < i:
			v.add(fmt.Sprintf("versions.served[%d]", i), "%q is listed twice", s)
		}
	}
	if !vs.Serves(vs.Default) {
		v.add("versions.default", "%q is not one of versions.served %q", vs.Default, vs.Served)
	}
	v.reply("versions.unserved", vs.Unserved)

	pg := &p.Paging
	if pg.DefaultMax < 1 {
		v.add("paging.default_max", "must be at least 1, got %d", pg.DefaultMax)
	}
	if pg.MaxLimit < pg.DefaultMax || pg.MaxLimit > math.MaxInt32 {
		// The service's max parameter is an int32.
		v.add("paging.max_limit", "must be between paging.default_max (%d) and %d, got %d", pg.DefaultMax, math.MaxInt32, pg.MaxLimit)
	}
	for id, b := range pg.Operations {
		def, limit := cmp.Or(b.DefaultMax, pg.DefaultMax), cmp.Or(b.MaxLimit, pg.MaxLimit)
		if b.DefaultMax < 0 || b.MaxLimit < 0 || limit < def || limit > math.MaxInt32 {
			v.add("paging.operations."+id, "default_max %d and max_limit %d: want 0 (the general value) or 1 up to max_limit", b.DefaultMax, b.MaxLimit)
		}
	}

	v.duration("workflows.submitted_for", p.Workflows.SubmittedFor)
	v.duration("workflows.running_for", p.Workflows.RunningFor)
	v.reply("workflows.delete_active", p.Workflows.DeleteActive)
	v.duration("workflows.unknown_after", p.Workflows.UnknownAfter)
	for i, o := range p.Workflows.Outcomes {
		key := fmt.Sprintf("workflows.outcomes[%d]", i)
		if o.RunNameContains == "" {
			v.add(key+".run_name_contains", "must not be empty (it would match every run)")
		}
		if !workflow.Final(o.Status) {
			v.add(key+".status", "%q is not a final workflow status (%s)", o.Status, strings.Join(workflow.FinalStatuses, ", "))
		}
	}
	v.duration("compute_envs.creating_for", p.ComputeEnvs.CreatingFor)
	v.duration("compute_envs.deleting_for", p.ComputeEnvs.DeletingFor)
	if a := p.ComputeEnvs.AfterDelete; a != AfterDeleteDeleted && a != AfterDeleteMissing {
		v.add("compute_envs.after_delete", "%q: use %q (describable, status DELETED) or %q (the missing-resource reply)", a, AfterDeleteDeleted, AfterDeleteMissing)
	}
	p.Answers.validate(&v)
	p.Faults.validate(&v)
	p.Data.validate(&v)
	p.Extensions.validate(&v)

	for i, t := range p.Tokens {
		key := fmt.Sprintf("tokens[%d]", i)
		if t.Name == "" {
			v.add(key+".name", "must not be empty")
		} else if slices.IndexFunc(p.Tokens, func(o TokenSpec) bool { return o.Name == t.Name }) < i {
			v.add(key+".name", "%q is used by an earlier token", t.Name)
		}
		if !token68.Valid(t.Value) {
			// The value is echoed on purpose: these are fixture tokens
			// written in the file, and the error is useless without it.
			v.add(key+".value", "%q cannot be sent as a bearer token: use letters, digits and -._~+/ (and = at the end)", t.Value)
		} else if slices.IndexFunc(p.Tokens, func(o TokenSpec) bool { return o.Value == t.Value }) < i {
			v.add(key+".value", "the same value is given to an earlier token")
		}
	}
	for i, e := range p.Requests.RequiredExceptions {
		key := fmt.Sprintf("requests.required_exceptions[%d]", i)
		dot := strings.LastIndexByte(e, '.')
		switch {
		case dot <= 0 || dot == len(e)-1 || strings.ContainsAny(e, " \t/#"):
			v.add(key, "%q is not Component.property (e.g. Workflow.submit)", e)
		case slices.Index(p.Requests.RequiredExceptions, e) < i:
			v.add(key, "%q is listed twice", e)
		}
	}
	return errors.Join(v.errs...)
}

type validator struct{ errs []error }

func (v *validator) add(key, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) reply(key string, r Reply) {
	switch {
	case r.Status < 100 || r.Status > 599:
		v.add(key+".status", "%d is not an HTTP status code (100-599)", r.Status)
	case r.Status < 400:
		// A refusal answered with a success or redirect would let a client
		// believe its call worked; 1xx cannot end a response at all.
		v.add(key+".status", "%d is not an error status: a refusal needs 400-599", r.Status)
	}
	switch r.Body {
	case BodyEmpty:
	case BodyMessage, BodyTemplate, BodyText:
		if strings.TrimSpace(r.Message) == "" {
			v.add(key+".message", "must not be empty when body is %q", r.Body)
		}
	default:
		v.add(key+".body", "%q is not a body kind (%q, %q, %q or %q)", r.Body, BodyEmpty, BodyMessage, BodyTemplate, BodyText)
	}
	if r.Body == BodyTemplate || r.Body == BodyText {
		v.placeholders(key+".message", r.Message)
	}
	for name, value := range r.Headers {
		if name == "" || strings.ContainsAny(name, " :\r\n") || strings.ContainsAny(value, "\r\n") {
			v.add(key+".headers", "%q: %q is not a header line", name, value)
		}
		v.placeholders(key+".headers."+name, value)
	}
}

// placeholders reports a brace-enclosed word that is not a placeholder:
// most likely a misspelt one, which would otherwise reach clients as is.
func (v *validator) placeholders(key, s string) {
	for _, m := range braced.FindAllString(s, -1) {
		if !slices.Contains(Placeholders, m) {
			v.add(key, "%s is not a placeholder (%s)", m, strings.Join(Placeholders, ", "))
		}
	}
}

var braced = regexp.MustCompile(`\{[A-Za-z]+\}`)

func (v *validator) duration(key string, d time.Duration) {
	if d < 0 {
		v.add(key, "must not be negative, got %s", d)
	}
}

var (
	profileType  = reflect.TypeFor[Profile]()
	durationType = reflect.TypeFor[time.Duration]()
	sizeType     = reflect.TypeFor[Size]()
	timeType     = reflect.TypeFor[time.Time]()
)

// walk checks a parsed file against the Profile type before decoding it, so
// that an unknown key or a bad duration or size is reported with its full
// key path and line (the decoder alone names neither well). It also records
// the line of every key, for the messages of Validate.
func walk(n *yaml.Node, t reflect.Type, path string, lines map[string]int, errs *[]error) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if path != "" {
		lines[path] = n.Line
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	fail := func(format string, args ...any) {
		*errs = append(*errs, &FieldError{Key: path, Line: n.Line, Msg: fmt.Sprintf(format, args...)})
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // leaves the default in place; Validate judges the result
	}
	switch t {
	case durationType:
		if d, err := time.ParseDuration(n.Value); n.Kind != yaml.ScalarNode || err != nil {
			fail("%q is not a duration: write e.g. 30s, 2m or 1h30m", n.Value)
		} else if d < 0 {
			fail("must not be negative, got %s", n.Value)
		}
		return
	case sizeType:
		if _, err := ParseSize(n.Value); n.Kind != yaml.ScalarNode || err != nil {
			fail("%v", err)
		}
		return
	case timeType:
		if _, err := time.Parse(time.RFC3339, n.Value); n.Tag != "!!timestamp" && err != nil {
			fail("%q is not a time: write it as RFC 3339, e.g. 2030-01-01T00:00:00Z", n.Value)
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			fail("expected a mapping of keys, found %s", kindName(n))
			return
		}
		fields := map[string]reflect.Type{}
		var names []string
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if f.IsExported() && name != "" && name != "-" {
				fields[name] = f.Type
				names = append(names, name)
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				where := "at the top level"
				if path != "" {
					where = "in " + path
				}
				*errs = append(*errs, &FieldError{Key: join(path, k.Value), Line: k.Line,
					Msg: fmt.Sprintf("unknown key %q %s (known keys: %s)", k.Value, where, strings.Join(names, ", "))})
				continue
			}
			walk(val, ft, join(path, k.Value), lines, errs)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			fail("expected a list, found %s", kindName(n))
			return
		}
		for i, e := range n.Content {
			walk(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), lines, errs)
		}
	case reflect.Int, reflect.Int64:
		if _, err := strconv.ParseInt(n.Value, 0, 64); n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil {
			fail("%s is not a whole number", kindName(n))
		}
	case reflect.Float64:
		if _, err := strconv.ParseFloat(n.Value, 64); n.Kind != yaml.ScalarNode || (n.Tag != "!!float" && n.Tag != "!!int") || err != nil {
			fail("%s is not a number", kindName(n))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			fail("%s is not true or false", kindName(n))
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			fail("expected a single value, found %s", kindName(n))
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	default:
		return fmt.Sprintf("the value %q", n.Value)
	}
}

// withLines adds the file's line numbers to Validate's errors, so that a
// problem in a user's file points at the line to edit.
func withLines(err error, lines map[string]int) error {
	var out []error
	for _, e := range unjoin(err) {
		var fe *FieldError
		if errors.As(e, &fe) && fe.Line == 0 {
			c := *fe
			key := c.Key
			// A key the file does not set may still sit under one it does
			// (a reply's status under auth.missing): point at the nearest.
			for c.Line == 0 && key != "" {
				c.Line = lines[key]
				key = parent(key)
			}
			e = &c
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func parent(key string) string {
	i := strings.LastIndexAny(key, ".[")
	if i < 0 {
		return ""
	}
	return key[:i]
}
