package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServeStrictRequests: --strict-requests (or WMSMOCK_STRICT_REQUESTS)
// refuses a body the default fake reads as the service does; a malformed
// variable stops the command, naming it.
func TestServeStrictRequests(t *testing.T) {
	body := `{"credentials":{"name":"strict-check","provider":"aws","keys":{"accessKey":"AKIA","assumeRoleArn":null}}}`
	for _, c := range []struct {
		name string
		args []string
		vars map[string]string
		want int
	}{
		{"default", nil, nil, 200},
		{"flag", []string{"--strict-requests"}, nil, 400},
		{"environment", nil, map[string]string{"WMSMOCK_STRICT_REQUESTS": "true"}, 400},
		{"flag over environment", []string{"--strict-requests=false"}, map[string]string{"WMSMOCK_STRICT_REQUESTS": "true"}, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, _, errOut, stop := startCommand(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, c.args...), c.vars, bannerURL)
			req, _ := http.NewRequest("POST", base+"/api/credentials", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer wmsmock-dev-token")
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("status %d, want %d", resp.StatusCode, c.want)
			}
			if code := stop(); code != 0 {
				t.Errorf("exit %d; stderr: %s", code, errOut.String())
			}
		})
	}
	checkRejected(t, []configCase{
		{"bad strict-requests in environment", nil, map[string]string{"WMSMOCK_STRICT_REQUESTS": "maybe"}, 2, "WMSMOCK_STRICT_REQUESTS"},
	})
}
