package datasets

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Data links are how Nextflow's seqera:// file system and Seqera's
// Node-RED nodes reach a cloud bucket through the service: a search finds
// the link (GET /data-links?search=<name> provider:<p>, the first hit
// taken), browse lists a folder page by page until nextPageToken is null,
// and generate-download-url hands out a URL that is then fetched with a
// plain GET, without the service's token.
//
// The fake has no bucket behind a link, so each link holds a small tree
// of folders and files made up from the link's id and the fake's seed:
// the same tree at every call and in every replica, nothing stored. A
// file's bytes follow from its path the same way, and the download URL
// points at the fake itself (DownloadPrefix), signed and with an expiry
// on the fake's clock, as a cloud's pre-signed URL is.

// DownloadPrefix is where the fake serves the files of its data links,
// outside the API (no token, as a pre-signed URL needs none).
const DownloadPrefix = "/_mock/data-links/"

// linkItem is one entry of a data link's tree.
type linkItem struct {
	name   string
	folder bool
	size   int64
}

// dataSearch is the list search the service documents for data links:
// "free text search criteria — data-link name and keywords: region,
// provider". Keywords are written key:value; the rest of the text is the
// name, matched anywhere in the link's name as other searches are.
type dataSearch struct {
	name, provider, region string
}

func parseDataSearch(q string) dataSearch {
	var ds dataSearch
	var words []string
	for _, w := range strings.Fields(q) {
		k, v, ok := strings.Cut(w, ":")
		switch {
		case ok && strings.EqualFold(k, "provider"):
			ds.provider = v
		case ok && strings.EqualFold(k, "region"):
			ds.region = v
		default:
			words = append(words, w)
		}
	}
	ds.name = strings.Join(words, " ")
	return ds
}

// matchLink is the data links' search: the keywords equal the link's
// provider and region as its answers show them, the text is in its name.
// A seeded link's provider is made up when first shown, so the entry is
// rendered to read it.
func (c collection) matchLink(coll string, r store.Record, d *resources.Item, search string, now time.Time) (exact, ok bool) {
	ds := parseDataSearch(search)
	shown := c.RenderItem(c.ItemSchema(), coll, r, d, now)
	name, _ := shown["name"].(string)
	if ds.provider != "" && !strings.EqualFold(fmt.Sprint(shown["provider"]), ds.provider) {
		return false, false
	}
	if ds.region != "" && !strings.EqualFold(fmt.Sprint(shown["region"]), ds.region) {
		return false, false
	}
	if ds.name != "" && !resources.LowerContains(name, ds.name) {
		return false, false
	}
	return ds.name != "" && strings.EqualFold(name, ds.name), true
}

// linkTree returns the entries of one folder of a link's tree (dir "" is
// the root), or false when dir is not a folder of it. The tree:
//
//	README.md, samplesheet.csv
//	reads/        20-40 FASTQ files (more than a default browse page)
//	reference/    a genome and its annotation
//	results/      multiqc/ (a report and its data) and a summary
//
// with names and sizes drawn from the link's id.
func (dp *Part) linkTree(id, dir string) ([]linkItem, bool) {
	rnd := dp.k.Gen.Rand("data link tree " + id)
	sample := []string{"ctrl", "treat", "wt", "ko", "rep", "day"}[rnd.IntN(6)]
	file := func(p string) linkItem { return linkItem{name: path.Base(p), size: dp.linkFileSize(id, p)} }
	var out []linkItem
	switch strings.Trim(dir, "/") {
	case "":
		out = []linkItem{{name: "reads", folder: true}, {name: "reference", folder: true}, {name: "results", folder: true},
			file("README.md"), file("samplesheet.csv")}
	case "reads":
		for i := range 10 + rnd.IntN(11) {
			for _, mate := range []string{"R1", "R2"} {
				out = append(out, file(fmt.Sprintf("reads/%s_%02d_%s.fastq", sample, i+1, mate)))
			}
		}
	case "reference":
		out = []linkItem{file("reference/genome.fa"), file("reference/genes.gtf")}
	case "results":
		out = []linkItem{{name: "multiqc", folder: true}, file("results/summary.tsv")}
	case "results/multiqc":
		out = []linkItem{file("results/multiqc/multiqc_report.html"), file("results/multiqc/multiqc_data.json")}
	default:
		return nil, false
	}
	slices.SortFunc(out, func(a, b linkItem) int { return strings.Compare(a.name, b.name) })
	return out, true
}

// linkFile finds a file of a link's tree by its path.
func (dp *Part) linkFile(id, p string) (linkItem, bool) {
	p = strings.Trim(p, "/")
	dir := path.Dir(p)
	if dir == "." {
		dir = ""
	}
	items, ok := dp.linkTree(id, dir)
	if p == "" || !ok {
		return linkItem{}, false
	}
	for _, it := range items {
		if it.name == path.Base(p) && !it.folder {
			return it, true
		}
	}
	return linkItem{}, false
}

// linkFileSize is the length of a file's bytes, drawn from its path.
func (dp *Part) linkFileSize(id, p string) int64 {
	return 64 + dp.k.Gen.Rand("data link file size "+id+"\x00"+p).Int64N(960)
}

// linkFileBytes are the bytes of a link's file: lines of text drawn from
// its path, linkFileSize long.
func (dp *Part) linkFileBytes(id, p string) []byte {
	n := dp.linkFileSize(id, p)
	rnd := dp.k.Gen.Rand("data link file " + id + "\x00" + p)
	out := make([]byte, 0, n+64)
	for line := 1; int64(len(out)) < n; line++ {
		out = fmt.Appendf(out, "%s\t%d\t%016x\n", p, line, rnd.Uint64())
	}
	return out[:n]
}

func mimeOf(name string) string {
	switch path.Ext(name) {
	case ".csv":
		return "text/csv"
	case ".tsv":
		return "text/tab-separated-values"
	case ".json":
		return "application/json"
	case ".html":
		return "text/html"
	case ".md":
		return "text/markdown"
	}
	return "text/plain"
}

// registerDataLinks claims the data links' browse and download-URL
// operations and gives their list the documented keyword search.
func (dp *Part) registerDataLinks(c collection) {
	if c.ListPath() != "/data-links" {
		return
	}
	k := dp.k
	c.Searches(c.matchLink)
	k.Handle(k.Op("GET", "/data-links/{dataLinkId}/browse"), c.browseOp)
	k.Handle(k.Op("GET", "/data-links/{dataLinkId}/browse/{path}"), c.browseOp)
	k.Handle(k.Op("GET", "/data-links/{dataLinkId}/generate-download-url"), c.downloadURLOp)
}

// browseOp lists one folder of a link's tree, a page at a time: the
// nextPageToken of a page names where the next begins, and is null on the
// last. search keeps the names that begin with it (the service's prefix
// search, which Nextflow uses to find one entry of a folder).
func (c collection) browseOp(req *handler.Request) (*handler.Response, error) {
	_, r, _, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	// A path that is no folder of the link (a file, or nothing) lists
	// nothing, as a bucket lists an unknown prefix: the service answers
	// such a browse as any other (Nextflow reads a path's kind from its
	// parent's listing for that reason).
	dir := strings.Trim(req.PathParams["path"], "/")
	items, _ := c.dp.linkTree(r.ID, dir)
	if prefix := req.Query.Get("search"); prefix != "" {
		items = slices.DeleteFunc(slices.Clone(items), func(it linkItem) bool { return !strings.HasPrefix(it.name, prefix) })
	}
	lim := c.dp.k.Profile.Data
	size := lim.BrowsePageSize
	if v := req.Query.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > lim.BrowseMaxPageSize {
			return nil, resources.Fail(resources.ErrBadInput, "pageSize=%q must be a number from 1 to %d", v, lim.BrowseMaxPageSize)
		}
		size = n
	}
	from := 0
	if tok := req.Query.Get("nextPageToken"); tok != "" {
		var ok bool
		if from, ok = pageFrom(tok); !ok || from > len(items) {
			return nil, resources.Fail(resources.ErrBadInput, "nextPageToken %q was not handed out for this listing", tok)
		}
	}
	to := min(from+size, len(items))
	objects := make([]any, 0, to-from)
	for _, it := range items[from:to] {
		o := map[string]any{"name": it.name, "type": "FOLDER", "size": int64(0), "mimeType": nil}
		if !it.folder {
			o["type"], o["size"], o["mimeType"] = "FILE", it.size, mimeOf(it.name)
		}
		objects = append(objects, o)
	}
	var next any
	if to < len(items) {
		next = pageToken(to)
	}
	return resources.Success(req.Op, map[string]any{"objects": objects, "nextPageToken": next, "originalPath": dir}), nil
}

// A page token is where the next page begins, in a form a client does
// not read as a number.
func pageToken(from int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("from:" + strconv.Itoa(from)))
}

func pageFrom(tok string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || !strings.HasPrefix(string(b), "from:") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "from:"))
	return n, err == nil && n >= 0
}

// downloadURLOp hands out a URL for one file of the link, served by the
// fake itself (ServeDownload) on the base URL the call came to, signed
// and expiring after the profile's download_url_expiry. Like a cloud's
// pre-signed URL it is made for any path: a GET of it finds out whether
// the file is there.
func (c collection) downloadURLOp(req *handler.Request) (*handler.Response, error) {
	_, r, _, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	p := strings.Trim(req.Query.Get("filePath"), "/")
	expires := req.Now.Add(c.dp.k.Profile.Data.DownloadURLExpiry).Unix()
	u := url.URL{Scheme: handler.Scheme(req.HTTP), Host: req.HTTP.Host, Path: DownloadPrefix + r.ID + "/" + p}
	u.RawQuery = url.Values{"expires": {strconv.FormatInt(expires, 10)}, "signature": {c.dp.signDownload(r.ID, p, expires)}}.Encode()
	return resources.Success(req.Op, map[string]any{"url": u.String(), "resolvedPath": nil, "resolvedMimeType": nil, "warning": nil}), nil
}

// signDownload signs a file's URL with a key drawn from the fake's seed,
// so that a URL works on every replica of the fake and cannot be made up
// for another file or a later expiry.
func (dp *Part) signDownload(id, p string, expires int64) string {
	key := fmt.Appendf(nil, "%016x", dp.k.Gen.Rand("download url key").Uint64())
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s\x00%s\x00%d", id, p, expires)
	return hex.EncodeToString(m.Sum(nil))
}

// ServeDownload answers a GET of a URL downloadURLOp handed out (the path
// below DownloadPrefix, its query, the time by the fake's clock): the
// file's bytes, the same at every call, or 403 once the URL has expired
// or for a URL the fake did not sign, as a cloud's pre-signed URL.
func (dp *Part) ServeDownload(r *http.Request, now time.Time) (*handler.Response, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil, apierror.Forbiddenf("%s of a download URL", r.Method)
	}
	rest := strings.TrimPrefix(r.URL.Path, DownloadPrefix)
	id, p, _ := strings.Cut(rest, "/")
	q := r.URL.Query()
	expires, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	if err != nil || !hmac.Equal([]byte(q.Get("signature")), []byte(dp.signDownload(id, p, expires))) {
		return nil, apierror.Forbiddenf("download URL for %q is not one the fake signed", rest)
	}
	if now.Unix() > expires {
		return nil, apierror.Forbiddenf("download URL for %q expired at %s", rest, time.Unix(expires, 0).UTC().Format(time.RFC3339))
	}
	if _, ok := dp.linkFile(id, p); !ok {
		return nil, apierror.Forbiddenf("no file %q in data link %s", p, id)
	}
	return &handler.Response{Status: http.StatusOK, Raw: dp.linkFileBytes(id, p), MediaType: mimeOf(p)}, nil
}
