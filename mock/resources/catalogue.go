package resources

import (
	"github.com/wmsmock/wmsmock/mock/catalogue"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// The sets the service defines (its permissions, predefined roles,
// platforms and their regions) are answered from mock/catalogue: a client
// finds there what it would find on the service, and what nobody has seen
// the service answer is null or an empty list, never made up.

func (s *Service) registerCatalogue() {
	s.handle(s.op("GET", "/roles/permissions"), s.permissionsOp)
	s.handle(s.op("GET", "/platforms/{platformId}/regions"), s.regionsOp)
}

// catalogueFields are what the catalogue says of the entry id of c: a
// predefined role's description and permissions, a platform's name.
func catalogueFields(c *Collection, id string) map[string]any {
	fields := map[string]any{}
	switch c.param {
	case "roleName":
		if d, ok := catalogue.RoleDescription(id); ok && c.item.Prop("description") != nil {
			fields["description"] = d
		}
		if ps := catalogue.RolePermissions(id); ps != nil && c.item.Prop("permissions") != nil {
			fields["permissions"] = anyList(ps)
		}
	case "platformId":
		if n := catalogue.PlatformName(id); n != "" {
			fields["name"] = n
		}
	}
	return fields
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// permissionsOp lists the permissions a role can grant.
func (s *Service) permissionsOp(req *handler.Request) (*handler.Response, error) {
	sch := SuccessSchema(req.Op)
	key, entry := sch.ListShape()
	root := s.bases.Bare(sch, "permissions")
	var out []any
	name := req.Query.Get("name")
	for _, p := range catalogue.Permissions() {
		if name != "" && p.Name != name {
			continue
		}
		var category any
		if p.Category != "" {
			category = p.Category
		}
		e := s.bases.Bare(entry, "permission")
		s.fit.Overlay(entry, e, map[string]any{"name": p.Name, "category": category})
		out = append(out, e)
	}
	if key != "" {
		root[key] = append([]any{}, out...)
	}
	return Success(req.Op, root), nil
}

// regionsOp lists a platform's regions, for a platform the fake holds.
func (s *Service) regionsOp(req *handler.Request) (*handler.Response, error) {
	id := req.PathParams["platformId"]
	if c := s.namedBy("platformId"); c != nil {
		if err := c.locate(id); err != nil {
			return nil, err
		}
	}
	sch := SuccessSchema(req.Op)
	key, entry := sch.ListShape()
	root := s.bases.Bare(sch, "regions")
	out := []any{}
	for _, r := range catalogue.Regions(id) {
		e := s.bases.Bare(entry, "region")
		s.fit.Overlay(entry, e, map[string]any{"id": r.ID, "name": r.Name})
		out = append(out, e)
	}
	if key != "" {
		root[key] = out
	}
	return Success(req.Op, root), nil
}

// checkPermissions refuses a role written with a permission the service
// does not have (the Terraform provider's design notes: permissions must
// be valid, else 400): a role created here is one the service would take.
func checkPermissions(c *Collection, fields map[string]any) error {
	if c.param != "roleName" {
		return nil
	}
	list, _ := fields["permissions"].([]any)
	for _, p := range list {
		name, _ := p.(string)
		if !catalogue.HasPermission(name) {
			return Fail(ErrBadInput, "Unknown permission '%v'", p)
		}
	}
	return nil
}
