// Package datasets is the part of the fake's stateful behaviour (a
// resources.Part, registered by the server) that holds data: the files
// clients upload to datasets, kept as the datasets' versions, and the
// made-up trees behind data links, browsed and downloaded through signed
// URLs the fake serves itself. The datasets and the data links are the
// kernel's generic collections; this package claims the operations below
// them.
package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// A dataset's versions are the files uploaded to it (POST
// /datasets/{id}/upload, multipart form data with the file under "file",
// as Seqera's Node-RED nodes and tower-cli send it), numbered from 1, and
// its download (GET /datasets/{id}/v/{version}/n/{fileName}, which
// Nextflow's seqera:// file system reads) gives back the bytes uploaded.
// Nothing is made up: a dataset nobody uploaded to has no versions.
//
// The bytes are records of the fake's store like every other piece of
// state, so a state file saves them and replicas sharing Redis see them.
// Each upload is a record of its own and a dataset's versions one small
// record of metadata, so a call reads what it names and never a whole
// collection; what all uploads hold together is counted in one record,
// updated atomically, and capped by the profile (data.stored_max, and
// data.upload_max for one file): past a cap an upload is a Bad Request.

// Collections of the dataset records the fake keeps beside the datasets
// themselves.
const (
	datasetVersionsCollection = "dataset versions" // one record per dataset: its versions
	datasetFilesCollection    = "dataset files"    // one record per version: its bytes
	dataUsageCollection       = "data usage"       // one record: the bytes kept
	dataUsageID               = "bytes"
	// versionOverhead is what an upload is charged beyond its bytes, for
	// its metadata, so that empty files cannot grow the store unbounded.
	versionOverhead = 256
)

// datasetVersion is one uploaded file.
type datasetVersion struct {
	Version   int64     `json:"version"`
	FileName  string    `json:"fileName"`
	FileSize  int64     `json:"fileSize"`
	MediaType string    `json:"mediaType"`
	HasHeader bool      `json:"hasHeader"`
	Created   time.Time `json:"created"`
}

type datasetVersions struct {
	Versions []datasetVersion `json:"versions"`
}

// Part is the datasets and data links of one document's service: its
// Register is a resources.Part, and the server serves the data links'
// download URLs, which live outside the API, with its ServeDownload.
type Part struct {
	k *resources.Kit // set by Register
}

// collection is a collection of datasets or of data links, with the part
// that lays their behaviour over it.
type collection struct {
	*resources.Collection
	dp *Part
}

// Register claims the operations below the datasets and the data links,
// once the generic collections are found: theirs are the kernel's.
func (dp *Part) Register(k *resources.Kit) error {
	dp.k = k
	k.AfterCollections(func() error {
		for _, c := range k.Collections() {
			dp.registerDataLinks(collection{c, dp})
			dp.registerDatasets(collection{c, dp})
		}
		return nil
	})
	return nil
}

// registerDatasets claims the upload, versions and download operations
// below a collection of datasets (/datasets, and
// /workspaces/{workspaceId}/datasets where the document has it).
func (dp *Part) registerDatasets(c collection) {
	if path.Base(c.ListPath()) != "datasets" {
		return
	}
	k := dp.k
	c.OnDelete(dp.forgetDatasetFiles)
	k.Handle(k.Op("POST", c.ItemPath()+"/upload"), c.uploadOp)
	k.Handle(k.Op("GET", c.ItemPath()+"/versions"), c.datasetVersionsOp)
	k.Handle(k.Op("GET", c.ItemPath()+"/v/{version}/n/{fileName}"), c.datasetDownloadOp)
	k.Handle(k.Op("DELETE", c.ListPath()), c.deleteDatasetsOp)
}

// deleteDatasetsOp deletes every dataset a DELETE on the list names
// (DeleteDatasets: {"datasetIds": [...]}) as one DELETE of each would,
// files freed too, and answers which went and which did not: an id the
// fake does not hold in the workspace is "failed", not an error of the
// whole call. An id named twice is deleted once and then fails.
func (c collection) deleteDatasetsOp(req *handler.Request) (*handler.Response, error) {
	var body struct {
		DatasetIDs []string `json:"datasetIds"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return nil, resources.Fail(resources.ErrBadInput, "the body is not a list of datasetIds: %v", err)
	}
	out := map[string][]string{"success": {}, "failed": {}}
	for _, id := range body.DatasetIDs {
		if err := req.HTTP.Context().Err(); err != nil {
			return nil, err
		}
		one := *req
		one.PathParams = maps.Clone(req.PathParams)
		if one.PathParams == nil {
			one.PathParams = map[string]string{}
		}
		one.PathParams[c.Param()] = id
		_, err := c.DeleteOp(&one)
		switch {
		case err == nil:
			out["success"] = append(out["success"], id)
		case errors.Is(err, resources.ErrMissing):
			out["failed"] = append(out["failed"], id)
		default:
			return nil, err
		}
	}
	return resources.Success(req.Op, out), nil
}

func versionsKey(coll, id string) string { return coll + "/" + id }

func fileKey(coll, id string, version int64) string {
	return coll + "/" + id + "/" + strconv.FormatInt(version, 10)
}

// uploadOp keeps an uploaded file as the dataset's next version.
func (c collection) uploadOp(req *handler.Request) (*handler.Response, error) {
	coll, r, d, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	name, media, content, err := c.dp.uploadedFile(req)
	if err != nil {
		return nil, err
	}
	st := c.dp.k.Store
	charge := int64(len(content)) + versionOverhead
	if err := c.dp.reserveBytes(charge); err != nil {
		return nil, err
	}
	n, err := st.NextSeq(datasetFilesCollection + " " + versionsKey(coll, r.ID))
	if err == nil {
		b, _ := json.Marshal(content) // a JSON string: the bytes in base64
		_, err = st.Insert(datasetFilesCollection, store.Record{ID: fileKey(coll, r.ID, n), Created: req.Now.UTC(), Updated: req.Now.UTC(), Data: b})
	}
	v := datasetVersion{Version: n, FileName: name, FileSize: int64(len(content)), MediaType: media,
		HasHeader: req.Query.Get("header") == "true", Created: req.Now.UTC()}
	if err == nil {
		err = updateOrInsert(st, datasetVersionsCollection, versionsKey(coll, r.ID), req.Now, func(vs *datasetVersions) error {
			vs.Versions = append(vs.Versions, v)
			return nil
		})
	}
	if err != nil {
		_ = c.dp.reserveBytes(-charge)
		return nil, err
	}
	// The dataset shows its latest version and that version's media type.
	if _, err := st.Update(coll, r.ID, func(rec *store.Record) error {
		cur, err := resources.DecodeItem(*rec)
		if err != nil {
			return err
		}
		cur.Fields["version"], cur.Fields["mediaType"] = n, media
		rec.Updated = req.Now.UTC()
		rec.Data, err = json.Marshal(cur)
		return err
	}); err != nil {
		return nil, err
	}
	d.Fields["version"], d.Fields["mediaType"] = n, media
	sch := resources.SuccessSchema(req.Op)
	root := c.dp.k.Bases.Bare(sch, "dataset upload")
	c.dp.k.Fit.Set(sch, root, "version", c.versionView(req, sch.Prop("version"), r.ID, d, v))
	return resources.Success(req.Op, root), nil
}

// uploadedFile reads the "file" part of a multipart body: its name, media
// type and bytes, within the profile's cap on one upload.
func (dp *Part) uploadedFile(req *handler.Request) (name, media string, content []byte, err error) {
	ct, params, perr := mime.ParseMediaType(req.HTTP.Header.Get("Content-Type"))
	if perr != nil || ct != "multipart/form-data" || params["boundary"] == "" {
		return "", "", nil, resources.Fail(resources.ErrBadInput, "an upload is multipart/form-data with the file in a part named \"file\"")
	}
	limit := int64(dp.k.Profile.Data.UploadMax)
	mr := multipart.NewReader(bytes.NewReader(req.Body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return "", "", nil, resources.Fail(resources.ErrBadInput, "the upload has no part named \"file\"")
		}
		if err != nil {
			return "", "", nil, resources.Fail(resources.ErrBadInput, "the upload's multipart body cannot be read: %v", err)
		}
		if part.FormName() != "file" {
			continue
		}
		content, err = io.ReadAll(io.LimitReader(part, limit+1))
		if err != nil {
			return "", "", nil, resources.Fail(resources.ErrBadInput, "the upload's file cannot be read: %v", err)
		}
		if int64(len(content)) > limit {
			return "", "", nil, resources.Fail(resources.ErrBadInput, "the uploaded file is larger than %d bytes", limit)
		}
		if len(content) == 0 {
			return "", "", nil, resources.Fail(resources.ErrBadInput, "the uploaded file is empty")
		}
		name = part.FileName()
		if name == "" || strings.ContainsAny(name, "/\\") {
			return "", "", nil, resources.Fail(resources.ErrBadInput, "the uploaded file needs a file name (filename=\"...\"), without a path")
		}
		media = part.Header.Get("Content-Type")
		if media == "" || media == "application/octet-stream" {
			media = mimeOf(name)
		}
		return name, media, content, nil
	}
}

// forgetDatasetFiles drops a deleted dataset's versions and their bytes,
// and gives what they were charged back to the cap (data.stored_max).
func (dp *Part) forgetDatasetFiles(coll, id string) error {
	st := dp.k.Store
	r, err := st.Get(datasetVersionsCollection, versionsKey(coll, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil // nothing was uploaded
	}
	if err != nil {
		return err
	}
	var vs datasetVersions
	if err := json.Unmarshal(r.Data, &vs); err != nil {
		return fmt.Errorf("resources: versions of %s: %w", id, err)
	}
	var freed int64
	for _, v := range vs.Versions {
		if err := st.Delete(datasetFilesCollection, fileKey(coll, id, v.Version)); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		freed += v.FileSize + versionOverhead
	}
	if err := st.Delete(datasetVersionsCollection, versionsKey(coll, id)); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return dp.reserveBytes(-freed)
}

// reserveBytes counts n more bytes kept (n < 0 gives them back), or
// refuses when that would pass the profile's stored_max.
func (dp *Part) reserveBytes(n int64) error {
	most := int64(dp.k.Profile.Data.StoredMax)
	return updateOrInsert(dp.k.Store, dataUsageCollection, dataUsageID, time.Time{}, func(u *struct{ Bytes int64 }) error {
		if n > 0 && u.Bytes+n > most {
			return resources.Fail(resources.ErrBadInput, "the fake keeps at most %d bytes of uploaded files (data.stored_max); %d are kept and this upload needs %d", most, u.Bytes, n)
		}
		u.Bytes = max(0, u.Bytes+n)
		return nil
	})
}

// updateOrInsert changes one JSON record atomically, creating it (from
// the zero value) when it does not exist yet.
func updateOrInsert[T any](st store.Store, coll, id string, now time.Time, change func(*T) error) error {
	encode := func(v *T) ([]byte, error) {
		if err := change(v); err != nil {
			return nil, err
		}
		return json.Marshal(v)
	}
	return store.Upsert(st, coll, id, func(rec *store.Record) error {
		var v T
		if err := json.Unmarshal(rec.Data, &v); err != nil {
			return err
		}
		b, err := encode(&v)
		rec.Data, rec.Updated = b, now.UTC()
		return err
	}, func() (store.Record, error) {
		var v T
		b, err := encode(&v)
		return store.Record{Created: now.UTC(), Updated: now.UTC(), Data: b}, err
	})
}

// versions reads a dataset's versions, oldest first.
func (dp *Part) versions(coll, id string) ([]datasetVersion, error) {
	rec, err := dp.k.Store.Get(datasetVersionsCollection, versionsKey(coll, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var vs datasetVersions
	if err := json.Unmarshal(rec.Data, &vs); err != nil {
		return nil, err
	}
	return vs.Versions, nil
}

// datasetVersionsOp lists what was uploaded to a dataset, newest first,
// keeping those of the media type asked for (mimeType).
func (c collection) datasetVersionsOp(req *handler.Request) (*handler.Response, error) {
	coll, r, d, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	vs, err := c.dp.versions(coll, r.ID)
	if err != nil {
		return nil, err
	}
	sch := resources.SuccessSchema(req.Op)
	key, entry := sch.ListShape()
	root := c.dp.k.Bases.Bare(sch, "dataset versions")
	entries := []any{}
	want := req.Query.Get("mimeType")
	for _, v := range slices.Backward(vs) {
		if want == "" || strings.EqualFold(v.MediaType, want) {
			entries = append(entries, c.versionView(req, entry, r.ID, d, v))
		}
	}
	if key != "" {
		root[key] = entries
	}
	c.dp.k.Fit.Set(sch, root, "totalSize", int64(len(entries)))
	return resources.Success(req.Op, root), nil
}

// versionView is a version as DatasetVersionDto shows it: what was
// uploaded, the dataset it belongs to, and the URL its bytes are read at.
func (c collection) versionView(req *handler.Request, sch *spec.Schema, id string, d *resources.Item, v datasetVersion) map[string]any {
	dl := apiBase(req) + "/datasets/" + url.PathEscape(id) + "/v/" + strconv.FormatInt(v.Version, 10) + "/n/" + url.PathEscape(v.FileName)
	var ws any
	if d.Workspace != nil {
		ws = *d.Workspace
		dl += "?workspaceId=" + strconv.FormatInt(*d.Workspace, 10)
	}
	m := map[string]any{}
	for k, val := range map[string]any{
		"datasetId": id, "datasetName": d.Fields["name"], "datasetDescription": d.Fields["description"],
		"version": v.Version, "fileName": v.FileName, "fileSize": v.FileSize, "mediaType": v.MediaType,
		"hasHeader": v.HasHeader, "disabled": false, "dateCreated": resources.Stamp(v.Created), "lastUpdated": resources.Stamp(v.Created),
		"workspaceId": ws, "url": dl, "createdBy": nil, "linkedSource": nil,
	} {
		c.dp.k.Fit.Set(sch, m, k, val)
	}
	return m
}

// apiBase is the URL of the API the call came to: its scheme, host and
// the base path before the operation's own path.
func apiBase(req *handler.Request) string {
	return handler.Origin(req.HTTP) + strings.TrimSuffix(req.HTTP.URL.Path, resources.Concrete(req.Op.Path, req.PathParams))
}

// datasetDownloadOp streams a version's bytes, as uploaded; the file name
// must be the one uploaded, as on the service.
func (c collection) datasetDownloadOp(req *handler.Request) (*handler.Response, error) {
	coll, r, _, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	// The document types the version as text: one that is no number
	// names no version, like a number nobody uploaded.
	n, err := strconv.ParseInt(req.PathParams["version"], 10, 64)
	if err != nil {
		n = -1
	}
	vs, err := c.dp.versions(coll, r.ID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(vs, func(v datasetVersion) bool { return v.Version == n })
	if i < 0 || vs[i].FileName != req.PathParams["fileName"] {
		return nil, resources.Fail(resources.ErrMissing, "dataset %s has no version %d named %q", r.ID, n, req.PathParams["fileName"])
	}
	rec, err := c.dp.k.Store.Get(datasetFilesCollection, fileKey(coll, r.ID, n))
	if err != nil {
		return nil, err
	}
	var content []byte
	if err := json.Unmarshal(rec.Data, &content); err != nil {
		return nil, err
	}
	media := req.Op.Success.MediaType
	if media == "" {
		media = "application/octet-stream"
	}
	return &handler.Response{Status: req.Op.Success.Status, Raw: content, MediaType: media}, nil
}
