package docs_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wmsmock/wmsmock/mock"
)

// chromiumPath is where Debian's chromium package puts the browser
// (.ci/run installs it when absent).
const chromiumPath = "/usr/bin/chromium"

// TestReferencePageInBrowser opens /_mock/docs in a real headless
// Chromium: the workflow operations are listed, "Try it out" on
// GET /workflow calls the fake with the development token and shows its
// 200. A screenshot of the page is written as an artifact
// ($WMSMOCK_ARTIFACTS, else a temporary directory) and its path logged.
func TestReferencePageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	browser := chromiumPath
	if _, err := os.Stat(browser); err != nil {
		p, lerr := exec.LookPath("chromium")
		if lerr != nil {
			t.Skipf("no Chromium at %s or on PATH (apt-get install chromium; .ci/run installs it): %v", chromiumPath, err)
		}
		browser = p
	}
	srv, err := mock.New(mock.WithRateLimit(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	// The flags keep the browser from calling home: with background
	// networking on, a sandboxed machine refuses its connections over and
	// over and the page loads slowly.
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1800),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	defer cancelBrowser()

	const op = "#operations-workflows-ListWorkflows"
	if err := chromedp.Do(bctx,
		chromedp.Navigate(srv.URL()+"/_mock/docs"),
		chromedp.WaitVisible(chromedp.CSS(op)),
	); err != nil {
		t.Fatalf("loading the page: %v (screenshot %s)", err, screenshot(t, bctx))
	}
	paths, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll(".opblock-summary-path")).map(e => e.dataset.path || e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/workflow", "/workflow/{workflowId}", "/workflow/launch", "/workflow/{workflowId}/cancel"} {
		found := false
		for _, p := range paths {
			found = found || strings.TrimSpace(strings.ReplaceAll(p, "\u200b", "")) == want
		}
		if !found {
			t.Errorf("the page lists no %s operation; it lists %d: %v", want, len(paths), paths)
		}
	}

	live := op + " .live-responses-table"
	err = chromedp.Do(bctx,
		chromedp.Click(chromedp.CSS(op+" .opblock-summary-control")),
		chromedp.WaitVisible(chromedp.CSS(op+" .try-out__btn")),
		chromedp.Click(chromedp.CSS(op+" .try-out__btn")),
		chromedp.WaitVisible(chromedp.CSS(op+" .execute")),
		chromedp.Click(chromedp.CSS(op+" .execute")),
		chromedp.WaitVisible(chromedp.CSS(live+" tr.response .response-col_status")),
	)
	shot := screenshot(t, bctx)
	if err != nil {
		t.Fatalf("try it on GET /workflow: %v (screenshot %s)", err, shot)
	}
	status, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(live+" tr.response .response-col_status")))
	if err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(live+" tr.response .response-col_description")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.TrimSpace(status), "200") {
		t.Errorf("try it on GET /workflow: status %q, want 200; body %.300s", status, body)
	}
	if !strings.Contains(body, "workflows") {
		t.Errorf("try it on GET /workflow: the answer shown is not the fake's list: %.300s", body)
	}
	// The call reached the fake as an API call and passed its token check
	// (without the token the page fills in, the fake answers 403).
	resp, err := srv.Client().Get(srv.URL() + "/_mock/admin/requests?n=20")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var journal struct {
		Requests []struct {
			Method, Path, Operation string
			Status                  int
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&journal); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range journal.Requests {
		found = found || e.Method == "GET" && e.Path == "/api/workflow" && e.Operation == "ListWorkflows" && e.Status == 200
	}
	if !found {
		t.Errorf("the fake's journal has no 200 for GET /api/workflow: %+v", journal)
	}
}

// screenshot writes the whole page as a PNG (quality 100 is PNG) and returns its path.
func screenshot(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir := os.Getenv("WMSMOCK_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "wmsmock-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("artifact directory: %v", err)
		return ""
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return ""
	}
	path := filepath.Join(dir, "reference-page.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Errorf("screenshot: %v", err)
		return ""
	}
	t.Logf("screenshot of the reference page: %s", path)
	return path
}
