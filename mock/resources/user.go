package resources

import (
	"encoding/json"
	"errors"
	"fmt"

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
}

// describeUser answers /users/{userId} for the seeded user, whom every
// userId in the fake's answers names, with the id asked for; another id
// names nobody the fake holds. Without a seeded user the answer is
// synthesized, as before there was state.
func (s *Service) describeUser(req *handler.Request) (*handler.Response, error) {
	id, ok := s.userID()
	if !ok {
		if s.d.Fallback != nil {
			return s.d.Fallback(req)
		}
		return nil, fail(errMissing, "the fake holds no user")
	}
	if asked := req.PathParams["userId"]; asked != fmt.Sprint(id) {
		return nil, fail(errMissing, "no user %q: the fake holds user %v", asked, id)
	}
	return s.userInfo(req)
}

// userInfo answers with the seeded user; without a seeded user the answer
// is synthesized, as before there was state.
func (s *Service) userInfo(req *handler.Request) (*handler.Response, error) {
	r, err := s.d.Store.Get(UserCollection, UserID)
	if errors.Is(err, store.ErrNotFound) && s.d.Fallback != nil {
		return s.d.Fallback(req)
	}
	if err != nil {
		return nil, err
	}
	var fields map[string]any
	if err := json.Unmarshal(r.Data, &fields); err != nil {
		return nil, err
	}
	sch := successSchema(req.Op)
	root := s.bases.object(sch, "user-info")
	if u, us := s.bases.child(sch, root, "user", "user-info"); us != nil {
		s.fit.overlay(us, u, fields)
		root["user"] = u
	}
	s.fit.set(sch, root, "needConsent", false)
	return success(req.Op, root), nil
}

// seededUser reads the seeded user's id and name.
func (s *Service) seededUser() (id any, name string, ok bool) {
	r, err := s.d.Store.Get(UserCollection, UserID)
	if err != nil {
		return nil, "", false
	}
	u, err := s.users.Do(decodedKey{r.ID, s.hash.bytes(r.Data)}, func() (seeded, error) {
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
