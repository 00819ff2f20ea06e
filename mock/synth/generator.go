package synth

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
)

// hardDepthSlack is how far past maxDepth generation may go to satisfy
// required properties before giving up on a schema whose required
// properties recurse forever; past it the value is a bare placeholder.
const hardDepthSlack = 24

// maxSteps caps the values generated for one call, a backstop against
// pathological schemas (wide required fan-out that recurses).
const maxSteps = 200_000

// checkEvery is how many values generation makes between looks at its
// context: often enough to stop within a millisecond or so, rarely enough
// to cost nothing measurable.
const checkEvery = 256

// cancelled unwinds a generation whose context is done; ValueContext
// recovers it and reports the context's error.
type cancelled struct{ err error }

// run is the state of one Value call. It is not shared between goroutines.
type run struct {
	g     *Generator
	r     *rand.Rand
	mode  Mode
	ctx   context.Context
	steps int
	// failed is set when a oneOf could not be made to match exactly one
	// branch (some published oneOfs list indistinguishable branches). The
	// nearest optional property or spare array item holding the value is
	// then dropped (an optional property is null instead with the
	// service's nulls), so the document stays valid wherever it can.
	failed bool
	// spare counts the values being generated, around the current one,
	// that can be given up when it cannot be made valid (an optional
	// property, an array item past minItems): a value with one of them
	// around may fail where making it valid would take an unlikely value.
	spare int
	// full is the deepest level whose objects keep every property: the
	// top of an answer always carries its content (a client reads
	// serviceInfo.version without checking it is there), and so does the
	// one object a top-level wrapper holds ({"serviceInfo": {...}}). -1
	// (requests) drops optional properties everywhere.
	full int
}

func (c *run) chance(p float64) bool { return c.r.Float64() < p }

// value generates a value for raw. allowSub lets a discriminator base type
// pick one of its subtypes; it is false while generating that subtype so
// the choice is made once.
func (c *run) value(raw *node, fd field, depth int, ot *objTimes, allowSub bool) any {
	n := raw.f()
	c.steps++
	if c.steps%checkEvery == 0 {
		if err := c.ctx.Err(); err != nil {
			panic(cancelled{err})
		}
	}
	if c.steps > maxSteps || depth > c.g.maxDepth+hardDepthSlack {
		return placeholder(n)
	}
	if n.hasConst {
		return jsonvalue.Clone(n.constVal)
	}
	if len(n.enum) > 0 {
		return c.pickEnum(n)
	}
	if v, ok := c.documented(n); ok {
		return v
	}
	if allowSub && len(n.subtypes) > 0 {
		return c.subtype(n, fd, depth, ot)
	}
	if len(n.variants) > 0 {
		return c.composite(n, fd, depth, ot)
	}
	v := c.plain(n, fd, depth, ot)
	if n.not != nil || len(n.conj) > 0 || len(n.exclusive) > 0 {
		v = c.enforce(n, v, fd, depth, ot)
	}
	return v
}

// documented returns, some of the time, the schema's own example or
// default: the document author's idea of a realistic value. Only scalars
// are used, only when they satisfy the schema (published examples are not
// always valid), and never for timestamps, which must stay near the epoch
// and in the contract's exact form.
func (c *run) documented(n *node) (any, bool) {
	if !n.hasExample && !n.hasDefault {
		return nil, false
	}
	switch n.format {
	case "date-time", "date", "time":
		return nil, false
	}
	var v any
	switch {
	case n.hasExample && c.r.IntN(2) == 0:
		v = n.example
	case n.hasDefault && c.r.IntN(3) == 0:
		v = n.def
	default:
		return nil, false
	}
	switch v.(type) {
	case nil, map[string]any, []any:
		return nil, false
	}
	if !matches(n, v, c.mode, 0) {
		return nil, false
	}
	return v, true
}

// enforce handles the constraints generation does not build in (not,
// unmerged conjuncts, sibling branches to avoid): a few fresh attempts,
// then disambiguation against the sibling branches.
func (c *run) enforce(n *node, v any, fd field, depth int, ot *objTimes) any {
	for try := 0; ; try++ {
		if m, ok := v.(map[string]any); ok && len(n.exclusive) > 0 {
			c.exclude(m, n, n.exclusive)
		}
		if matches(n, v, c.mode, 0) {
			return v
		}
		if try >= 4 {
			c.failed = true
			return v
		}
		v = c.plain(n, fd, depth, ot)
	}
}

// placeholder is the cheapest value of n's type, used only when the depth
// or step backstop trips.
func placeholder(n *node) any {
	switch {
	case n.types&tObject != 0 || n.types == 0:
		return map[string]any{}
	case n.types&tArray != 0:
		return []any{}
	case n.types&tString != 0:
		return ""
	case n.types&(tInteger|tNumber) != 0:
		return int64(0)
	case n.types&tBoolean != 0:
		return false
	}
	return nil
}

func (c *run) pickEnum(n *node) any {
	k := 0
	for _, e := range n.enum {
		if e != nil {
			k++
		}
	}
	if k == 0 {
		return nil
	}
	i := c.r.IntN(k)
	for _, e := range n.enum {
		if e != nil {
			if i == 0 {
				return jsonvalue.Clone(e)
			}
			i--
		}
	}
	return nil
}

// subtype generates one of a discriminator base type's mapped subtypes and
// labels it with the mapping key that selects it.
func (c *run) subtype(n *node, fd field, depth int, ot *objTimes) any {
	st := n.subtypes[c.r.IntN(len(n.subtypes))]
	v := c.value(st.node, fd, depth, ot, false)
	if m, ok := v.(map[string]any); ok {
		c.setDisc(st.node.f(), m, n.disc.Property, st.key, depth)
	}
	return v
}

// composite generates a oneOf/anyOf value from one of the precomputed
// variants. For oneOf the value must match exactly one branch, and the
// validator does not consult discriminators for that, so when sibling
// branches also accept the value it is disambiguated (see exclude); a
// branch that cannot be told apart from another is abandoned for the next.
func (c *run) composite(n *node, fd field, depth int, ot *objTimes) any {
	k := len(n.variants)
	start := c.r.IntN(k)
	if len(n.oneOf) == 0 {
		return c.value(n.variants[start], fd, depth, ot, false)
	}
	before := c.failed
	var first any
	others := make([]*node, 0, k-1)
	for t := 0; t < k; t++ {
		i := (start + t) % k
		c.failed = false
		v := c.value(n.variants[i], fd, depth, ot, false)
		if t == 0 {
			first = v
		}
		others = append(append(others[:0], n.oneOf[:i]...), n.oneOf[i+1:]...)
		if m, ok := v.(map[string]any); ok {
			c.exclude(m, n.variants[i], others)
		}
		if !c.failed && countMatches(others, v, c.mode, 0, 1, nil) == 0 {
			c.failed = before
			return v
		}
	}
	c.failed = true
	return first
}

// poisons are tried in order as the value of a property that tells two
// object branches apart; null first, because real responses often carry
// null for unset fields.
var poisons = []any{nil, false, "", int64(0)}

// sparePoisons are the poisons where the service's nulls are sent and the
// value can be given up (run.spare). A null then rules out only a branch
// that requires the property: an optional one takes it as "no value". The
// other poisons put a value of the wrong kind in a property (false for an
// id, "" for a count) that no service sends, so a value a null cannot tell
// apart is given up instead, and the optional property holding it is sent
// as null, as the service would.
var sparePoisons = []any{nil}

// exclude makes m fail each schema in others while still satisfying keep.
// Object branches in the published schema are open (no
// additionalProperties: false) and share most properties, so an object
// written for one branch usually fits several. The only way to fail another
// branch without failing keep is a property keep does not declare but the
// other branch does, set to a value that branch's declaration rejects
// (preferably null). Each step picks the property that rules out the most
// remaining branches, to keep such fields few.
func (c *run) exclude(m map[string]any, keep *node, others []*node) {
	var live []*node
	for _, o := range others {
		if matches(o, m, c.mode, 0) {
			live = append(live, o)
		}
	}
	type candidate struct {
		name  string
		x     any
		cover int // live branches the poison rules out; -1: unusable
	}
	var cands []candidate // in first-seen order, which keeps choices deterministic
	index := make(map[string]int, 64)
	for len(live) > 0 {
		cands = cands[:0]
		clear(index)
		for _, o := range live {
			props := o.f().props
			for j := range props {
				p := &props[j]
				i, seen := index[p.name]
				if !seen {
					i = len(cands)
					index[p.name] = i
					cands = append(cands, candidate{name: p.name, cover: -1})
					_, present := m[p.name]
					_, declared := keep.propNode(p.name)
					if present || declared {
						continue
					}
					x, ok := c.poisonFor(p)
					if !ok {
						continue
					}
					cands[i].x, cands[i].cover = x, 0
				}
				if cd := &cands[i]; cd.cover >= 0 && !acceptsValue(p, cd.x, c.mode) {
					cd.cover++
				}
			}
		}
		bestName, bestCover := "", 0
		var bestVal any
		for _, cd := range cands {
			if cd.cover > bestCover {
				bestName, bestCover, bestVal = cd.name, cd.cover, cd.x
			}
		}
		if bestCover == 0 {
			return
		}
		m[bestName] = bestVal
		if !matches(keep, m, c.mode, 0) {
			delete(m, bestName)
			return
		}
		// Only the new property changed, so a branch still matches iff it
		// accepts that property; composite re-checks the whole value.
		kept := live[:0]
		for _, o := range live {
			if acceptsProp(o.f(), bestName, bestVal, c.mode) {
				kept = append(kept, o)
			}
		}
		live = kept
	}
}

// acceptsProp reports whether object schema n allows property name with
// value v, by its declaration, patternProperties or additionalProperties.
func acceptsProp(n *node, name string, v any, mode Mode) bool {
	if p := n.declared(name); p != nil {
		return acceptsValue(p, v, mode)
	}
	claimed := false
	for _, pp := range n.patternProps {
		if pp.pat.match.MatchString(name) {
			claimed = true
			if !matches(pp.node, v, mode, 0) {
				return false
			}
		}
	}
	switch {
	case claimed:
		return true
	case n.addl == addlFalse:
		return false
	case n.addl == addlSchema:
		return matches(n.addlNode, v, mode, 0)
	}
	return true
}

// acceptsValue reports whether the declared property p may hold v: a
// value its schema accepts, or, where the service's nulls are sent, null
// for an optional property.
func acceptsValue(p *prop, v any, mode Mode) bool {
	return v == nil && mode.nulls() && !p.required || matches(p.node, v, mode, 0)
}

// poisonFor returns the first poison value the property rejects.
func (c *run) poisonFor(p *prop) (any, bool) {
	candidates := poisons
	if c.mode.nulls() && c.spare > 0 {
		candidates = sparePoisons
	}
	for _, x := range candidates {
		if !acceptsValue(p, x, c.mode) {
			return x, true
		}
	}
	return nil, false
}

// pickType chooses which JSON type to generate for n.
func (c *run) pickType(n *node) typeMask {
	t := n.types
	if t == 0 {
		return inferType(n)
	}
	if t&tInteger != 0 && t&tNumber != 0 {
		t &^= tInteger
		if c.r.IntN(2) == 0 {
			t = t&^tNumber | tInteger
		}
	}
	if nonNull := t &^ tNull; nonNull != 0 {
		t = nonNull
	}
	k := 0
	for b := typeMask(1); b <= tNull; b <<= 1 {
		if t&b != 0 {
			k++
		}
	}
	i := 0
	if k > 1 {
		i = c.r.IntN(k)
	}
	for b := typeMask(1); b <= tNull; b <<= 1 {
		if t&b != 0 {
			if i == 0 {
				return b
			}
			i--
		}
	}
	return tObject
}

// inferType guesses the type of an untyped schema from its other keywords.
// A schema with no keywords at all gets a string (the most useful free-form
// value), unless it is an unresolved reference, which gets {}.
func inferType(n *node) typeMask {
	switch {
	case n.unresolved:
		return tObject
	case len(n.props) > 0 || n.addl != addlUnset || len(n.required) > 0 || len(n.patternProps) > 0 || n.minProps > 0 || n.disc != nil:
		return tObject
	case n.items != nil || len(n.prefix) > 0 || n.minItems > 0 || n.maxItems >= 0:
		return tArray
	case n.format == "int32" || n.format == "int64":
		return tInteger
	case n.hasMin || n.hasMax || n.multipleOf > 0 || n.format == "float" || n.format == "double":
		return tNumber
	}
	if n.hasExample {
		switch n.example.(type) {
		case map[string]any:
			return tObject
		case []any:
			return tArray
		case bool:
			return tBoolean
		case int64:
			return tInteger
		case float64:
			return tNumber
		}
	}
	return tString
}

func (c *run) plain(n *node, fd field, depth int, ot *objTimes) any {
	switch c.pickType(n) {
	case tObject:
		return c.object(n, fd, depth)
	case tArray:
		return c.array(n, fd, depth, ot)
	case tString:
		return c.str(n, fd, ot)
	case tInteger:
		return c.integer(n, fd)
	case tNumber:
		return c.number(n, fd)
	case tBoolean:
		return c.boolean(n, fd)
	}
	return nil
}

// includeProb is the chance an optional property appears: responses from
// the real service carry most fields, deep sub-objects fewer.
func includeProb(depth int) float64 {
	switch {
	case depth <= 1:
		return 0.9
	case depth == 2:
		return 0.8
	case depth == 3:
		return 0.6
	}
	return 0.4
}

func (c *run) skipForMode(n *node) bool {
	return (c.mode.dir() == Request && n.readOnly) || (c.mode.dir() == Response && n.writeOnly)
}

func (c *run) object(n *node, fd field, depth int) map[string]any {
	m := make(map[string]any, len(n.props)+1)
	if depth == 0 && c.full == 0 && len(n.props) == 1 && isObjectNode(n.props[0].node.f()) {
		c.full = 1 // a wrapper: the object it holds is the answer's content
	}
	deep := depth >= c.g.maxDepth
	var ot objTimes // shared by this object's timestamps so they line up
	for i := range n.props {
		p := &n.props[i]
		pf := p.node.f()
		isDisc := n.disc != nil && n.disc.Property == p.name
		if c.skipForMode(pf) && !isDisc {
			continue
		}
		if !p.required && !(p.usual && c.mode.dir() == Response) && depth > c.full {
			if deep || !c.chance(includeProb(depth)) {
				c.noValue(m, p.name)
				continue
			}
			if (pf.nullable || pf.types&tNull != 0) && c.r.IntN(25) == 0 {
				m[p.name] = nil
				continue
			}
		}
		before := c.failed
		c.failed = false
		v := c.spareValue(!p.required, p.node, p.field, depth+1, &ot)
		if c.failed && !p.required {
			c.failed = before
			c.noValue(m, p.name)
			continue
		}
		c.failed = c.failed || before
		m[p.name] = v
	}
	for _, r := range n.required {
		if _, ok := m[r]; ok {
			continue
		}
		if _, declared := n.propNode(r); !declared {
			m[r] = c.extraValue(n, r, depth, &ot)
		}
	}
	if !deep {
		c.extras(n, m, fd, depth, &ot)
	}
	c.fitPropertyCount(n, m, depth, &ot)
	if n.disc != nil {
		c.setDisc(n, m, n.disc.Property, n.discValue, depth)
	}
	c.bucketRef(n, m)
	return m
}

// bucketSchemes are the URL schemes of a data link's bucket by its
// provider (Seqera's data explorer documentation shows s3://, gs:// and
// az:// references).
var bucketSchemes = map[string]string{
	"aws": "s3", "seqeracompute": "s3", "google": "gs", "azure": "az", "azure_entra": "az", "azure-cloud": "az",
}

// bucketRef makes a generated data link's resource reference the address
// of the bucket it names (s3://NAME for an AWS link), as Nextflow and
// Seqera's other clients read it, rather than an unrelated word. The
// property's own schema still decides: a value it would refuse is left.
func (c *run) bucketRef(n *node, m map[string]any) {
	ref, ok := m["resourceRef"].(string)
	name, _ := m["name"].(string)
	provider, _ := m["provider"].(string)
	scheme := bucketSchemes[provider]
	if !ok || name == "" || scheme == "" {
		return
	}
	p, declared := n.propNode("resourceRef")
	if want := scheme + "://" + name; declared && want != ref && matches(p, want, c.mode, 0) {
		m["resourceRef"] = want
	}
}

// spareValue is value for a part that can be given up (spare) or not.
func (c *run) spareValue(spare bool, n *node, fd field, depth int, ot *objTimes) any {
	if !spare {
		return c.value(n, fd, depth, ot, true)
	}
	c.spare++ // a panic (cancelled) ends the run, so no defer is needed
	v := c.value(n, fd, depth, ot, true)
	c.spare--
	return v
}

// noValue leaves an optional property without a value: absent, or null
// where the run sends the service's nulls.
func (c *run) noValue(m map[string]any, name string) {
	if c.mode.nulls() {
		m[name] = nil
	}
}

func isObjectNode(n *node) bool { return n.types&tObject != 0 || len(n.props) > 0 }

// extraValue generates the value of an undeclared key: the matching
// patternProperties schema, else additionalProperties, else a string.
func (c *run) extraValue(n *node, key string, depth int, ot *objTimes) any {
	fd := field{h: lookupHeuristic(key), lname: strings.ToLower(key)}
	for _, pp := range n.patternProps {
		if pp.pat.match.MatchString(key) {
			return c.value(pp.node, fd, depth+1, ot, true)
		}
	}
	if n.addl == addlSchema {
		return c.value(n.addlNode, fd, depth+1, ot, true)
	}
	return c.str(emptyString, fd, ot)
}

var emptyString = &node{types: tString, maxLen: -1, maxItems: -1, maxProps: -1}

// extras adds the free-form entries a map-like object would carry: 0-2
// entries when additionalProperties has a schema or the object declares
// nothing at all, and sometimes one per patternProperties pattern. Never
// any when additionalProperties is false.
func (c *run) extras(n *node, m map[string]any, fd field, depth int, ot *objTimes) {
	for _, pp := range n.patternProps {
		if c.r.IntN(2) == 0 {
			continue
		}
		if key, ok := pp.pat.generate(c.r, 1, 40); ok && c.keyFree(n, m, key) {
			m[key] = c.value(pp.node, field{h: lookupHeuristic(key), lname: strings.ToLower(key)}, depth+1, ot, true)
		}
	}
	freeForm := n.addl == addlSchema ||
		(n.addl != addlFalse && len(n.props) == 0 && len(n.patternProps) == 0)
	if !freeForm {
		return
	}
	for k := c.r.IntN(3); k > 0; k-- {
		if key, ok := c.newKey(n, m, fd); ok {
			m[key] = c.extraValue(n, key, depth, ot)
		}
	}
}

// keyFree reports whether key can be added to m as an extra entry.
func (c *run) keyFree(n *node, m map[string]any, key string) bool {
	if _, taken := m[key]; taken {
		return false
	}
	if _, declared := n.propNode(key); declared {
		return false
	}
	return n.propertyNames == nil || matches(n.propertyNames, key, c.mode, 0)
}

var genericKeys = []string{"team", "project", "env", "owner", "stage", "tier", "purpose", "cost-center"}

// newKey invents a key for an extra entry, from the field's heuristic key
// list (labels, params, environment), else generic label keys, else from
// propertyNames.
func (c *run) newKey(n *node, m map[string]any, fd field) (string, bool) {
	keys := genericKeys
	if fd.h != nil && fd.h.keys != nil {
		keys = fd.h.keys
	}
	start := c.r.IntN(len(keys))
	for i := range keys {
		if k := keys[(start+i)%len(keys)]; c.keyFree(n, m, k) && c.addlAccepts(n, k) {
			return k, true
		}
	}
	if n.propertyNames != nil {
		for try := 0; try < 4; try++ {
			if k := c.str(n.propertyNames.f(), field{}, nil); c.keyFree(n, m, k) && c.addlAccepts(n, k) {
				return k, true
			}
		}
	}
	for i := 1; i < 100; i++ {
		if k := "key" + strconv.Itoa(i); c.keyFree(n, m, k) && c.addlAccepts(n, k) {
			return k, true
		}
	}
	return "", false
}

// addlAccepts reports whether an undeclared key may be added at all: not
// when additionalProperties is false, unless a patternProperties pattern
// claims the key.
func (c *run) addlAccepts(n *node, key string) bool {
	if n.addl != addlFalse {
		return true
	}
	for _, pp := range n.patternProps {
		if pp.pat.match.MatchString(key) {
			return true
		}
	}
	return false
}

// fitPropertyCount enforces minProperties/maxProperties: first by adding
// or dropping optional declared properties, then with extra entries.
func (c *run) fitPropertyCount(n *node, m map[string]any, depth int, ot *objTimes) {
	for i := 0; i < len(n.props) && len(m) < n.minProps; i++ {
		p := &n.props[i]
		if _, ok := m[p.name]; !ok && !c.skipForMode(p.node.f()) {
			m[p.name] = c.value(p.node, p.field, depth+1, ot, true)
		}
	}
	for len(m) < n.minProps {
		key, ok := c.newKey(n, m, field{})
		if !ok {
			break
		}
		m[key] = c.extraValue(n, key, depth, ot)
	}
	if n.maxProps < 0 || len(m) <= n.maxProps {
		return
	}
	for i := len(n.props) - 1; i >= 0 && len(m) > n.maxProps; i-- {
		if p := &n.props[i]; !p.required {
			delete(m, p.name)
		}
	}
	if len(m) > n.maxProps {
		keys := make([]string, 0, len(m))
		for k := range m {
			if _, declared := n.propNode(k); !declared {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if len(m) <= n.maxProps {
				break
			}
			delete(m, k)
		}
	}
}

// setDisc makes sure an object with a discriminator carries the
// discriminator property (the validator insists on it) with the value that
// names its schema, if that value is acceptable to the property's schema.
func (c *run) setDisc(n *node, m map[string]any, propName, val string, depth int) {
	pn, declared := n.propNode(propName)
	if val != "" && (!declared || matches(pn, val, c.mode, 0)) {
		m[propName] = val
		return
	}
	if _, ok := m[propName]; ok {
		return
	}
	if declared {
		m[propName] = c.value(pn, field{lname: propName}, depth+1, nil, true)
	} else {
		m[propName] = val
	}
}

func (c *run) array(n *node, fd field, depth int, ot *objTimes) []any {
	count := n.minItems
	if depth < c.g.maxDepth {
		lo, hi := 0, 2
		if depth <= 1 {
			lo, hi = 1, 3
		}
		count = lo + c.r.IntN(hi-lo+1)
		count = max(count, n.minItems)
	}
	if n.maxItems >= 0 {
		count = min(count, n.maxItems)
	}
	if n.noItems {
		count = min(count, len(n.prefix))
	}
	a := make([]any, 0, count)
	for i := 0; i < count; i++ {
		item := n.items
		if i < len(n.prefix) {
			item = n.prefix[i]
		}
		if item == nil {
			item = emptyString
		}
		before := c.failed
		c.failed = false
		v := c.spareValue(len(a) >= n.minItems, item, fd, depth, ot)
		if c.failed && len(a) >= n.minItems {
			c.failed = before
			break
		}
		c.failed = c.failed || before
		for try := 0; n.unique && try < 8 && slices.ContainsFunc(a, func(e any) bool { return jsonEqual(e, v) }); try++ {
			v = c.value(item, fd, depth, ot, true)
		}
		if n.unique && slices.ContainsFunc(a, func(e any) bool { return jsonEqual(e, v) }) && len(a) >= n.minItems {
			break
		}
		a = append(a, v)
	}
	return a
}
