package mock

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// The reference page (/_mock/docs) shows each served document with an
// example on every answer and request body, and points "try it" at the
// fake itself. Documents often give no example, so the page gets a copy of
// the document in which the fake's own synthesized values fill the gaps.

// referenceBudget bounds the time spent filling one document's examples;
// an operation not reached within it is shown without a made-up example
// rather than holding the page back.
const referenceBudget = 10 * time.Second

// referenceCache holds one rendered copy per served document: their number
// is fixed at start, so the cache is bounded by what the server serves.
type referenceCache struct {
	mu      sync.Mutex
	entries map[*api]*referenceEntry
}

type referenceEntry struct {
	once sync.Once
	body []byte
	err  error
}

// of returns a's document as JSON, with examples filled in and the
// server list pointing at the fake, rendered on the first call.
func (c *referenceCache) of(a *api) ([]byte, error) {
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[*api]*referenceEntry{}
	}
	e := c.entries[a]
	if e == nil {
		e = &referenceEntry{}
		c.entries[a] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.body, e.err = a.referenceDocument() })
	return e.body, e.err
}

// referenceDocument renders the document with examples filled in.
func (a *api) referenceDocument() ([]byte, error) {
	raw, err := a.doc.JSON()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers go back out exactly as they came in
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	server := a.basePath
	if server == "" {
		server = "/"
	}
	root["servers"] = []any{map[string]any{"url": server, "description": "this fake (the same origin as the page)"}}
	ctx, cancel := context.WithTimeout(context.Background(), referenceBudget)
	defer cancel()
	paths, _ := root["paths"].(map[string]any)
	for _, op := range a.doc.Operations {
		if ctx.Err() != nil {
			break
		}
		item, _ := paths[op.Path].(map[string]any)
		operation, _ := item[strings.ToLower(op.Method)].(map[string]any)
		if operation == nil {
			continue
		}
		a.fillAnswerExample(ctx, op, operation)
		a.fillRequestExample(ctx, op, operation)
	}
	return json.Marshal(root)
}

// fillAnswerExample puts the fake's answer on the operation's success
// response when the document has no example for it, or one its own schema
// rejects (the fake never serves that one).
func (a *api) fillAnswerExample(ctx context.Context, op *spec.Operation, operation map[string]any) {
	succ := op.Success
	if !spec.IsJSON(succ.MediaType) || succ.Schema == nil {
		return
	}
	media := mediaObject(operation, "responses", strconv.Itoa(succ.Status), succ.MediaType)
	if media == nil {
		return
	}
	// The example the fake itself serves (the document's, valid), shown
	// as it is; a schema-level one is moved onto the media type.
	if ex := a.synth.example(op); ex != nil {
		var v any
		if succ.Example == nil && json.Unmarshal(ex, &v) == nil {
			delete(media, "examples")
			media["example"] = v
		}
		return
	}
	// Keyed like a call to the path as written, so for an operation the
	// fake answers by synthesis, a call to a path without parameters gets
	// exactly this body.
	v, err := a.synth.gen.ValueContext(ctx, succ.Schema.Schema(), op.Method+" "+op.Path, synth.Response)
	if err != nil {
		return
	}
	a.synth.fixRefs(succ.Schema.Schema(), v, 0, time.Now()) // as the fake's own answer points its ids at held items
	delete(media, "examples")
	media["example"] = v
}

// fillRequestExample puts a synthesized request body on an operation whose
// JSON request body has no example, so "try it" starts from a body the
// fake accepts.
func (a *api) fillRequestExample(ctx context.Context, op *spec.Operation, operation map[string]any) {
	if op.Op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Content == nil {
		return
	}
	for mt, m := range op.Op.RequestBody.Content.FromOldest() {
		if !spec.IsJSON(mt) || m == nil || m.Schema == nil {
			continue
		}
		media := mediaObject(operation, "requestBody", "", mt)
		if media == nil {
			continue
		}
		if _, ok := media["example"]; ok {
			continue
		}
		if _, ok := media["examples"]; ok {
			continue
		}
		var schema *base.Schema
		a.doc.Guard(func() { schema = m.Schema.Schema() })
		if schema == nil {
			continue
		}
		if v, err := a.synth.gen.ValueContext(ctx, schema, "reference request "+op.ID, synth.Request); err == nil {
			media["example"] = v
		}
	}
}

// mediaObject finds operation[section][status].content[mediaType] (without
// the status step for a request body) in the decoded document.
func mediaObject(operation map[string]any, section, status, mediaType string) map[string]any {
	obj, _ := operation[section].(map[string]any)
	if status != "" {
		obj, _ = obj[status].(map[string]any)
	}
	content, _ := obj["content"].(map[string]any)
	media, _ := content[mediaType].(map[string]any)
	return media
}
