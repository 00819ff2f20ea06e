package resources

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/store"
)

// UserCollection holds the one user the fake serves (id "me"): the owner
// of every token, from the seed.
const UserCollection = "user"

// UserID is the id of the seeded user's record.
const UserID = "me"

func (s *Service) registerUser() {
	s.handle(s.op("GET", "/user-info"), s.userInfo)
	s.handle(s.op("GET", "/users/{userId}"), s.describeUser)
	s.handle(s.op("GET", "/user/{userId}/workspaces"), s.userWorkspaces)
}

// describeUser answers /users/{userId} for the seeded user, whom every
// userId in the fake's answers names, with the id asked for; another id
// names nobody the fake holds. Without a seeded user the answer is
// synthesized, as before there was state.
func (s *Service) describeUser(req *handler.Request) (*handler.Response, error) {
	id, ok := s.userID()
	if !ok {
		return nil, handler.ErrSynthesize
	}
	if asked := req.PathParams["userId"]; asked != fmt.Sprint(id) {
		return nil, Fail(ErrMissing, "no user %q: the fake holds user %v", asked, id)
	}
	return s.userInfo(req)
}

// userInfo answers with the seeded user; without a seeded user the answer
// is synthesized, as before there was state.
func (s *Service) userInfo(req *handler.Request) (*handler.Response, error) {
	r, err := s.d.Store.Get(UserCollection, UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, handler.ErrSynthesize
	}
	if err != nil {
		return nil, err
	}
	var fields map[string]any
	if err := json.Unmarshal(r.Data, &fields); err != nil {
		return nil, err
	}
	sch := SuccessSchema(req.Op)
	root := s.bases.Object(sch, "user-info")
	if u, us := s.bases.Child(sch, root, "user", "user-info"); us != nil {
		s.fit.Overlay(us, u, fields)
		root["user"] = u
	}
	s.fit.Set(sch, root, "needConsent", false)
	// The user's default workspace is one the fake holds, as the seed
	// names it, or none.
	var def any
	if ws, ok := jsonvalue.Int(fields["defaultWorkspaceId"]); ok && s.workspaceExists(ws) == nil {
		def = ws
	}
	s.fit.Set(sch, root, "defaultWorkspaceId", def)
	return Success(req.Op, root), nil
}

// maxUserWorkspaces bounds the organizations, and the workspaces of each,
// that one answer of /user/{userId}/workspaces lists (the operation has no
// paging).
const maxUserWorkspaces = 500

// userWorkspaces answers the organizations and workspaces the user
// belongs to, built from those the fake holds: one entry per organization
// (its workspace members null), then one per workspace, each once, as the
// service lists them (tower-cli finds an organization by the entry whose
// workspaceName is null, a workspace by its organization's and its own
// names). The user owns every organization the fake holds, so it is an
// owner of each workspace in them.
func (s *Service) userWorkspaces(req *handler.Request) (*handler.Response, error) {
	if err := s.userExists(req.PathParams["userId"]); err != nil {
		return nil, err
	}
	sch := SuccessSchema(req.Op)
	key, entry := sch.ListShape()
	if key == "" {
		return nil, fmt.Errorf("resources: %s has no list in its answer", req.Op.ID)
	}
	orgs, wss := s.namedBy("orgId"), s.namedBy("workspaceId")
	root := s.bases.Bare(sch, "user workspaces")
	var orgEntries, wsEntries []any
	if orgs != nil {
		recs, err := listSome(s.d.Store, orgs.listPath)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			d, err := DecodeItem(r)
			if err != nil {
				return nil, err
			}
			role, _ := d.Fields["memberRole"].(string)
			roles := []any{}
			if role != "" {
				roles = append(roles, role)
			}
			orgID := orgs.idValue(r.ID)
			e := s.bases.Bare(entry, "user workspaces entry")
			s.fit.Overlay(entry, e, map[string]any{"orgId": orgID, "workspaceId": nil, "roles": roles, "orgName": nil})
			orgEntries = append(orgEntries, e)
			if wss == nil || !wss.Indexed() {
				continue
			}
			coll := Concrete(wss.listPath, map[string]string{"orgId": r.ID})
			ws, err := listSome(s.d.Store, coll)
			if err != nil {
				return nil, err
			}
			for _, w := range ws {
				var visibility any
				if h, ok := s.heldBy("workspaceId", w.ID, nil, req.Now); ok {
					visibility = h.view["visibility"]
				}
				var wroles []any
				if role == "owner" {
					wroles = []any{"owner"}
				}
				e := s.bases.Bare(entry, "user workspaces entry")
				s.fit.Overlay(entry, e, map[string]any{"orgId": orgID, "workspaceId": wss.idValue(w.ID), "roles": wroles,
					"workspaceName": nil, "orgName": nil, "visibility": visibility})
				wsEntries = append(wsEntries, e)
			}
		}
	}
	root[key] = append(append([]any{}, orgEntries...), wsEntries...)
	return Success(req.Op, root), nil
}

// seededUser reads the seeded user's id and name.
func (s *Service) seededUser() (id any, name string, ok bool) {
	r, err := s.d.Store.Get(UserCollection, UserID)
	if err != nil {
		return nil, "", false
	}
	u, err := s.users.Do(headKey{UserCollection, r.ID, s.fingerprint(r.Data)}, func() (seeded, error) {
		var u seeded
		return u, json.Unmarshal(r.Data, &u)
	})
	if err != nil {
		return nil, "", false
	}
	return u.ID, u.UserName, true
}

// seeded is the part of the seeded user's record runs and references
// read; it is decoded once per version of the record (Service.users),
// since every launch reads it.
type seeded struct {
	ID       any    `json:"id"`
	UserName string `json:"userName"`
}

// userName is the name runs started by the caller carry: the seeded
// user's, or the fake's own name without a seeded user.
func (s *Service) userName() string {
	if _, name, ok := s.seededUser(); ok && name != "" {
		return name
	}
	return "wmsmock"
}

// userID is the seeded user's id, when there is one.
func (s *Service) userID() (any, bool) {
	id, _, ok := s.seededUser()
	return id, ok && id != nil
}

// ownerID is the id answers give as a record's owner: the seeded user's,
// whom every token belongs to, or null without a seeded user.
func (s *Service) ownerID() any {
	if id, ok := s.userID(); ok {
		return id
	}
	return nil
}

// listSome lists at most maxUserWorkspaces records of coll, newest first:
// for answers that list a collection without paging it.
func listSome(st store.Store, coll string) ([]store.Record, error) {
	recs, err := st.List(coll)
	if len(recs) > maxUserWorkspaces {
		recs = recs[:maxUserWorkspaces]
	}
	return recs, err
}
