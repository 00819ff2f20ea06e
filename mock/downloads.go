package mock

import (
	"net/http"
	"strings"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/resources"
)

// downloads serves the URLs a data link's generate-download-url hands out.
// On the service they are a cloud's pre-signed URLs, fetched without the
// service's token; here the fake serves them itself, outside the API (no
// token, no rate limit), checking each URL's signature and expiry on the
// fake's clock (resources.Service.ServeDownload).
type downloads struct {
	svc *resources.Service // the default version's; nil without records
}

func (d downloads) serves(r *http.Request) bool {
	return d.svc != nil && strings.HasPrefix(r.URL.Path, resources.DownloadPrefix)
}

func (s *Server) serveDownload(rec *recorder, r *http.Request, prog *progress) {
	if err := s.clock.Sync(); err != nil {
		rec.errorID = s.errors.Write(rec, r, &apierror.Error{Kind: apierror.Internal, Reason: "reading the shared clock: " + err.Error()})
		return
	}
	resp, err := s.downloads.svc.ServeDownload(r, s.clock.Now())
	if err != nil {
		rec.errorID = s.errors.Write(rec, r, err)
		return
	}
	s.write(rec, r, prog, resp)
}
