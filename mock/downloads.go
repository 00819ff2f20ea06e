package mock

import (
	"net/http"
	"strings"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/datasets"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// downloads serves the URLs a data link's generate-download-url hands out.
// On the service they are a cloud's pre-signed URLs, fetched without the
// service's token; here the fake serves them itself, outside the API (no
// token, no rate limit), checking each URL's signature and expiry on the
// fake's clock (datasets.Part.ServeDownload).
type downloads struct {
	data *datasets.Part // the default version's; nil without records
}

func (d downloads) serves(r *http.Request) bool {
	return d.data != nil && strings.HasPrefix(r.URL.Path, datasets.DownloadPrefix)
}

// serve answers a download URL on the fake's clock.
func (d downloads) serve(r *http.Request, clk *clock.Offset) (*handler.Response, error) {
	if err := clk.Sync(); err != nil {
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "reading the shared clock: " + err.Error()}
	}
	return d.data.ServeDownload(r, clk.Now())
}
