package recording

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// Redacted is what a secret value is replaced with.
const Redacted = "[REDACTED]"

// secretWords mark a header, query parameter or JSON property as secret
// wherever they appear in its name (case aside). They are fixed, so a
// recording and its replay agree on them without being told.
var secretWords = []string{"password", "passphrase", "secret", "token", "accesskey", "apikey", "privatekey", "credential"}

var separators = strings.NewReplacer("-", "", "_", "")

// secretHeaders are always redacted, whatever their names say.
var secretHeaders = map[string]bool{"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "Set-Cookie": true}

// Redactor replaces secret values in a call before it is recorded: the
// credentials headers, cookies, and the string values of JSON properties
// and query parameters that are secret by name (secretWords) or because
// the document says so (names given to NewRedactor: properties that are
// writeOnly or have format password).
type Redactor struct {
	names map[string]bool // lower case
}

// NewRedactor redacts secretWords and the given property names.
func NewRedactor(names ...string) *Redactor {
	r := &Redactor{names: map[string]bool{}}
	for _, n := range names {
		if n != "" {
			r.names[strings.ToLower(n)] = true
		}
	}
	return r
}

// Names lists the property names given to NewRedactor, sorted.
func (r *Redactor) Names() []string {
	out := make([]string, 0, len(r.names))
	for n := range r.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Secret reports whether a property, parameter or header of this name
// holds a secret.
func (r *Redactor) Secret(name string) bool {
	n := strings.ToLower(name)
	if r.names[n] {
		return true
	}
	n = separators.Replace(n)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Interaction redacts a call and its answer in place.
func (r *Redactor) Interaction(in *Interaction) {
	r.Headers(in.Request.Headers)
	r.Headers(in.Response.Headers)
	in.Request.Query = r.Query(in.Request.Query)
	r.Body(in.Request.Body)
	r.Body(in.Response.Body)
}

// Headers redacts header values in place. An Authorization value keeps its
// scheme, so a reader still sees how the call authenticated.
func (r *Redactor) Headers(fields []Field) {
	for i := range fields {
		f := &fields[i]
		name := http.CanonicalHeaderKey(f.Name)
		if !secretHeaders[name] && !r.Secret(name) {
			continue
		}
		if scheme, _, ok := strings.Cut(f.Value, " "); ok && (name == "Authorization" || name == "Proxy-Authorization") {
			f.Value = scheme + " " + Redacted
		} else {
			f.Value = Redacted
		}
	}
}

// Query redacts the values of secret parameters in a raw query, leaving
// the rest of it as it was.
func (r *Redactor) Query(raw string) string {
	if raw == "" {
		return raw
	}
	parts := strings.Split(raw, "&")
	changed := false
	for i, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if ok && err == nil && r.Secret(name) {
			parts[i], changed = k+"="+url.QueryEscape(Redacted), true
		}
	}
	if !changed {
		return raw
	}
	return strings.Join(parts, "&")
}

// Body redacts a recorded body in place. A JSON body keeps its bytes except
// the secret values. A JSON body that cannot be read whole, because it is
// truncated or its bytes are not text (still compressed, or cut inside a
// character), has its text dropped rather than risk keeping a secret.
func (r *Redactor) Body(b *Body) {
	if b == nil || !looksJSON(b.MimeType, b.Text) {
		return
	}
	if b.Truncated || b.Encoding != "" {
		b.Text, b.Encoding, b.Redacted = "", "", true
		return
	}
	if !r.mayHoldSecret(b.Text) {
		return
	}
	out, n, ok := r.JSON([]byte(b.Text))
	if !ok {
		// Announced as JSON but not readable as JSON: nothing can say where
		// a secret would be, so the text is not kept.
		b.Text, b.Redacted = "", true
		return
	}
	if n > 0 {
		b.Text, b.Redacted = string(out), true
	}
}

// mayHoldSecret is a quick look before the JSON is read token by token:
// a body in which no secret word or name appears at all (and no \u escape
// could hide one) has nothing to redact. Most answers are such bodies.
func (r *Redactor) mayHoldSecret(text string) bool {
	lower := strings.ToLower(text)
	if strings.Contains(lower, `\u`) {
		return true
	}
	bare := separators.Replace(lower)
	for _, w := range secretWords {
		if strings.Contains(bare, w) {
			return true
		}
	}
	for n := range r.names {
		if strings.Contains(lower, n) {
			return true
		}
	}
	return false
}

func looksJSON(mimeType, text string) bool {
	mt := strings.ToLower(mimeType)
	if strings.Contains(mt, "json") {
		return true
	}
	t := strings.TrimSpace(text)
	return mt == "" && t != "" && (t[0] == '{' || t[0] == '[')
}

// JSON returns b with the string value of every secret property replaced
// by "[REDACTED]", byte for byte the same elsewhere, and how many values
// it replaced. ok is false when b is not JSON.
func (r *Redactor) JSON(b []byte) (out []byte, replaced int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct{ object, wantKey bool }
	var stack []frame
	var spans [][2]int64
	secretNext := false
	var keyEnd int64
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return b, 0, false
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top != nil && top.object {
					top.wantKey = true
				}
				stack = append(stack, frame{object: t == '{', wantKey: t == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
			secretNext = false
		case string:
			if top != nil && top.object && top.wantKey {
				secretNext, top.wantKey = r.Secret(t), false
				keyEnd = dec.InputOffset()
				continue
			}
			if secretNext {
				end := dec.InputOffset()
				start := keyEnd + int64(bytes.IndexByte(b[keyEnd:end], '"'))
				spans = append(spans, [2]int64{start, end})
			}
			if top != nil && top.object {
				top.wantKey = true
			}
			secretNext = false
		default:
			if top != nil && top.object {
				top.wantKey = true
			}
			secretNext = false
		}
	}
	if len(stack) > 0 {
		return b, 0, false // cut short
	}
	if len(spans) == 0 {
		return b, 0, true
	}
	var buf bytes.Buffer
	last := int64(0)
	for _, s := range spans {
		buf.Write(b[last:s[0]])
		buf.WriteString(`"` + Redacted + `"`)
		last = s[1]
	}
	buf.Write(b[last:])
	return buf.Bytes(), len(spans), true
}
