package resources

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Some collections are added to by naming who joins rather than by a
// create: a workspace's participants (PUT .../participants/add, a member,
// a team or a user's name or e-mail) and an organization's members (PUT
// .../members/add, a user's name or e-mail). Such an item holds what the
// call named and what the service derives from it (its kind, its default
// role); the person or team it names is shown as that record is, through
// the copies of held records (copies.go). A role below an item
// (.../participants/{participantId}/role, .../members/{memberId}/role) is
// set with a body of one member, {"role": ...}. Both are found in the
// document by these path shapes, not named in code.

// addDefaults are what the service gives an added item of a kind (by its
// id parameter) beside what the call named.
var addDefaults = map[string]map[string]any{
	// Seen: the service's command line client's documentation ("The
	// default role assigned to a collaborator is Launch") and its recorded
	// answers to participants add ("wspRole": "launch"). (The Terraform
	// provider's participant resource assumes "view" instead, with no
	// recorded answer behind it.)
	"participantId": {"wspRole": "launch"},
	// Seen: the published schema's OrgRole (owner, member, collaborator):
	// a user added to an organization is a member.
	"memberId": {"role": "member"},
}

// roleProps names, per kind, the property a .../role call sets.
var roleProps = map[string]string{"participantId": "wspRole", "memberId": "role"}

func (s *Service) registerAdds() {
	for _, c := range s.colls {
		if c.list == nil {
			continue
		}
		for _, method := range []string{"PUT", "POST"} {
			s.handle(s.op(method, c.listPath+"/add"), c.addOp)
		}
		if prop := roleProps[c.param]; prop != "" {
			s.handle(s.op("PUT", c.itemPath+"/role"), c.roleOp(prop))
		}
	}
}

// addOp adds the member, team or user the body names to the collection,
// once: a second add of the same is a conflict, as on the service.
func (c *Collection) addOp(req *handler.Request) (*handler.Response, error) {
	body, err := RequestObject(req)
	if err != nil {
		return nil, err
	}
	if err := c.checkParent(req); err != nil {
		return nil, err
	}
	fields := c.keepFields(body, RequestSchema(req.Op), false)
	for k, v := range body {
		// A user is named by name or e-mail in one member (user,
		// userNameOrEmail): an e-mail has an @.
		name, ok := v.(string)
		if !ok || name == "" || (k != "user" && !strings.HasPrefix(k, "userNameOr")) {
			continue
		}
		if strings.Contains(name, "@") {
			fields["email"] = name
		} else {
			fields["userName"] = name
		}
	}
	if len(fields) == 0 {
		return nil, Fail(ErrBadInput, "%s names no one to add", req.Op.ID)
	}
	coll := Concrete(c.listPath, req.PathParams)
	for k, v := range addDefaults[c.param] {
		if c.item.Prop(k) != nil {
			fields[k] = v
		}
	}
	if c.item.Prop("type") != nil && c.param == "participantId" {
		fields["type"] = participantType(fields, c.s, req)
	}
	if c.param == "memberId" && c != c.s.namedBy("memberId") {
		// A team's member is a member of the team's organization, under
		// the same id: the organization's member it names joins.
		members := c.s.namedBy("memberId")
		id, ok := members.memberNamed(fields, req)
		if !ok {
			// Only a member can join a team (the Terraform provider's
			// team member: "organization members who have been added to
			// a specific team"). A Bad Request, not the missing-resource
			// reply: the call names a person, not a resource by its id.
			return nil, Fail(ErrBadInput, "%s: %v is not a member of the organization", req.Op.ID, firstOf(fields, "email", "userName"))
		}
		return c.join(req, coll, id, fields)
	}
	if c.param == "participantId" && fields["memberId"] != nil {
		if h, ok := c.s.heldBy("memberId", fields["memberId"], nil, req.Now); ok && h.view["role"] != nil {
			fields["orgRole"] = h.view["role"]
		}
	} else if c.param == "participantId" && fields["type"] == "COLLABORATOR" {
		fields["orgRole"] = "collaborator"
	}
	c.s.nameMu.Lock()
	defer c.s.nameMu.Unlock()
	if dup, err := c.alreadyIn(coll, fields); err != nil || dup {
		if err == nil {
			err = Fail(ErrDuplicate, "Duplicate element: already in %s", coll)
		}
		return nil, err
	}
	d := &Item{Fields: fields}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	rec := store.Record{Created: req.Now.UTC(), Updated: req.Now.UTC(), Data: b}
	r, err := InsertRecord(c.s.d.Store, coll, c.newID(coll), func(string) (store.Record, error) { return rec, nil })
	if err == nil {
		err = c.remember(coll, r.ID)
	}
	if err != nil {
		return nil, err
	}
	return Success(req.Op, c.RenderAnswer(SuccessSchema(req.Op), coll, r, d, req.Now)), nil
}

// participantType is the kind of participant an add makes: a team, a
// member of the organization, or a collaborator (a user from outside it).
func participantType(fields map[string]any, s *Service, req *handler.Request) string {
	switch {
	case fields["teamId"] != nil:
		return "TEAM"
	case fields["memberId"] != nil:
		return "MEMBER"
	}
	// A user named by e-mail or name who is a member of the organization
	// joins as that member.
	if members := s.namedBy("memberId"); members != nil {
		if id, ok := members.memberNamed(fields, req); ok {
			fields["memberId"] = members.idValue(id)
			return "MEMBER"
		}
	}
	return "COLLABORATOR"
}

// memberNamed finds the member of the request's organization (c is the
// organization's members) whose e-mail or user name is the one fields
// holds.
func (c *Collection) memberNamed(fields map[string]any, req *handler.Request) (string, bool) {
	if c == nil || !c.Indexed() {
		return "", false
	}
	recs, err := listSome(c.s.d.Store, Concrete(c.listPath, req.PathParams))
	if err != nil {
		return "", false
	}
	for _, r := range recs {
		d, err := DecodeItem(r)
		if err != nil {
			continue
		}
		for _, k := range []string{"email", "userName"} {
			if v := fields[k]; v != nil && d.Fields[k] == v {
				return r.ID, true
			}
		}
	}
	return "", false
}

// join adds the organization's member id to a team's members, holding
// the id and the name or e-mail the call gave (which a search of the
// team finds): what else the member is (names, role) is the
// organization's record, shown through the copies of held records.
func (c *Collection) join(req *handler.Request, coll, id string, named map[string]any) (*handler.Response, error) {
	fields := map[string]any{c.idProp: c.idValue(id)}
	for _, k := range []string{"email", "userName"} {
		if v, ok := named[k]; ok {
			fields[k] = v
		}
	}
	d := &Item{Fields: fields}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	r, err := c.s.d.Store.Insert(coll, store.Record{ID: id, Created: req.Now.UTC(), Updated: req.Now.UTC(), Data: b})
	if errors.Is(err, store.ErrExists) {
		return nil, Fail(ErrDuplicate, "Duplicate element: already in %s", coll)
	}
	if err == nil {
		err = c.remember(coll, r.ID)
	}
	if err != nil {
		return nil, err
	}
	return Success(req.Op, c.RenderAnswer(SuccessSchema(req.Op), coll, r, d, req.Now)), nil
}

// namesPerson reports a create whose body names who joins (a user's name
// or e-mail) rather than describing a new item.
func namesPerson(op *spec.Operation) bool {
	if op == nil {
		return false
	}
	sch := RequestSchema(op)
	if sch.Prop("name") != nil {
		return false
	}
	for _, k := range sch.PropNames() {
		if strings.HasPrefix(k, "userNameOr") {
			return true
		}
	}
	return false
}

// firstOf is the first of keys that m holds, for messages.
func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

// alreadyIn reports whether an item of coll already names the member,
// team or user fields names.
func (c *Collection) alreadyIn(coll string, fields map[string]any) (bool, error) {
	recs, err := listSome(c.s.d.Store, coll)
	if err != nil {
		return false, err
	}
	for _, r := range recs {
		d, err := DecodeItem(r)
		if err != nil {
			return false, err
		}
		for _, k := range []string{"memberId", "teamId", "email", "userName"} {
			if v := fields[k]; v != nil && FmtID(d.Fields[k]) == FmtID(v) {
				return true, nil
			}
		}
	}
	return false, nil
}

// roleOp sets an item's role (prop) to the body's one member.
func (c *Collection) roleOp(prop string) handler.Func {
	return func(req *handler.Request) (*handler.Response, error) {
		coll, r, _, err := c.Get(req)
		if err != nil {
			return nil, err
		}
		body, err := RequestObject(req)
		if err != nil {
			return nil, err
		}
		role, _ := body["role"].(string)
		if role == "" {
			return nil, Fail(ErrBadInput, "%s needs a role", req.Op.ID)
		}
		if err := c.change(coll, r.ID, req.Now, func(d *Item) { d.Fields[prop] = strings.ToLower(role) }); err != nil {
			return nil, err
		}
		return Success(req.Op, nil), nil
	}
}
