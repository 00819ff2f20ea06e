// Package nfdata makes the calls Nextflow's seqera:// file system (plugin
// nf-tower: SeqeraFileSystem, DatasetsResourceHandler,
// DataLinksResourceHandler, SeqeraDatasetClient, SeqeraDataLinkClient)
// makes to read a dataset and to list and read a data link, in its order,
// with its query parameters and its way of reading the answers. It is for
// tests: a judge of whether a server gives Nextflow what it needs.
//
// What the client does, read from its source (nextflow-io/nextflow):
//   - org/workspace in a path become a workspace id through GET /user-info
//     (user.id), then GET /user/{userId}/workspaces, whose
//     orgsAndWorkspaces entries are keyed "orgName/workspaceName";
//   - seqera://org/ws/datasets/<name>: GET /datasets?workspaceId=, the
//     dataset whose name equals <name>; GET /datasets/{id}/versions, the
//     highest enabled version; GET /datasets/{id}/v/{version}/n/{fileName}
//     with the dataset's own workspaceId, the body streamed;
//   - seqera://org/ws/data-links/<provider>/<name>/<path>: GET
//     /data-links?workspaceId=&max=100&offset=0&search=<name>
//     provider:<provider>, the first entry taken; a folder is listed by
//     GET /data-links/{id}/browse[/{path}]?workspaceId=[&credentialsId=],
//     following nextPageToken until it is absent or null; a path's kind is
//     found by browsing its parent with search=<last segment> and taking
//     the entry of that name; a file is read through GET
//     /data-links/{id}/generate-download-url?workspaceId=&filePath=, then
//     a GET of the URL without the service's Authorization header.
//
// The code is this project's own.
package nfdata

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MaxPages stops a listing that never ends: Nextflow would list forever.
const MaxPages = 1000

// Client is Nextflow's view of the service.
type Client struct {
	// Endpoint is tower.endpoint: the API's base URL, without a trailing
	// slash (http://host/api).
	Endpoint string
	// Authorization is the header Nextflow sends on API calls
	// (nftrace.Authorization of the token).
	Authorization string
	// HTTP sends the calls, the download included.
	HTTP *http.Client
	// Calls, when set, is told of every call made: method and URL.
	Calls func(method, url string)
	// Resolved, when set, gives workspace ids by "org/workspace" instead
	// of asking the server, for a document that does not describe
	// GET /user/{userId}/workspaces; every other call is Nextflow's.
	Resolved map[string]int64
}

// Item is an entry of a data link's folder, as Nextflow reads it.
type Item struct {
	Name     string
	Folder   bool
	Size     int64
	MimeType string
}

// DataLink is the link a search found.
type DataLink struct {
	ID, Name, Provider, CredentialsID string
}

func (c *Client) get(u string, token bool, into any) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if token {
		req.Header.Set("Authorization", c.Authorization)
		req.Header.Set("Accept", "application/json")
	}
	if c.Calls != nil {
		c.Calls(req.Method, u)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return b, fmt.Errorf("GET %s: HTTP %d: %.200s", u, resp.StatusCode, b)
	}
	if into != nil {
		if err := json.Unmarshal(b, into); err != nil {
			return b, fmt.Errorf("GET %s: the answer is not what Nextflow reads: %v", u, err)
		}
	}
	return b, nil
}

// WorkspaceID resolves org/workspace as SeqeraFileSystem does.
func (c *Client) WorkspaceID(org, workspace string) (int64, error) {
	if id, ok := c.Resolved[org+"/"+workspace]; ok {
		return id, nil
	}
	var info struct {
		User struct {
			ID *json.Number `json:"id"`
		} `json:"user"`
	}
	if _, err := c.get(c.Endpoint+"/user-info", true, &info); err != nil {
		return 0, err
	}
	if info.User.ID == nil {
		return 0, fmt.Errorf("GET /user-info: no user.id (Nextflow: unable to retrieve user ID)")
	}
	var list struct {
		OrgsAndWorkspaces []struct {
			OrgName       *string      `json:"orgName"`
			WorkspaceName *string      `json:"workspaceName"`
			WorkspaceID   *json.Number `json:"workspaceId"`
		} `json:"orgsAndWorkspaces"`
	}
	if _, err := c.get(c.Endpoint+"/user/"+info.User.ID.String()+"/workspaces", true, &list); err != nil {
		return 0, err
	}
	for _, e := range list.OrgsAndWorkspaces {
		if e.OrgName != nil && e.WorkspaceName != nil && e.WorkspaceID != nil && *e.OrgName == org && *e.WorkspaceName == workspace {
			return e.WorkspaceID.Int64()
		}
	}
	return 0, fmt.Errorf("seqera://%s/%s: org or workspace not found or not accessible", org, workspace)
}

// ReadDataset reads seqera://org/workspace/datasets/<name>[@version].
func (c *Client) ReadDataset(org, workspace, name string) ([]byte, error) {
	ws, err := c.WorkspaceID(org, workspace)
	if err != nil {
		return nil, err
	}
	pinned := ""
	if i := strings.LastIndexByte(name, '@'); i > 0 {
		name, pinned = name[:i], name[i+1:]
	}
	var list struct {
		Datasets []struct {
			ID          string       `json:"id"`
			Name        string       `json:"name"`
			WorkspaceID *json.Number `json:"workspaceId"`
		} `json:"datasets"`
	}
	if _, err := c.get(fmt.Sprintf("%s/datasets?workspaceId=%d", c.Endpoint, ws), true, &list); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(list.Datasets, func(d struct {
		ID          string       `json:"id"`
		Name        string       `json:"name"`
		WorkspaceID *json.Number `json:"workspaceId"`
	}) bool {
		return d.Name == name
	})
	if i < 0 {
		return nil, fmt.Errorf("dataset %q not found in workspace %s", name, workspace)
	}
	ds := list.Datasets[i]
	var dsWorkspace int64 // Nextflow: (m.workspaceId as Long) ?: 0
	if ds.WorkspaceID != nil {
		dsWorkspace, _ = ds.WorkspaceID.Int64()
	}
	var vs struct {
		Versions []struct {
			Version  *json.Number `json:"version"`
			FileName *string      `json:"fileName"`
			Disabled *bool        `json:"disabled"`
		} `json:"versions"`
	}
	if _, err := c.get(fmt.Sprintf("%s/datasets/%s/versions?workspaceId=%d", c.Endpoint, ds.ID, dsWorkspace), true, &vs); err != nil {
		return nil, err
	}
	if len(vs.Versions) == 0 {
		return nil, fmt.Errorf("no versions available for dataset %q", name)
	}
	var best int64 = -1
	file := ""
	for _, v := range vs.Versions {
		var n int64
		if v.Version != nil {
			n, _ = v.Version.Int64()
		}
		fn := ""
		if v.FileName != nil {
			fn = *v.FileName
		}
		switch {
		case pinned != "" && strconv.FormatInt(n, 10) == pinned:
			best, file = n, fn
		case pinned == "" && (v.Disabled == nil || !*v.Disabled) && n > best:
			best, file = n, fn
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("no enabled version (or version %q) for dataset %q", pinned, name)
	}
	u := fmt.Sprintf("%s/datasets/%s/v/%d/n/%s?workspaceId=%d", c.Endpoint, ds.ID, best, (&url.URL{Path: file}).EscapedPath(), dsWorkspace)
	return c.get(u, true, nil)
}

// FindDataLink finds a link by provider and name as SeqeraDataLinkClient
// does: a keyword search, the first entry taken.
func (c *Client) FindDataLink(ws int64, provider, name string) (DataLink, error) {
	var list struct {
		DataLinks []struct {
			ID          string  `json:"id"`
			Name        *string `json:"name"`
			Provider    *string `json:"provider"`
			Credentials []struct {
				ID *string `json:"id"`
			} `json:"credentials"`
		} `json:"dataLinks"`
	}
	q := url.QueryEscape(name + " provider:" + provider)
	if _, err := c.get(fmt.Sprintf("%s/data-links?workspaceId=%d&max=100&offset=0&search=%s", c.Endpoint, ws, q), true, &list); err != nil {
		return DataLink{}, err
	}
	if len(list.DataLinks) == 0 {
		return DataLink{}, fmt.Errorf("data-link %q not found for provider %q in workspace %d", name, provider, ws)
	}
	e := list.DataLinks[0]
	dl := DataLink{ID: e.ID}
	if e.Name != nil {
		dl.Name = *e.Name
	}
	if e.Provider != nil {
		dl.Provider = *e.Provider
	}
	if len(e.Credentials) > 0 && e.Credentials[0].ID != nil {
		dl.CredentialsID = *e.Credentials[0].ID
	}
	return dl, nil
}

// Browse lists one folder of a link ("" is its root) to its end, with the
// optional prefix search.
func (c *Client) Browse(dl DataLink, ws int64, path, search string) ([]Item, error) {
	base := c.Endpoint + "/data-links/" + (&url.URL{Path: dl.ID}).EscapedPath() + "/browse"
	if path != "" {
		base += "/" + (&url.URL{Path: path}).EscapedPath()
	}
	var out []Item
	next := ""
	for page := 0; ; page++ {
		if page == MaxPages {
			return out, fmt.Errorf("browse %s: still a nextPageToken after %d pages", base, MaxPages)
		}
		u := fmt.Sprintf("%s?workspaceId=%d", base, ws)
		if search != "" {
			u += "&search=" + url.QueryEscape(search)
		}
		if dl.CredentialsID != "" {
			u += "&credentialsId=" + url.QueryEscape(dl.CredentialsID)
		}
		if next != "" {
			u += "&nextPageToken=" + url.QueryEscape(next)
		}
		var resp struct {
			Objects []struct {
				Name     *string      `json:"name"`
				Type     *string      `json:"type"`
				Size     *json.Number `json:"size"`
				MimeType *string      `json:"mimeType"`
			} `json:"objects"`
			NextPageToken *string `json:"nextPageToken"`
		}
		if _, err := c.get(u, true, &resp); err != nil {
			return out, err
		}
		for _, o := range resp.Objects {
			it := Item{}
			if o.Name != nil {
				it.Name = *o.Name
			}
			it.Folder = o.Type == nil || *o.Type != "FILE"
			if o.Size != nil {
				it.Size, _ = o.Size.Int64()
			}
			if o.MimeType != nil {
				it.MimeType = *o.MimeType
			}
			out = append(out, it)
		}
		if resp.NextPageToken == nil {
			return out, nil
		}
		next = *resp.NextPageToken
	}
}

// ListDataLink lists seqera://org/ws/data-links/<provider>/<name>/<path>.
func (c *Client) ListDataLink(org, workspace, provider, name, path string) ([]Item, error) {
	ws, err := c.WorkspaceID(org, workspace)
	if err != nil {
		return nil, err
	}
	dl, err := c.FindDataLink(ws, provider, name)
	if err != nil {
		return nil, err
	}
	return c.Browse(dl, ws, path, "")
}

// Stat finds one path of a link as Nextflow does: its parent browsed with
// the last segment as the search, the entry of that name taken.
func (c *Client) Stat(dl DataLink, ws int64, path string) (Item, error) {
	parent, last := "", path
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		parent, last = path[:i], path[i+1:]
	}
	items, err := c.Browse(dl, ws, parent, last)
	if err != nil {
		return Item{}, err
	}
	for _, it := range items {
		if it.Name == last || it.Name == last+"/" {
			return it, nil
		}
	}
	return Item{}, fmt.Errorf("path %q not found inside data-link %q", path, dl.Name)
}

// ReadDataLinkFile reads seqera://org/ws/data-links/<provider>/<name>/<path>:
// its kind checked through its parent, then its bytes through a download
// URL fetched without the service's token.
func (c *Client) ReadDataLinkFile(org, workspace, provider, name, path string) ([]byte, error) {
	ws, err := c.WorkspaceID(org, workspace)
	if err != nil {
		return nil, err
	}
	dl, err := c.FindDataLink(ws, provider, name)
	if err != nil {
		return nil, err
	}
	it, err := c.Stat(dl, ws, path)
	if err != nil {
		return nil, err
	}
	if it.Folder {
		return nil, fmt.Errorf("%s is a folder", path)
	}
	b, err := c.Download(dl, ws, path)
	if err == nil && int64(len(b)) != it.Size {
		err = fmt.Errorf("%s: %d bytes read, its folder lists %d", path, len(b), it.Size)
	}
	return b, err
}

// Download asks for a file's download URL and reads it with a plain GET.
func (c *Client) Download(dl DataLink, ws int64, path string) ([]byte, error) {
	u := fmt.Sprintf("%s/data-links/%s/generate-download-url?workspaceId=%d&filePath=%s", c.Endpoint, (&url.URL{Path: dl.ID}).EscapedPath(), ws, url.QueryEscape(path))
	if dl.CredentialsID != "" {
		u += "&credentialsId=" + url.QueryEscape(dl.CredentialsID)
	}
	var resp struct {
		URL *string `json:"url"`
	}
	if _, err := c.get(u, true, &resp); err != nil {
		return nil, err
	}
	if resp.URL == nil || *resp.URL == "" {
		return nil, fmt.Errorf("the service returned no download URL for %s", path)
	}
	return c.get(*resp.URL, false, nil)
}
