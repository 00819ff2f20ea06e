package fit

import (
	"encoding/json"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// Bases hands out synthesized values, each one valid for its schema and
// the same for the same key, as the ground answers are built on. They are
// cached because the same record is rendered on every read: without the
// cache a launch costs half as much again (BenchmarkHandlerLaunchWorkflow).
type Bases struct {
	gen *synth.Generator
	fit *Fitter
	m   *memo.Map[baseKey, any]
}

type baseKey struct {
	schema *spec.Schema
	key    string
	// as is the schema whose values were laid over (view), if any.
	as *spec.Schema
}

func NewBases(caches *memo.Set, gen *synth.Generator, fit *Fitter) *Bases {
	return &Bases{gen: gen, fit: fit, m: memo.NewIn[baseKey, any](caches, "synthesized bases", 60)}
}

// Object returns a fresh copy of the synthesized value for s and key, as
// an object (an empty one if the schema does not describe an object).
func (b *Bases) Object(s *spec.Schema, key string) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	m, ok := jsonvalue.Clone(b.Value(s, key)).(map[string]any)
	if !ok {
		return map[string]any{}
	}
	return m
}

// Bare returns the synthesized base for s and key with only the members
// s requires: the frame of an answer made of reported values, so that
// nothing the client did not report (a made-up container, a cost) shows
// up beside what it did.
func (b *Bases) Bare(s *spec.Schema, key string) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	v, _ := b.m.Do(baseKey{schema: s, key: key + "\x00bare"}, func() (any, error) {
		m := b.Object(s, key)
		branch := BranchOf(s, m, 0) // a oneOf's branch requires its own (its discriminator)
		for k := range m {
			if !s.Required(k) && !branch.Required(k) {
				delete(m, k)
			}
		}
		return m, nil
	})
	return jsonvalue.Clone(v).(map[string]any)
}

// Frame returns a fresh copy of the synthesized object for s and key
// without its property name: the frame of a list answer, whose items the
// caller supplies. Copying the synthesized items only to drop them cost a
// list call more than building the rest of its answer.
func (b *Bases) Frame(s *spec.Schema, key, name string) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	v, _ := b.m.Do(baseKey{schema: s, key: key + "\x00without " + name}, func() (any, error) {
		m, ok := jsonvalue.Clone(b.Value(s, key)).(map[string]any)
		if !ok {
			return map[string]any{}, nil
		}
		delete(m, name)
		return m, nil
	})
	return jsonvalue.Clone(v).(map[string]any)
}

// WithField returns the synthesized object for s and key, as JSON, with
// its property name set to the string value. The object without name is
// encoded once and cached; each call only splices the field in front, which
// costs a fraction of copying the object and encoding it again. Launches
// answer this way, and they are the hottest write.
func (b *Bases) WithField(s *spec.Schema, key, name, value string) json.RawMessage {
	var rest []byte // the cached object's members, without the braces
	if s != nil {
		v, _ := b.m.Do(baseKey{schema: s, key: key + "\x00json without " + name}, func() (any, error) {
			enc, err := json.Marshal(b.Frame(s, key, name))
			if err != nil {
				return nil, err
			}
			return enc[1 : len(enc)-1], nil
		})
		rest, _ = v.([]byte)
	}
	out := make([]byte, 0, len(rest)+len(name)+len(value)+8)
	out = append(workflow.AppendJSONString(append(out, '{'), name), ':')
	out = workflow.AppendJSONString(out, value)
	if len(rest) > 0 {
		out = append(append(out, ','), rest...)
	}
	return append(out, '}')
}

// View returns a fresh copy of the synthesized object for s and key with
// the synthesized values of the same key for schema canon laid over it
// where they fit: a view of a record in a shape of its own (a list entry)
// then shows the generated values its other views show, fixed by the key
// rather than drawn again for each shape. The merged object is cached.
func (b *Bases) View(s, canon *spec.Schema, key string) map[string]any {
	if s == nil || canon == nil || s.Same(canon) {
		return b.Object(s, key)
	}
	v, _ := b.m.Do(baseKey{schema: s, key: key, as: canon}, func() (any, error) {
		m := b.Object(s, key)
		if c, ok := jsonvalue.Clone(b.Value(canon, key)).(map[string]any); ok {
			b.fit.Merge(s, m, c, 0)
		}
		return m, nil
	})
	m, _ := jsonvalue.Clone(v).(map[string]any)
	return m
}

// Value is the cached synthesized value for s and key. Callers must not
// change it.
func (b *Bases) Value(s *spec.Schema, key string) any {
	v, _ := b.m.Do(baseKey{schema: s, key: key}, func() (any, error) {
		v := b.gen.Value(s.Lib(), key, synth.Response)
		if m, ok := v.(map[string]any); ok {
			b.fit.sanitize(s, m, 0)
		}
		return v, nil
	})
	return v
}

// Framer hands out the frames an answer about one record is built on:
// synthesized values for a record of the seeded account (made), bare ones
// (only what a schema requires) for a record a client wrote, so that nothing
// made up stands beside what was written.
type Framer struct {
	b    *Bases
	made bool
}

func (b *Bases) Frames(made bool) Framer { return Framer{b, made} }

// Object is the frame of schema s under key.
func (f Framer) Object(s *spec.Schema, key string) map[string]any {
	if f.made {
		return f.b.Object(s, key)
	}
	return f.b.Bare(s, key)
}

// Child returns m[name] as an object, or a frame for the property's schema
// when m has none.
func (f Framer) Child(s *spec.Schema, m map[string]any, name, key string) (map[string]any, *spec.Schema) {
	ps := s.Prop(name)
	if c, ok := m[name].(map[string]any); ok {
		return c, ps
	}
	return f.Object(ps, key+"/"+name), ps
}

// Child returns m[name] as an object, synthesizing one for the property's
// schema when the base left the optional property out: a made frame's
// Child.
func (b *Bases) Child(s *spec.Schema, m map[string]any, name, key string) (map[string]any, *spec.Schema) {
	return b.Frames(true).Child(s, m, name, key)
}
