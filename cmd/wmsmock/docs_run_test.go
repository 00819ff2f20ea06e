package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/testenv"
)

// Every shell block in README.md and docs/*.md says whether it can run
// here, in an HTML comment on the line before it (which renderers hide):
//
//	<!-- runnable -->                    it starts what it needs itself
//	<!-- runnable: fake -->              it needs a fake at 127.0.0.1:8080
//	<!-- runnable: fake, service -->     and the service (a second fake)
//	<!-- not runnable: REASON -->        it needs what a test cannot have
//
// TestDocCommandsRun builds both binaries and runs every runnable block,
// each page in order in a directory of its own (with the checkout's files
// to read), and fails with the block and its output when a command stops
// working. A block is a user's shell session: `go run ./cmd/X` is the
// fresh build, loopback ports are free ones, the service
// (https://api.cloud.seqera.io, its schema, $TOKEN and $TOKEN2) is a second
// fake with its tokens. Nothing leaves the machine.
type docBlock struct {
	page, marker, script string
	line                 int
	fake, service        bool
}

var (
	markerLine = regexp.MustCompile(`^<!-- (runnable(?::\s*([a-z, ]+))?|not runnable: .+) -->$`)
	// The docs' addresses, and what a block gets instead.
	fakeAddr    = "127.0.0.1:8080"
	otherAddrs  = []string{"127.0.0.1:8081", "127.0.0.1:8443"}
	serviceURL  = "https://api.cloud.seqera.io"
	serviceSpec = "https://cloud.seqera.io/openapi/seqera-api-latest.yml"
)

// docBlocks reads the shell blocks of the README and every page, and
// fails for one without a marker.
func docBlocks(t *testing.T, root string) []docBlock {
	t.Helper()
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	var out []docBlock
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		blocks := parseBlocks(rel, readDoc(t, root, rel))
		for _, b := range blocks {
			if b.marker == "" {
				t.Errorf("%s:%d: a shell block without <!-- runnable... --> or <!-- not runnable: why --> on the line before it", rel, b.line)
			}
		}
		out = append(out, blocks...)
	}
	return out
}

// parseBlocks finds the ```sh blocks of a page, each with the marker on
// the line before it ("" when there is none).
func parseBlocks(page, text string) []docBlock {
	lines := strings.Split(text, "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```sh" {
			continue
		}
		b := docBlock{page: page, line: i + 1}
		if i > 0 {
			if m := markerLine.FindStringSubmatch(strings.TrimSpace(lines[i-1])); m != nil {
				b.marker = m[1]
				for _, w := range strings.Split(m[2], ",") {
					b.fake = b.fake || strings.TrimSpace(w) == "fake"
					b.service = b.service || strings.TrimSpace(w) == "service"
				}
			}
		}
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, lines[i])
		}
		b.script = strings.Join(body, "\n")
		out = append(out, b)
	}
	return out
}

func TestDocCommandsRun(t *testing.T) {
	root := testenv.RepoRoot(t)
	blocks := docBlocks(t, root)
	runnable, wholeSuite := 0, false
	for _, b := range blocks {
		if strings.HasPrefix(b.marker, "runnable") {
			runnable++
			wholeSuite = wholeSuite || b.page == "README.md" && strings.Contains(b.script, "conform") && strings.Contains(b.script, "--allow-destructive")
		}
	}
	if !wholeSuite {
		t.Error("README.md has no runnable conform line with --allow-destructive: its whole-suite run is not checked")
	}
	if runnable < 10 {
		t.Errorf("only %d runnable blocks in the docs; the test would check little", runnable)
	}
	if testing.Short() {
		t.Skip("-short: the docs' commands are not run")
	}
	for _, tool := range []string{"go", "bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here: the docs' commands are not run", tool)
		}
	}
	bin := t.TempDir()
	for _, name := range []string{"wmsmock", "wmsmock-contract"} {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, name), "./cmd/"+name)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/%s: %v\n%s", name, err, out)
		}
	}
	byPage := map[string][]docBlock{}
	var pages []string
	for _, b := range blocks {
		if !strings.HasPrefix(b.marker, "runnable") {
			continue
		}
		if _, ok := byPage[b.page]; !ok {
			pages = append(pages, b.page)
		}
		byPage[b.page] = append(byPage[b.page], b)
	}
	for _, page := range pages {
		t.Run(page, func(t *testing.T) {
			t.Parallel() // mostly waiting on paced calls
			dir := checkoutCopy(t, root)
			for _, b := range byPage[page] {
				out := runBlock(t, bin, dir, b)
				if b.page == "README.md" && strings.Contains(b.script, "conform") && strings.Contains(b.script, "--allow-destructive") {
					wholeSuitePassed(t, b, out)
				}
			}
		})
	}
}

// checkoutCopy is a directory that reads like the checkout (its top-level
// entries linked) and takes what the commands write.
func checkoutCopy(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wholeSuitePassed: the README's conform line against the local fake
// runs every scenario and each one passes (exit 0 alone would let skipped
// scenarios through).
func wholeSuitePassed(t *testing.T, b docBlock, out string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(\d+) scenarios: (\d+) passed, 0 failed, 0 skipped in `).FindStringSubmatch(out)
	if m == nil || m[1] != m[2] || m[1] == "0" {
		t.Errorf("%s:%d: the conform line does not pass every scenario:\n%s", b.page, b.line, out)
	}
}

// runBlock runs one block as a bash script in dir, after starting the
// fakes it asks for, and returns its output.
func runBlock(t *testing.T, bin, dir string, b docBlock) string {
	t.Helper()
	for _, tool := range []string{"jq"} {
		if strings.Contains(b.script, tool+" ") {
			if _, err := exec.LookPath(tool); err != nil {
				t.Logf("%s:%d skipped: no %s here", b.page, b.line, tool)
				return ""
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	script := strings.NewReplacer("go run ./cmd/wmsmock-contract", "wmsmock-contract", "go run ./cmd/wmsmock", "wmsmock").Replace(b.script)
	// Each address the docs use becomes a free one, written as 127.0.0.1
	// or localhost; the commands' own defaults follow (serve's
	// 127.0.0.1:8080, proxy's :8081, ping's URL).
	addrs := map[string]string{}
	for _, a := range append([]string{fakeAddr}, otherAddrs...) {
		to := freeAddr(t)
		addrs[a] = to
		_, from, _ := net.SplitHostPort(a)
		_, port, _ := net.SplitHostPort(to)
		script = strings.ReplaceAll(script, a, to)
		script = strings.ReplaceAll(script, "localhost:"+from, "localhost:"+port)
	}
	fake := addrs[fakeAddr]
	// A wait meant for a first build is a minute here, where the build is
	// done.
	script = strings.ReplaceAll(script, "ping --wait 10m", "ping --wait 60s")
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"WMSMOCK_ADDR="+fake, "WMSMOCK_BASE_URL=http://"+fake, "WMSMOCK_PROXY_ADDR="+addrs["127.0.0.1:8081"],
		// calibrate's least pace: its probes are as the docs' own, sooner.
		"WMSMOCK_PACE=50ms",
		"TOKEN=wmsmock-dev-token", "TOKEN2=wmsmock-second-token")
	if b.fake {
		startFake(ctx, t, bin, dir, fake)
	}
	if b.service {
		svc := freeAddr(t)
		startFake(ctx, t, bin, dir, svc)
		script = strings.NewReplacer(serviceSpec, "http://"+svc+"/_mock/openapi.yaml", serviceURL, "http://"+svc+"/api").Replace(script)
	}
	// What the block left running in the background is stopped at its
	// end; the block's own status stands.
	full := "set -euo pipefail\ntrap 'rc=$?; kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; exit $rc' EXIT\n" + script + "\n"
	cmd := exec.CommandContext(ctx, "bash", "-c", full)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s:%d: the block failed (%v):\n%s\n--- as run:\n%s\n--- output:\n%s", b.page, b.line, err, b.script, script, out)
	}
	t.Logf("%s:%d ran (%d bytes of output)", b.page, b.line, len(out))
	return string(out)
}

// startFake starts `wmsmock serve` at addr for the rest of the test and
// waits until it is ready.
func startFake(ctx context.Context, t *testing.T, bin, dir, addr string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "wmsmock"), "serve", "--addr", addr)
	cmd.Dir = dir
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	ping := exec.CommandContext(ctx, filepath.Join(bin, "wmsmock"), "ping", "--wait", "60s", "http://"+addr)
	if out, err := ping.CombinedOutput(); err != nil {
		t.Fatalf("the fake at %s did not start: %v %s\n%s", addr, err, out, log.String())
	}
}

// freeAddr is a loopback address nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestDocMarkersAreRead: the blocks and markers of a page are read as the
// test above needs them: what each block holds, which fakes it asks for,
// and which have no marker.
func TestDocMarkersAreRead(t *testing.T) {
	page := "intro\n<!-- runnable: fake, service -->\n```sh\necho a\necho b\n```\n\n<!-- not runnable: needs Docker -->\n" +
		"```sh\ndocker run x\n```\n<!-- runnable -->\n```sh\necho c\n```\n```sh\necho unmarked\n```\n```go\nx := 1\n```\n"
	got := parseBlocks("p.md", page)
	want := []docBlock{
		{page: "p.md", line: 3, marker: "runnable: fake, service", script: "echo a\necho b", fake: true, service: true},
		{page: "p.md", line: 9, marker: "not runnable: needs Docker", script: "docker run x"},
		{page: "p.md", line: 13, marker: "runnable", script: "echo c"},
		{page: "p.md", line: 16, marker: "", script: "echo unmarked"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("blocks:\n%+v\nwant:\n%+v", got, want)
	}
}
