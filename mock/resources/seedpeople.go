package resources

import (
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/mock/synth"
)

// The seeded account's people hang together. Its organization's first
// member is the fake's one user (the caller, as user-info shows them) and
// its owner; the others are people the fake makes up, each with one name,
// one user name and one e-mail made from it, and no user id (the fake
// describes one user, the caller). A team's seeded members and a workspace's seeded
// participants are members of the organization, under the member's id
// and with the member's name and e-mail, as the service has them: a
// participant or team member is an organization member seen from there.

// seedPerson fills d with the n-th seeded person of c, where c is a
// collection of people; it reports the id the item must have (a team
// member's is the organization member's), or "" for a new one, and false
// when c holds no people.
func (c *Collection) seedPerson(n int, key string, d *Item) (id string, ok bool) {
	if c.param != "memberId" && c.param != "participantId" || c.item.Prop("email") == nil {
		return "", false
	}
	members := c.s.namedBy("memberId")
	if c == members {
		for k, v := range c.s.seededMember(n, key) {
			if c.item.Prop(k) != nil {
				d.Fields[k] = v
			}
		}
		return "", true
	}
	// A team's member or a workspace's participant: the organization's
	// n-th member.
	coll, held := c.s.heldPath(members.listPath)
	if !held {
		return "", true
	}
	r, err := c.s.d.Store.Get(coll, members.idOf(n))
	if err != nil {
		return "", true
	}
	m, err := DecodeItem(r)
	if err != nil {
		return "", true
	}
	for _, k := range []string{"email", "userName", "firstName", "lastName"} {
		if v, ok := m.Fields[k]; ok && c.item.Prop(k) != nil {
			d.Fields[k] = v
		}
	}
	if c.param == "memberId" {
		d.Fields["memberId"] = members.idValue(r.ID)
		return r.ID, true
	}
	// A member joins as themself, not through a team: the team's
	// properties are empty. The organization's owner owns its workspaces.
	joined := map[string]any{"memberId": members.idValue(r.ID), "type": "MEMBER", "orgRole": m.Fields["role"],
		"teamId": nil, "teamName": nil, "teamAvatarUrl": nil}
	if m.Fields["role"] == "owner" {
		joined["wspRole"] = "owner"
	}
	for k, v := range joined {
		if c.item.Prop(k) != nil {
			d.Fields[k] = v
		}
	}
	return "", true
}

// idOf is the id the n-th item of a collection with numeric ids in
// sequence gets.
func (c *Collection) idOf(n int) string { return strconv.Itoa(n) }

// seededMember is the n-th member of the seeded organization: the
// caller first, as owner, then made-up people.
func (s *Service) seededMember(n int, key string) map[string]any {
	if n == 1 {
		if r, err := s.d.Store.Get(UserCollection, UserID); err == nil {
			if u, err := DecodeObject(r.Data); err == nil && u["id"] != nil {
				return map[string]any{
					"userId": u["id"], "userName": u["userName"], "email": u["email"],
					"firstName": u["firstName"], "lastName": u["lastName"], "avatar": u["avatar"],
					"role": "owner",
				}
			}
		}
	}
	first, last := synth.Person(s.d.Gen.Rand(key + " person"))
	user := strings.ToLower(first + "." + last)
	// The fake holds one user, the caller: another member's user id
	// would name a user nobody can describe, so it is not known (null).
	return map[string]any{
		"userId": nil, "userName": user, "email": user + "@example.com",
		"firstName": first, "lastName": last, "role": "member",
	}
}
