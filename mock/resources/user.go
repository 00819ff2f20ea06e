package resources

import (
	"encoding/json"
	"errors"
	"strings"

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
	return answer(req.Op, root), nil
}

// registerSubresources guards the operations below a stateful item that
// keep synthesized answers (/workflow/{workflowId}/log,
// /pipelines/{pipelineId}/schema...): they answer 403 once the item does
// not exist, like everything else about it.
func (s *Service) registerSubresources() {
	if s.d.Fallback == nil {
		return
	}
	for _, op := range s.doc.Operations {
		if _, taken := s.handlers[op]; taken {
			continue
		}
		if strings.HasPrefix(op.Path, "/workflow/{workflowId}/") && s.wf != nil {
			s.handle(op, s.guard(func(req *handler.Request) error {
				_, _, err := s.wf.get(req)
				return err
			}))
			continue
		}
		var owner *collection
		for _, c := range s.colls {
			if strings.HasPrefix(op.Path, c.itemPath+"/") && (owner == nil || len(c.itemPath) > len(owner.itemPath)) {
				owner = c
			}
		}
		if owner != nil {
			c := owner
			s.handle(op, s.guard(func(req *handler.Request) error {
				_, _, _, err := c.get(req)
				return err
			}))
		}
	}
}

func (s *Service) guard(exists func(*handler.Request) error) handler.Func {
	return func(req *handler.Request) (*handler.Response, error) {
		if err := exists(req); err != nil {
			return nil, err
		}
		return s.d.Fallback(req)
	}
}
