package mock

import (
	"strings"

	"github.com/wmsmock/wmsmock/mock/handler"
)

// replay is the replay stage: a call the replayed session holds
// (WithReplay) gets the service's recorded answer, valid or not.
func (c *call) replay() (*handler.Response, error) {
	r := c.r
	resp := c.s.replay.recorded(r.Method, strings.TrimPrefix(r.URL.EscapedPath(), c.api.basePath), r.URL.RawQuery, c.body)
	if resp != nil {
		c.replayed = true
	}
	return resp, nil
}
