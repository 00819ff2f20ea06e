package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/nfdata"
	"github.com/wmsmock/wmsmock/internal/nftrace"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/profile"
)

// Nextflow's seqera:// file system reads datasets and data links through
// the service (internal/nfdata makes its calls as its source does). These
// tests replay its reads against the fake on both documents, with strict
// answers, and hold the fake to what the client needs: a folder listing
// that ends, a file found again through its folder and read through its
// download URL without a token, the same bytes at every read, an upload
// read back byte for byte.

const fakeHost = "wmsmock.test"

// inProcess is an http.Client whose calls go straight to a handler.
func inProcess(h http.Handler) *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Result(), nil
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// nextflow is Nextflow's client of srv with the dev token; calls, when
// given, collects each call's URL.
func nextflow(srv *mock.Server, calls *[]string) *nfdata.Client {
	c := &nfdata.Client{
		Endpoint:      "http://" + fakeHost + mock.DefaultBasePath,
		Authorization: nftrace.Authorization(devToken),
		HTTP:          inProcess(srv.Handler()),
	}
	if calls != nil {
		c.Calls = func(_, u string) { *calls = append(*calls, u) }
	}
	return c
}

// heldWorkspace is the seeded account's first org and workspace, by name
// and id, as the org and workspace operations show them.
func heldWorkspace(t *testing.T, srv *mock.Server) (org, ws string, wsID int64) {
	t.Helper()
	h := srv.Handler()
	var orgs struct {
		Organizations []struct {
			OrgID int64
			Name  string
		}
	}
	decode(t, ok(t, h, call(t, h, "GET", "/api/orgs", devToken, nil), 200, "list orgs").body, &orgs)
	for _, o := range orgs.Organizations {
		var wss struct {
			Workspaces []struct {
				ID   int64
				Name string
			}
		}
		decode(t, ok(t, h, call(t, h, "GET", fmt.Sprintf("/api/orgs/%d/workspaces", o.OrgID), devToken, nil), 200, "list workspaces").body, &wss)
		if len(wss.Workspaces) > 0 {
			return o.Name, wss.Workspaces[0].Name, wss.Workspaces[0].ID
		}
	}
	t.Fatal("the seeded account has no workspace")
	return
}

func decode(t *testing.T, b []byte, into any) {
	t.Helper()
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

// resolvable checks that Nextflow resolves org/workspace to the held
// workspace through GET /user/{userId}/workspaces. Where the served
// document does not describe that operation (the embedded one until issue
// 38's second item lands), the client is given the id instead, and says
// so; every other call stays Nextflow's.
func resolvable(t *testing.T, srv *mock.Server, c *nfdata.Client, org, ws string, wsID int64) {
	t.Helper()
	if !describes(srv, "GET", "/user/{userId}/workspaces") {
		t.Logf("the document does not describe GET /user/{userId}/workspaces: %s/%s is given as workspace %d", org, ws, wsID)
		c.Resolved = map[string]int64{org + "/" + ws: wsID}
		return
	}
	if got, err := c.WorkspaceID(org, ws); err != nil || got != wsID {
		t.Fatalf("Nextflow resolves %s/%s to workspace %d, %v; want %d", org, ws, got, err, wsID)
	}
}

// describes says whether the server's document has an operation.
func describes(srv *mock.Server, method, path string) bool {
	doc, _ := srv.Document(srv.Versions()[0])
	for _, op := range doc.Operations {
		if op.Method == method && op.Path == path {
			return true
		}
	}
	return false
}

// multipartUpload is the body Seqera's Node-RED nodes (form-data) send to
// POST /datasets/{id}/upload.
func multipartUpload(t *testing.T, fileName, mediaType string, content []byte) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename="%s"`, fileName))
	h.Set("Content-Type", mediaType)
	p, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	p.Write(content)
	w.Close()
	return w.FormDataContentType(), b.Bytes()
}

func TestNextflowReadsADataset(t *testing.T) {
	for _, d := range documents {
		t.Run(d.name, func(t *testing.T) {
			srv, _ := newServer(t, d.doc(t), mock.WithStrictResponses())
			h := srv.Handler()
			org, ws, wsID := heldWorkspace(t, srv)

			// A new dataset has nothing: no versions.
			created := ok(t, h, call(t, h, "POST", fmt.Sprintf("/api/datasets?workspaceId=%d", wsID), devToken, []byte(`{"name":"samples-2026"}`)), 200, "create a dataset")
			var ds struct{ Dataset struct{ ID string } }
			decode(t, created.body, &ds)
			versions := fmt.Sprintf("/api/datasets/%s/versions?workspaceId=%d", ds.Dataset.ID, wsID)
			if a := ok(t, h, call(t, h, "GET", versions, devToken, nil), 200, "versions"); !bytes.Contains(a.body, []byte(`"versions":[]`)) {
				t.Errorf("a new dataset lists versions: %s", a.body)
			}

			// Two uploads, as the Node-RED nodes send them: the second is
			// the latest version, and what Nextflow reads.
			first := []byte("sample,fastq_1,fastq_2\nA,a_1.fq,a_2.fq\n")
			second := []byte("sample,fastq_1,fastq_2\nA,a_1.fq,a_2.fq\nB,b_1.fq,b_2.fq\n\x00\xff binary survives\n")
			for i, content := range [][]byte{first, second} {
				ct, body := multipartUpload(t, "samples.csv", "text/csv", content)
				up := call(t, h, "POST", fmt.Sprintf("/api/datasets/%s/upload?workspaceId=%d&header=true", ds.Dataset.ID, wsID), devToken, body, "Content-Type", ct)
				ok(t, h, up, 200, "upload")
				var got struct {
					Version struct {
						DatasetID string
						Version   int64
						FileName  string
						FileSize  int64
						HasHeader bool
					}
				}
				decode(t, up.body, &got)
				if v := got.Version; v.DatasetID != ds.Dataset.ID || v.Version != int64(i+1) || v.FileName != "samples.csv" || v.FileSize != int64(len(content)) || !v.HasHeader {
					t.Errorf("upload %d answered %s", i+1, up.body)
				}
			}

			c := nextflow(srv, nil)
			resolvable(t, srv, c, org, ws, wsID)
			got, err := c.ReadDataset(org, ws, "samples-2026")
			if err != nil || !bytes.Equal(got, second) {
				t.Errorf("seqera://%s/%s/datasets/samples-2026 read %q, %v; want the last upload %q", org, ws, got, err, second)
			}
			got, err = c.ReadDataset(org, ws, "samples-2026@1")
			if err != nil || !bytes.Equal(got, first) {
				t.Errorf("version 1 read %q, %v; want %q", got, err, first)
			}
		})
	}
}

func TestNextflowBrowsesADataLink(t *testing.T) {
	for _, d := range documents {
		t.Run(d.name, func(t *testing.T) {
			srv, clk := newServer(t, d.doc(t), mock.WithStrictResponses())
			h := srv.Handler()
			org, ws, wsID := heldWorkspace(t, srv)
			var links struct {
				DataLinks []struct{ ID, Name, Provider string }
			}
			decode(t, ok(t, h, call(t, h, "GET", fmt.Sprintf("/api/data-links?workspaceId=%d", wsID), devToken, nil), 200, "list data links").body, &links)
			if len(links.DataLinks) == 0 {
				t.Fatal("the seeded workspace has no data links")
			}
			link := links.DataLinks[len(links.DataLinks)-1]
			var calls []string
			c := nextflow(srv, &calls)
			resolvable(t, srv, c, org, ws, wsID)

			// The search finds the link by name and provider, first.
			dl, err := c.FindDataLink(wsID, link.Provider, link.Name)
			if err != nil || dl.ID != link.ID {
				t.Fatalf("search %q provider:%s found %+v, %v; want %s", link.Name, link.Provider, dl, err, link.ID)
			}
			// Every folder lists to its end; every file listed is found
			// again through its folder.
			pages := 0
			var walk func(dir string)
			walk = func(dir string) {
				calls = nil
				items, err := c.ListDataLink(org, ws, link.Provider, link.Name, dir)
				if err != nil {
					t.Fatalf("list %q: %v", dir, err)
				}
				for _, u := range calls {
					if strings.Contains(u, "/browse") {
						pages++
					}
				}
				if len(items) == 0 {
					t.Errorf("folder %q is empty", dir)
				}
				for _, it := range items {
					p := strings.TrimPrefix(dir+"/"+it.Name, "/")
					if it.Name == "" {
						t.Errorf("an item of %q has no name", dir)
						continue
					}
					if it.Folder {
						walk(p)
						continue
					}
					st, err := c.Stat(dl, wsID, p)
					if err != nil || st != it {
						t.Errorf("%s listed as %+v is found again as %+v, %v", p, it, st, err)
					}
				}
			}
			walk("")
			if pages <= 5 {
				t.Errorf("the whole tree took %d browse pages: no folder was longer than a page", pages)
			}

			// A file reads the same through its download URL every time,
			// without a token; the URL expires on the fake's clock.
			items, err := c.ListDataLink(org, ws, link.Provider, link.Name, "reads")
			if err != nil || len(items) == 0 {
				t.Fatalf("reads: %v %v", items, err)
			}
			last := "reads/" + items[len(items)-1].Name
			a, err := c.ReadDataLinkFile(org, ws, link.Provider, link.Name, last)
			if err != nil || len(a) == 0 {
				t.Fatalf("read %s: %v", last, err)
			}
			b, err := c.ReadDataLinkFile(org, ws, link.Provider, link.Name, last)
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("a second read of %s differs: %v", last, err)
			}
			var u struct{ URL string }
			decode(t, ok(t, h, call(t, h, "GET", fmt.Sprintf("http://"+fakeHost+"/api/data-links/%s/generate-download-url?workspaceId=%d&filePath=%s", dl.ID, wsID, last), devToken, nil), 200, "download URL").body, &u)
			if !strings.HasPrefix(u.URL, "http://"+fakeHost+"/") {
				t.Errorf("download URL %s is not on the fake's base URL", u.URL)
			}
			if got := call(t, h, "GET", u.URL, "", nil); got.status != 200 || !bytes.Equal(got.body, a) {
				t.Errorf("download URL without a token: %d, %d bytes", got.status, len(got.body))
			}
			if got := call(t, h, "GET", strings.Replace(u.URL, "signature=", "signature=0", 1), "", nil); got.status != 403 {
				t.Errorf("a URL with a changed signature: %d, want 403", got.status)
			}
			clk.Advance(profile.Default().Data.DownloadURLExpiry + time.Second)
			if got := call(t, h, "GET", u.URL, "", nil); got.status != 403 {
				t.Errorf("an expired download URL: %d, want 403", got.status)
			}
		})
	}
}
