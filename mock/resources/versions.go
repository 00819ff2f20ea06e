package resources

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// A pipeline shows the version its answers describe (PipelineDbDto's
// version), and every id an answer shows works in the operations that take
// it (issue 37): the version can be listed (GET .../versions), updated
// (POST .../versions/{versionId}), managed (PUT .../manage: renamed, made
// default) and launched (GET .../launch?versionId=). The fake keeps one
// version per pipeline, its default, whose id follows from the pipeline
// record (the same in every answer), named as the client named it (the
// create body's version.name, or manage), and whose hash covers the launch
// settings, as the service's does (its documentation: the hash is computed
// over the fields that make a new version). A client that updates a
// pipeline updates that version; the drafts the service makes of such
// updates are not modelled.

// registerVersions claims a versioned collection's version operations,
// found by their paths below the item: /versions, /versions/validate,
// /versions/{versionId}, /versions/{versionId}/manage.
func (s *Service) registerVersions() {
	for _, c := range slices.Clone(s.colls) {
		vs, manage := s.op("GET", c.itemPath+"/versions"), s.op("PUT", c.itemPath+"/versions/{versionId}/manage")
		if vs == nil || manage == nil || !c.item.Prop("version").IsObject() {
			continue
		}
		c.versioned = true
		// The versions are not a collection of their own (the generic
		// collections found a list and an item path there): they are the
		// pipeline's.
		s.colls = slices.DeleteFunc(s.colls, func(o *Collection) bool { return o.listPath == c.itemPath+"/versions" })
		for _, op := range []*spec.Operation{vs, s.op("POST", c.itemPath+"/versions/{versionId}")} {
			delete(s.handlers, op)
		}
		s.handle(vs, c.versionsOp)
		s.handle(s.op("GET", c.itemPath+"/versions/validate"), c.validateVersionOp)
		s.handle(s.op("POST", c.itemPath+"/versions/{versionId}"), c.versionOp(c.updateOp))
		s.handle(manage, c.versionOp(c.manageOp))
	}
}

// version is a record's one version, as PipelineVersionFullInfoDto.
func (c *Collection) version(coll string, r store.Record, d *Item) map[string]any {
	v := map[string]any{
		"id": c.versionID(coll, r, d), "isDefault": true, "hash": versionHash(d.Fields["launch"]),
		"dateCreated": Stamp(r.Created), "lastUpdated": Stamp(r.Updated), "name": nil,
		"creatorUserId": nil, "creatorUserName": nil, "creatorFirstName": nil, "creatorLastName": nil, "creatorAvatarUrl": nil,
	}
	if w, ok := d.Fields["version"].(map[string]any); ok && w["name"] != nil {
		v["name"] = w["name"]
	} else if d.Seeded {
		v["name"] = d.Fields["name"]
	}
	// Every record is the seeded user's: the user is its creator.
	if u, ok := c.s.heldUser(c.s.ownerID()); ok {
		v["creatorUserId"], v["creatorUserName"] = u.view["id"], u.view["userName"]
		v["creatorFirstName"], v["creatorLastName"], v["creatorAvatarUrl"] = u.view["firstName"], u.view["lastName"], u.view["avatar"]
	}
	return v
}

// versionID is the id of a record's version: drawn from the record's key,
// so it is the same at every read and for no other record.
func (c *Collection) versionID(coll string, r store.Record, d *Item) string {
	return synth.IDN(c.s.d.Gen.Rand("version of "+recordKey(coll, r, d)), 22)
}

// versionHash covers a version's launch settings, in the service's form
// (base64 of "$v5:" and a hex digest).
func versionHash(launch any) string {
	b, _ := json.Marshal(launch)
	sum := sha512.Sum512(b)
	return base64.StdEncoding.EncodeToString([]byte("$v5:" + hex.EncodeToString(sum[:])))
}

// versionsOp lists a record's versions: its one, published, version.
func (c *Collection) versionsOp(req *handler.Request) (*handler.Response, error) {
	coll, r, d, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	sch := SuccessSchema(req.Op)
	key, entry := sch.ListShape()
	root := c.s.bases.Bare(sch, "versions")
	var entries []any
	if req.Query.Get("isPublished") != "false" && (req.Query.Get("search") == "" || c.versionMatches(coll, r, d, req.Query.Get("search"))) {
		entries = append(entries, c.RenderItem(entry, coll, r, d, req.Now))
	}
	if key != "" {
		root[key] = append([]any{}, entries...)
	}
	c.s.fit.Set(sch, root, "totalSize", int64(len(entries)))
	return Success(req.Op, root), nil
}

func (c *Collection) versionMatches(coll string, r store.Record, d *Item, search string) bool {
	name, _ := c.version(coll, r, d)["name"].(string)
	return LowerContains(name, strings.TrimSpace(search))
}

// validateVersionOp answers whether a version name is free: 409 when the
// record's version has it.
func (c *Collection) validateVersionOp(req *handler.Request) (*handler.Response, error) {
	coll, r, d, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	if name := req.Query.Get("name"); name != "" && c.version(coll, r, d)["name"] == name {
		return nil, Fail(ErrDuplicate, "A version with name '%s' already exists", name)
	}
	return Success(req.Op, nil), nil
}

// versionOp runs h for the version the path names, which must be the
// record's own.
func (c *Collection) versionOp(h handler.Func) handler.Func {
	return func(req *handler.Request) (*handler.Response, error) {
		coll, r, d, err := c.Get(req)
		if err != nil {
			return nil, err
		}
		if id := req.PathParams["versionId"]; id != c.versionID(coll, r, d) {
			return nil, Fail(ErrMissing, "no version %q of %s", id, r.ID)
		}
		return h(req)
	}
}

// manageOp renames the version, or keeps it default: the one version
// cannot stop being the default (the service answers 409 to unsetting the
// default flag of the default version).
func (c *Collection) manageOp(req *handler.Request) (*handler.Response, error) {
	coll, r, _, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	body, err := RequestObject(req)
	if err != nil {
		return nil, err
	}
	if def, ok := body["isDefault"].(bool); ok && !def {
		return nil, Fail(ErrDuplicate, "Cannot unset default flag on the current default version")
	}
	name, _ := body["name"].(string)
	if name == "" {
		return Success(req.Op, nil), nil
	}
	_, err = c.s.d.Store.Update(coll, r.ID, func(rec *store.Record) error {
		cur, err := DecodeItem(*rec)
		if err != nil {
			return err
		}
		cur.Fields["version"] = map[string]any{"name": name}
		rec.Updated = req.Now.UTC()
		rec.Data, err = json.Marshal(cur)
		return err
	})
	if err != nil {
		return nil, err
	}
	return Success(req.Op, nil), nil
}
