package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/profile"
)

// newDataset creates a dataset in workspace ws and returns its id.
func newDataset(t *testing.T, srv *mock.Server, ws int64, name string) string {
	t.Helper()
	h := srv.Handler()
	var ds struct{ Dataset struct{ ID string } }
	decode(t, ok(t, h, call(t, h, "POST", fmt.Sprintf("/api/datasets?workspaceId=%d", ws), devToken, []byte(`{"name":"`+name+`"}`)), 200, "create a dataset").body, &ds)
	return ds.Dataset.ID
}

func upload(t *testing.T, srv *mock.Server, ws int64, id string, content []byte) answer {
	t.Helper()
	ct, body := multipartUpload(t, "rows.csv", "text/csv", content)
	return call(t, srv.Handler(), "POST", fmt.Sprintf("/api/datasets/%s/upload?workspaceId=%d", id, ws), devToken, body, "Content-Type", ct)
}

// TestDatasetUploadCaps: an upload past the profile's cap on one file,
// or one that would take the bytes the fake keeps past its cap, is a Bad
// Request with an Error ID, and leaves the dataset as it was.
func TestDatasetUploadCaps(t *testing.T) {
	srv, h, ws := cappedFake(t)
	id := newDataset(t, srv, ws, "capped")

	errorID(t, upload(t, srv, ws, id, bytes.Repeat([]byte("x"), 601))) // one file past upload_max
	ok(t, h, upload(t, srv, ws, id, bytes.Repeat([]byte("a"), 500)), 200, "upload within the caps")
	ok(t, h, upload(t, srv, ws, id, bytes.Repeat([]byte("b"), 200)), 200, "a second one within the caps")
	// 500+256 and 200+256 are kept: 400 more bytes (and 256) pass 1300.
	a := upload(t, srv, ws, id, bytes.Repeat([]byte("c"), 400))
	errorID(t, a)
	if !strings.Contains(string(a.body), "Error ID") {
		t.Errorf("refusal: %s", a.body)
	}
	v := ok(t, h, call(t, h, "GET", fmt.Sprintf("/api/datasets/%s/versions?workspaceId=%d", id, ws), devToken, nil), 200, "versions")
	var vs struct{ Versions []struct{ Version int64 } }
	decode(t, v.body, &vs)
	if len(vs.Versions) != 2 || vs.Versions[0].Version != 2 {
		t.Errorf("after the refusals the dataset lists %s, want versions 2 and 1", v.body)
	}
	// Not multipart, or no file part: a Bad Request too.
	errorID(t, call(t, h, "POST", fmt.Sprintf("/api/datasets/%s/upload?workspaceId=%d", id, ws), devToken, []byte(`{"file":"x"}`)))
}

// cappedFake is a fake that keeps at most 600 bytes per upload and 1300
// in all, and the workspace its datasets go in.
func cappedFake(t *testing.T) (*mock.Server, http.Handler, int64) {
	p := profile.Default()
	p.Data.UploadMax, p.Data.StoredMax = 600, 1300
	srv, _ := newServer(t, embedded(t), mock.WithProfile(p), mock.WithStrictResponses())
	_, _, ws := heldWorkspace(t, srv)
	return srv, srv.Handler(), ws
}

// TestDatasetDeleteFreesItsBytes: a deleted dataset gives its uploaded
// bytes back to the fake's cap (data.stored_max), so a fake used for
// hours of create, upload and delete does not end up refusing every
// upload; its files cannot be read any more.
func TestDatasetDeleteFreesItsBytes(t *testing.T) {
	srv, h, ws := cappedFake(t)
	for round := range 3 {
		id := newDataset(t, srv, ws, fmt.Sprintf("round-%d", round))
		ok(t, h, upload(t, srv, ws, id, bytes.Repeat([]byte("a"), 500)), 200, fmt.Sprintf("round %d: first upload", round))
		ok(t, h, upload(t, srv, ws, id, bytes.Repeat([]byte("b"), 200)), 200, fmt.Sprintf("round %d: second upload", round))
		ok(t, h, call(t, h, "DELETE", fmt.Sprintf("/api/datasets/%s?workspaceId=%d", id, ws), devToken, nil), 204, "delete")
		if a := call(t, h, "GET", fmt.Sprintf("/api/datasets/%s/v/1/n/rows.csv?workspaceId=%d", id, ws), devToken, nil); a.status == 200 {
			t.Errorf("round %d: a deleted dataset's file is still served", round)
		}
	}
}

// TestDataLinkSearchKeywords: the data links' search reads provider: and
// region: as keywords and the rest as the name; a keyword that does not
// fit the link leaves it out.
func TestDataLinkSearchKeywords(t *testing.T) {
	for _, d := range documents {
		t.Run(d.name, func(t *testing.T) {
			srv, _ := newServer(t, d.doc(t), mock.WithStrictResponses())
			h := srv.Handler()
			_, _, ws := heldWorkspace(t, srv)
			list := func(search string) []dataLink {
				var l struct{ DataLinks []dataLink }
				decode(t, ok(t, h, call(t, h, "GET", fmt.Sprintf("/api/data-links?workspaceId=%d&search=%s", ws, url.QueryEscape(search)), devToken, nil), 200, "search "+search).body, &l)
				return l.DataLinks
			}
			all := list("")
			if len(all) == 0 {
				t.Fatal("no data links")
			}
			for _, l := range all {
				if got := list(l.Name + " provider:" + l.Provider); len(got) == 0 || got[0].ID != l.ID {
					t.Errorf("%q provider:%s found %v first, want %s", l.Name, l.Provider, got, l.ID)
				}
				if got := list("provider:" + l.Provider); !hasLink(got, l.ID) {
					t.Errorf("provider:%s does not list %s", l.Provider, l.ID)
				}
				if l.Region != "" {
					if got := list("region:" + l.Region + " " + l.Name); !hasLink(got, l.ID) {
						t.Errorf("region:%s %s does not list %s", l.Region, l.Name, l.ID)
					}
				}
				if got := list(l.Name + " provider:not-" + l.Provider); hasLink(got, l.ID) {
					t.Errorf("provider:not-%s lists %s", l.Provider, l.ID)
				}
			}
		})
	}
}

type dataLink struct{ ID, Name, Provider, Region string }

func hasLink(ls []dataLink, id string) bool {
	for _, l := range ls {
		if l.ID == id {
			return true
		}
	}
	return false
}

// TestDatasetBytesSharedOnRedis: replicas on one Redis are one fake for
// datasets: a file uploaded on one is listed and read back byte for byte
// on another, and a data link's download URL handed out by one works on
// the other.
func TestDatasetBytesSharedOnRedis(t *testing.T) {
	addr := miniredis.RunT(t).Addr()
	clk := clock.NewFake(epoch)
	a, b := replica(t, addr, clk), replica(t, addr, clk)
	_, _, ws := heldWorkspace(t, a)
	id := newDataset(t, a, ws, "shared")
	content := []byte("x,y\n1,2\n\x00\x01\x02")
	ok(t, a.Handler(), upload(t, a, ws, id, content), 200, "upload on A")
	got := ok(t, b.Handler(), call(t, b.Handler(), "GET", fmt.Sprintf("/api/datasets/%s/v/1/n/rows.csv?workspaceId=%d", id, ws), devToken, nil), 200, "download on B")
	if !bytes.Equal(got.body, content) {
		t.Errorf("B read %q, A was sent %q", got.body, content)
	}
}

// TestDeleteDatasetsInBulk: DELETE /datasets with datasetIds deletes each
// dataset the workspace holds, as one DELETE of each would (its files go
// too), and names the rest as failed: an id it does not hold, or one
// already deleted earlier in the same list.
func TestDeleteDatasetsInBulk(t *testing.T) {
	srv, _ := newServer(t, published(t), mock.WithStrictResponses())
	h := srv.Handler()
	_, _, ws := heldWorkspace(t, srv)
	a, b, c := newDataset(t, srv, ws, "bulk-a"), newDataset(t, srv, ws, "bulk-b"), newDataset(t, srv, ws, "bulk-c")
	ok(t, h, upload(t, srv, ws, a, []byte("x,y\n1,2\n")), 200, "upload")
	body, _ := json.Marshal(map[string]any{"datasetIds": []string{a, b, "no-such-dataset", a}})
	var got struct{ Success, Failed []string }
	decode(t, ok(t, h, call(t, h, "DELETE", fmt.Sprintf("/api/datasets?workspaceId=%d", ws), devToken, body), 200, "bulk delete").body, &got)
	if !slices.Equal(got.Success, []string{a, b}) || !slices.Equal(got.Failed, []string{"no-such-dataset", a}) {
		t.Errorf("success %v failed %v; want success [%s %s], failed [no-such-dataset %s]", got.Success, got.Failed, a, b, a)
	}
	for id, want := range map[string]int{a: 403, b: 403, c: 200} {
		if st := call(t, h, "GET", fmt.Sprintf("/api/datasets/%s/metadata?workspaceId=%d", id, ws), devToken, nil).status; st != want {
			t.Errorf("GET dataset %s after the bulk delete: %d, want %d", id, st, want)
		}
	}
	if st := call(t, h, "GET", fmt.Sprintf("/api/datasets/%s/v/1/n/rows.csv?workspaceId=%d", a, ws), devToken, nil).status; st == 200 {
		t.Error("a dataset deleted in bulk still serves its file")
	}
}
