package proxy

import (
	"sort"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// SecretNames lists the properties the document marks as secret: those
// that are writeOnly (sent, never shown back: keys, passwords) or have
// format password, anywhere among its component schemas. The recording
// redacts their string values, besides the names that say secret by
// themselves (package recording).
func SecretNames(doc *spec.Document) []string {
	found := map[string]bool{}
	seen := map[*base.Schema]bool{}
	var walk func(*base.SchemaProxy)
	walk = func(sp *base.SchemaProxy) {
		if sp == nil {
			return
		}
		s := sp.Schema()
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Properties != nil {
			for p := s.Properties.First(); p != nil; p = p.Next() {
				if ps := p.Value().Schema(); ps != nil && ((ps.WriteOnly != nil && *ps.WriteOnly) || ps.Format == "password") {
					found[p.Key()] = true
				}
				walk(p.Value())
			}
		}
		for _, list := range [][]*base.SchemaProxy{s.AllOf, s.OneOf, s.AnyOf} {
			for _, c := range list {
				walk(c)
			}
		}
		if s.Items != nil && s.Items.IsA() {
			walk(s.Items.A)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.IsA() {
			walk(s.AdditionalProperties.A)
		}
	}
	doc.Guard(func() {
		if c := doc.Model.Components; c != nil && c.Schemas != nil {
			for s := c.Schemas.First(); s != nil; s = s.Next() {
				walk(s.Value())
			}
		}
	})
	out := make([]string, 0, len(found))
	for n := range found {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
