package mock

import (
	"strings"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/leniency"
)

// readLeniently is the leniency stage: the body as the service's JSON
// layer reads it (nulls as absent, numbers as text, a discriminator its
// sibling names...), which is what the validator checks and the handler
// gets. What the profile tolerates is kept on the call for the request
// journal and the log; what it refuses (strict mode: everything) is a Bad
// Request whose Error ID leads to each deviation.
func (c *call) readLeniently() (*handler.Response, error) {
	op := c.matched
	res := c.api.lenient.Read(op, c.r.Header.Get("Content-Type"), c.body)
	c.body = res.Body
	if len(res.Tolerated)+len(res.Refused) == 0 {
		return nil, nil
	}
	c.deviations = append(append([]leniency.Deviation{}, res.Refused...), res.Tolerated...)
	c.moreDeviations = res.More
	if len(res.Refused) == 0 {
		return nil, nil
	}
	why := "the profile refuses"
	if c.s.profile.Requests.Strict {
		why = "strict mode refuses"
	}
	lines := make([]string, len(res.Refused))
	for i, d := range res.Refused {
		lines[i] = d.String()
	}
	err := apierror.BadRequestf("%s: the body differs from the document where the service would read it, and %s it: %s",
		op.ID, why, strings.Join(lines, "; "))
	err.Deviations = res.Refused
	return nil, err
}
