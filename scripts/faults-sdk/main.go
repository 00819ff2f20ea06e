//go:build ignore

// This program is built by scripts/faults-sdk.sh inside a copy of the
// service's Terraform provider module (github.com/seqeralabs/
// terraform-provider-seqera), the only place its generated SDK
// (internal/sdk) can be imported from; the build constraint keeps it out
// of wmsmock's own build. It calls ListWorkflows through the SDK against a
// running wmsmock while the fake injects a burst of 503s and dropped
// connections, first with the SDK's default retry settings (which must
// outlast the burst), then with retries off (which must fail on it).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/seqeralabs/terraform-provider-seqera/internal/sdk"
	"github.com/seqeralabs/terraform-provider-seqera/internal/sdk/models/operations"
	"github.com/seqeralabs/terraform-provider-seqera/internal/sdk/models/shared"
	"github.com/seqeralabs/terraform-provider-seqera/internal/sdk/retry"
)

var root = flag.String("root", "http://127.0.0.1:18090", "the fake's address, where /_mock/ lives")

func main() {
	base := flag.String("base", "/api", "the API's base path on the fake")
	token := flag.String("token", "wmsmock-dev-token", "an access token the fake holds")
	flag.Parse()
	fail := false
	check := func(ok bool, format string, args ...any) {
		mark := "ok  "
		if !ok {
			mark, fail = "FAIL", true
		}
		fmt.Printf("%s %s\n", mark, fmt.Sprintf(format, args...))
	}
	newSDK := func(opts ...sdk.SDKOption) *sdk.Seqera {
		return sdk.New(append([]sdk.SDKOption{sdk.WithServerURL(*root + *base),
			sdk.WithSecurity(shared.Security{BearerAuth: *token})}, opts...)...)
	}

	// 1. The SDK as the provider uses it: default retry settings.
	burst()
	start := time.Now()
	res, err := newSDK().Workflows.ListWorkflows(context.Background(), operations.ListWorkflowsRequest{})
	took := time.Since(start)
	attempts := journal()
	check(err == nil && res != nil && res.StatusCode == 200 && res.ListWorkflowsResponse != nil,
		"default retries: ListWorkflows succeeded after the burst (err %v) in %s", err, took.Round(time.Millisecond))
	check(len(attempts) == 7, "default retries: %d attempts reached the fake, want 7 (3 x 503, 2 resets, 1 empty reply, then 200): %s",
		len(attempts), strings.Join(attempts, ", "))
	clear()

	// 2. Retries off: the first 503 is the answer.
	burst()
	_, err = newSDK(sdk.WithRetryConfig(retry.Config{Strategy: "none"})).Workflows.ListWorkflows(context.Background(), operations.ListWorkflowsRequest{})
	attempts = journal()
	check(err != nil && strings.Contains(err.Error(), "503"), "no retries: the call failed on the burst's first 503 (%v)", err)
	check(len(attempts) == 1, "no retries: %d attempt(s): %s", len(attempts), strings.Join(attempts, ", "))
	clear()

	if fail {
		os.Exit(1)
	}
}

// burst asks the fake for three 503s, then two resets and an empty reply,
// on ListWorkflows (newest rule first), after a reset of its state and
// journal position.
func burst() {
	admin("POST", "/_mock/admin/reset", "")
	for _, rule := range []string{
		`{"operation":"ListWorkflows","connection":"empty","times":1}`,
		`{"operation":"ListWorkflows","connection":"reset","times":2}`,
		`{"operation":"ListWorkflows","status":503,"times":3}`,
	} {
		admin("POST", "/_mock/admin/faults", rule)
	}
	mark = len(requests())
}

var mark int

func clear() { admin("DELETE", "/_mock/admin/faults", "") }

// journal lists the ListWorkflows calls the fake saw since the burst was
// set, oldest first, each as its status or the fault that broke it.
func journal() []string {
	all := requests()
	var out []string
	for i := len(all) - mark - 1; i >= 0; i-- {
		e := all[i]
		if e.Operation != "ListWorkflows" {
			continue
		}
		s := fmt.Sprint(e.Status)
		for _, in := range e.Injected {
			if strings.HasPrefix(in.What, "connection") {
				s = in.What
			}
		}
		out = append(out, s)
	}
	return out
}

type entry struct {
	Operation string `json:"operation"`
	Status    int    `json:"status"`
	Injected  []struct {
		What string `json:"what"`
	} `json:"injected"`
}

func requests() []entry {
	var body struct {
		Requests []entry `json:"requests"`
	}
	if err := json.Unmarshal(admin("GET", "/_mock/admin/requests?n=1000", ""), &body); err != nil {
		die(err)
	}
	return body.Requests
}

func admin(method, path, body string) []byte {
	req, err := http.NewRequest(method, *root+path, bytes.NewBufferString(body))
	if err != nil {
		die(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		die(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		die(fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b))
	}
	return b
}

func die(err error) {
	fmt.Fprintln(os.Stderr, "faults-sdk:", err)
	os.Exit(2)
}
