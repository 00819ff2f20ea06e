package resources

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Tokens (CONTRACT A2): a created token's value is in the create answer
// and nowhere else; the store keeps only its hash. The handlers work on the
// server's own token store, the one every call is checked against, so a new
// token authenticates the very next call and a deleted one is refused by it.

func (s *Service) registerTokens() {
	s.handle(s.op("GET", "/tokens"), s.listTokens)
	s.handle(s.op("POST", "/tokens"), s.createToken)
	s.handle(s.op("DELETE", "/tokens/delete-all"), s.deleteAllTokens)
	s.handle(s.op("DELETE", "/tokens/{tokenId}"), s.deleteToken)
}

// tokenJSON renders a token for the AccessToken schema. A token never used
// has a null lastUsed where the schema allows it, and none otherwise.
func (s *Service) tokenJSON(sch *spec.Schema, t auth.Token) map[string]any {
	m := s.bases.Object(sch, "token/"+strconv.FormatInt(t.ID, 10))
	var lastUsed any
	if t.LastUsed != nil {
		lastUsed = Stamp(*t.LastUsed)
	}
	s.fit.Overlay(sch, m, map[string]any{
		"id":          t.ID,
		"name":        t.Name,
		"dateCreated": Stamp(t.Created),
		"lastUsed":    lastUsed,
		"basicAuth":   nil,
	})
	return m
}

func (s *Service) listTokens(req *handler.Request) (*handler.Response, error) {
	sch := SuccessSchema(req.Op)
	root := s.bases.Object(sch, "tokens")
	key, item := sch.ListShape()
	if key == "" {
		return nil, fmt.Errorf("resources: %s has no list of tokens in its answer", req.Op.ID)
	}
	tokens, err := s.d.Tokens.List()
	if err != nil {
		return nil, err
	}
	list := []any{}
	for _, t := range tokens {
		if t.Revoked {
			continue
		}
		list = append(list, s.tokenJSON(item, t))
	}
	root[key] = list
	return Success(req.Op, root), nil
}

func (s *Service) createToken(req *handler.Request) (*handler.Response, error) {
	body, err := RequestObject(req)
	if err != nil {
		return nil, err
	}
	name, _ := body["name"].(string)
	if strings.TrimSpace(name) == "" {
		return nil, Fail(ErrBadInput, "a token needs a name")
	}
	tok, value, err := s.d.Tokens.Create(name)
	switch {
	case errors.Is(err, auth.ErrDuplicateName):
		return nil, Fail(ErrDuplicate, "An access token with name '%s' already exists", name)
	case errors.Is(err, auth.ErrInvalidName):
		return nil, Fail(ErrBadInput, "invalid token name %q", name)
	case err != nil:
		return nil, err
	}
	sch := SuccessSchema(req.Op)
	root := s.bases.Object(sch, "token created/"+strconv.FormatInt(tok.ID, 10))
	root["accessKey"] = value
	if ts := sch.Prop("token"); ts != nil {
		root["token"] = s.tokenJSON(ts, tok)
	}
	return Success(req.Op, root), nil
}

func (s *Service) deleteToken(req *handler.Request) (*handler.Response, error) {
	id, err := strconv.ParseInt(req.PathParams["tokenId"], 10, 64)
	if err != nil {
		return nil, Fail(ErrBadInput, "tokenId %q is not a number", req.PathParams["tokenId"])
	}
	if err := s.d.Tokens.Delete(id); errors.Is(err, auth.ErrNotFound) {
		return nil, Fail(ErrMissing, "no token with id %d", id)
	} else if err != nil {
		return nil, err
	}
	return Success(req.Op, nil), nil
}

// deleteAllTokens removes every token the user created. The tokens the fake
// was started with stay (pinned): they are its configuration, not the
// user's.
func (s *Service) deleteAllTokens(req *handler.Request) (*handler.Response, error) {
	if _, err := s.d.Tokens.DeleteAll(); err != nil {
		return nil, err
	}
	return Success(req.Op, nil), nil
}
