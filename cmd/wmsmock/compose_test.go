package main

import (
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/testenv"
)

// composeFile is the part of docker-compose.yml the checks below read.
type composeFile struct {
	Services map[string]struct {
		Build       any      `yaml:"build"`
		Image       string   `yaml:"image"`
		Command     []string `yaml:"command"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
		DependsOn map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Volumes  []string `yaml:"volumes"`
		Profiles []string `yaml:"profiles"`
	} `yaml:"services"`
}

// There is no container engine where the tests run, so the compose file is
// checked by reading it: its command lines go through the same parsers as
// a real command line, and the health check must hit the port the fake
// listens on. A typo in a flag fails here instead of in someone's CI.
func TestComposeFile(t *testing.T) {
	root := testenv.RepoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	plain := 0
	for _, svc := range c.Services {
		if len(svc.Profiles) == 0 {
			plain++
		}
	}
	if plain != 2 {
		t.Errorf("want two services outside profiles (the fake and the conformance run), got %d", plain)
	}
	checkReplicasProfile(t, c)
	fake, ok := c.Services["wmsmock"]
	if !ok {
		t.Fatal("no service wmsmock")
	}
	run, ok := c.Services["conformance"]
	if !ok {
		t.Fatal("no service conformance")
	}
	empty := env(nil)

	// The fake: `serve` on all interfaces.
	if len(fake.Command) == 0 || fake.Command[0] != "serve" {
		t.Fatalf("wmsmock command %q: want serve ...", fake.Command)
	}
	sc, err := parseServe(fake.Command[1:], empty, io.Discard)
	if err != nil {
		t.Fatalf("wmsmock command %q: %v", fake.Command, err)
	}
	host, port, _ := net.SplitHostPort(sc.addr)
	if host != "0.0.0.0" || port == "" {
		t.Errorf("wmsmock listens on %q; want 0.0.0.0:PORT so other containers reach it", sc.addr)
	}

	// Its health check: the binary pings /_mock/health on that port.
	test := fake.Healthcheck.Test
	if len(test) < 3 || test[0] != "CMD" || test[2] != "ping" {
		t.Fatalf("healthcheck test %q: want [CMD /path/to/wmsmock ping URL]", test)
	}
	hc, err := parsePing(test[3:], empty, io.Discard)
	if err != nil {
		t.Fatalf("healthcheck %q: %v", test, err)
	}
	if u, _ := url.Parse(hc.url); u.Port() != port || !isLoopback(u.Hostname()) {
		t.Errorf("healthcheck pings %s; want loopback port %s", hc.url, port)
	}

	// The run (its flags are checked by cmd/wmsmock-contract's
	// TestComposeConformanceRun): conform, once the fake is healthy, in
	// the same image.
	if len(run.Command) == 0 || run.Command[0] != "conform" {
		t.Fatalf("conformance command %q: want conform ...", run.Command)
	}
	if d := run.DependsOn["wmsmock"].Condition; d != "service_healthy" {
		t.Errorf("conformance depends_on wmsmock condition %q, want service_healthy", d)
	}
	if fake.Image == "" || fake.Image != run.Image {
		t.Errorf("images %q and %q: both services run the same image", fake.Image, run.Image)
	}
}

// The Dockerfile must build what the compose file runs: static binaries at
// the path the health check calls, the second binary beside the first
// (where wmsmock looks for it), as a non-root user; with the build cache
// in a cache mount, so a source change does not recompile every
// dependency.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	d := string(b)
	froms := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(d, -1)
	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build, got %d FROM lines", len(froms))
	}
	if final := froms[len(froms)-1][1]; !strings.Contains(final, "distroless") && final != "scratch" {
		t.Errorf("final image %s: want distroless or scratch", final)
	}
	for _, want := range []string{"CGO_ENABLED=0", `ENTRYPOINT ["/usr/local/bin/wmsmock"]`, "USER 65532",
		"./cmd/wmsmock ./cmd/wmsmock-contract", "/out/wmsmock /out/wmsmock-contract /usr/local/bin/",
		"--mount=type=cache,target=/root/.cache/go-build", "--mount=type=cache,target=/go/pkg/mod"} {
		if !strings.Contains(d, want) {
			t.Errorf("Dockerfile lacks %s", want)
		}
	}
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// checkReplicasProfile: the "replicas" profile runs three fakes on one
// Redis, by its service name, behind a load balancer that waits for all
// three to be healthy and whose configuration names all three.
func checkReplicasProfile(t *testing.T, c composeFile) {
	t.Helper()
	redis, ok := c.Services["redis"]
	if !ok || !slices.Contains(redis.Profiles, "replicas") {
		t.Fatal("no redis service in the replicas profile")
	}
	lb, ok := c.Services["lb"]
	if !ok || !slices.Contains(lb.Profiles, "replicas") {
		t.Fatal("no lb service in the replicas profile")
	}
	conf, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "compose", "nginx-replicas.conf"))
	if err != nil {
		t.Fatalf("the load balancer's configuration: %v", err)
	}
	for _, name := range []string{"wmsmock-1", "wmsmock-2", "wmsmock-3"} {
		r, ok := c.Services[name]
		if !ok || !slices.Contains(r.Profiles, "replicas") {
			t.Errorf("no %s in the replicas profile", name)
			continue
		}
		sc, err := parseServe(r.Command[1:], env(nil), io.Discard)
		if err != nil || r.Command[0] != "serve" {
			t.Errorf("%s command %q: %v", name, r.Command, err)
			continue
		}
		if u, _ := url.Parse(sc.store); u == nil || u.Scheme != "redis" || u.Hostname() != "redis" {
			t.Errorf("%s keeps records in %q; want redis://redis:PORT/DB", name, sc.store)
		}
		if d := r.DependsOn["redis"].Condition; d != "service_healthy" {
			t.Errorf("%s depends_on redis: %q, want service_healthy", name, d)
		}
		if d := lb.DependsOn[name].Condition; d != "service_healthy" {
			t.Errorf("lb depends_on %s: %q, want service_healthy", name, d)
		}
		if _, port, _ := net.SplitHostPort(sc.addr); !strings.Contains(string(conf), name+":"+port) {
			t.Errorf("the load balancer's configuration does not send calls to %s:%s", name, port)
		}
	}
}
