package conformance

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
)

// SetupKind says what kept a run from starting at all, as opposed to
// scenarios that ran and failed. Each kind has its own exit code in
// `wmsmock conform` (SetupKind.ExitCode), so CI can tell a typo in its
// own setup from a server that broke the contract.
type SetupKind int

// The kinds of setup error, in the order a run meets them.
const (
	// NoScenarios: the tag expression selects no scenario, or every one it
	// selects would be skipped, so the run would check nothing.
	NoScenarios SetupKind = iota + 1
	// Unreachable: nothing answers at the base URL's host (refused,
	// unknown host, timeout, an untrusted certificate, a 5xx).
	Unreachable
	// NotThisAPI: something answers, but not the service's API at that
	// path (a web page, a 404, or the API found under another path).
	NotThisAPI
	// TokenRefused: the API is there and refuses the token.
	TokenRefused
)

// ExitCode is the exit status `wmsmock conform` (and calibrate, fidelity)
// ends with for a setup error of this kind: 1 is kept for scenarios that
// failed and 2 for a command line that did not parse.
func (k SetupKind) ExitCode() int {
	switch k {
	case Unreachable:
		return 3
	case NotThisAPI:
		return 4
	case TokenRefused:
		return 5
	case NoScenarios:
		return 6
	}
	return 1
}

func (k SetupKind) String() string {
	switch k {
	case Unreachable:
		return "unreachable"
	case NotThisAPI:
		return "not this API"
	case TokenRefused:
		return "token refused"
	case NoScenarios:
		return "no scenarios"
	}
	return "setup"
}

// SetupError is a run that could not start, with one line saying why.
type SetupError struct {
	Kind SetupKind
	Msg  string
}

func (e *SetupError) Error() string { return e.Msg }

func setupErr(k SetupKind, format string, args ...any) *SetupError {
	return &SetupError{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// AsSetupError returns the setup error err wraps, if any.
func AsSetupError(err error) (*SetupError, bool) {
	var se *SetupError
	ok := errors.As(err, &se)
	return se, ok
}

// probePath is the call a pre-flight makes: an operation every version of
// the service's document has, that needs a token and changes nothing.
const probePath = "/user-info"

// Preflight makes sure that baseURL is the service's API and accepts
// token before anything else is sent, and otherwise says in one line
// which of the usual mistakes it is (a *SetupError): nothing listening, a
// base URL without the API's path (naming the one that works, when it
// finds it), or a token the API refuses. It costs one call when all is
// well, and a few more to find the cause when not.
func Preflight(ctx context.Context, client *http.Client, baseURL, token string) error {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Host == "" {
		return setupErr(NotThisAPI, "base URL %q: want http(s)://host[:port][/path]", baseURL)
	}
	// Messages name URLs without any user information in them.
	u.User = nil
	base := u.String()
	root := u.Scheme + "://" + u.Host
	p, err := probe(ctx, client, strings.TrimRight(baseURL, "/"), token)
	if err != nil {
		return unreachable(u, err)
	}
	if p.api() {
		return nil
	}
	// The fake says where its API is mounted; that settles a wrong path
	// whatever the token.
	if bp, ok := fakeBasePath(ctx, client, root); ok && strings.TrimRight(u.Path, "/") != bp {
		return setupErr(NotThisAPI, "%s is the fake, and its API is at %s%s: did you mean --base-url %s%s?", root, root, bp, root, bp)
	}
	if p.status >= 500 {
		return setupErr(Unreachable, "%s answered GET %s with %d: the server is there but not working", base, probePath, p.status)
	}
	// Look for the API one level off: the usual mistake is a URL without
	// the /api an installation mounts it under, or with one too many.
	for _, alt := range alternatives(u) {
		if q, err := probe(ctx, client, alt, token); err == nil && q.api() {
			return setupErr(NotThisAPI, "%s is not the API's base URL (GET %s answered %s), but %s is: did you mean --base-url %s?",
				base, probePath, p, alt, alt)
		}
	}
	if p.status == http.StatusUnauthorized || p.status == http.StatusForbidden {
		return setupErr(TokenRefused, "%s refused the token: GET %s answered %s (check --token; it may be expired or of another installation)",
			base, probePath, p)
	}
	return setupErr(NotThisAPI, "%s does not look like the service's API: GET %s answered %s", base, probePath, p)
}

// probed is what the pre-flight call got.
type probed struct {
	status      int
	contentType string
	object      bool // the body is a JSON object
}

// api reports an answer only the API gives: 200 with a JSON object.
func (p probed) api() bool { return p.status == http.StatusOK && p.object }

func (p probed) String() string {
	s := fmt.Sprint(p.status)
	switch {
	case p.object:
		s += " with JSON"
	case p.contentType != "":
		s += " with " + p.contentType
	}
	return s
}

func probe(ctx context.Context, client *http.Client, base, token string) (probed, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+probePath, nil)
	if err != nil {
		return probed{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return probed{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var obj map[string]any
	return probed{status: resp.StatusCode, contentType: mt, object: json.Unmarshal(b, &obj) == nil && obj != nil}, nil
}

// alternatives are the base URLs one path segment off u: with /api added,
// and without its last segment.
func alternatives(u *url.URL) []string {
	root := u.Scheme + "://" + u.Host
	path := strings.TrimRight(u.Path, "/")
	var out []string
	if !strings.HasSuffix(path, "/api") {
		out = append(out, root+path+"/api")
	}
	if path != "" {
		out = append(out, root+path[:strings.LastIndex(path, "/")])
	}
	return out
}

// fakeBasePath asks the fake at root where its API is mounted; false when
// root is not the fake or it does not say.
func fakeBasePath(ctx context.Context, client *http.Client, root string) (string, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, root+"/_mock/health", nil)
	if err != nil {
		return "", false
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var h struct {
		Status   string  `json:"status"`
		BasePath *string `json:"basePath"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&h) != nil || h.BasePath == nil {
		return "", false
	}
	return *h.BasePath, true
}

// unreachable says in one line why a call to u got no answer.
func unreachable(u *url.URL, err error) *SetupError {
	host := u.Host
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return setupErr(Unreachable, "nothing is listening at %s (connection refused): is the server started?", host)
	case errors.As(err, &dns):
		return setupErr(Unreachable, "host %s not found (%s)", u.Hostname(), dns.Err)
	case errors.As(err, &cert):
		return setupErr(Unreachable, "%s's certificate is not trusted (%v): for the fake's own CA pass --ca-cert", host, cert.Err)
	case errors.As(err, &netErr) && netErr.Timeout():
		return setupErr(Unreachable, "no answer from %s in time (--call-timeout)", host)
	}
	return setupErr(Unreachable, "no answer from %s: %v", host, err)
}
