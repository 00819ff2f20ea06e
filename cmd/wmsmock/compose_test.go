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
	"github.com/wmsmock/wmsmock/mock/auth"
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
	if len(test) < 3 || test[0] != "CMD" || test[2] != "conform" {
		t.Fatalf("healthcheck test %q: want [CMD /path/to/wmsmock conform --ping ...]", test)
	}
	hc, err := parseConform(test[3:], empty, io.Discard)
	if err != nil || !hc.ping {
		t.Fatalf("healthcheck %q: %v (ping=%v)", test, err, hc.ping)
	}
	if u, _ := url.Parse(hc.baseURL); u.Port() != port || !isLoopback(u.Hostname()) {
		t.Errorf("healthcheck pings %s; want loopback port %s", hc.baseURL, port)
	}

	// The run: conform against the fake by service name, once it is healthy.
	if len(run.Command) == 0 || run.Command[0] != "conform" {
		t.Fatalf("conformance command %q: want conform ...", run.Command)
	}
	cc, err := parseConformNoFiles(run.Command[1:])
	if err != nil {
		t.Fatalf("conformance command %q: %v", run.Command, err)
	}
	u, _ := url.Parse(cc.baseURL)
	if u.Hostname() != "wmsmock" || u.Port() != port || u.Path != sc.basePath {
		t.Errorf("conformance targets %s; want http://wmsmock:%s%s", cc.baseURL, port, sc.basePath)
	}
	if cc.token != auth.DevToken || cc.token2 != auth.SecondToken {
		t.Errorf("conformance tokens %q, %q; want the fake's fixtures %q, %q", cc.token, cc.token2, auth.DevToken, auth.SecondToken)
	}
	if cc.adminToken == "" || cc.adminToken != sc.adminToken {
		t.Errorf("admin tokens differ (serve %q, conform %q): the clock scenarios cannot move the fake's clock across containers", sc.adminToken, cc.adminToken)
	}
	if !cc.allowDestructive {
		t.Error("the compose run targets a throw-away fake; it should --allow-destructive")
	}
	if d := run.DependsOn["wmsmock"].Condition; d != "service_healthy" {
		t.Errorf("conformance depends_on wmsmock condition %q, want service_healthy", d)
	}
	for _, report := range []string{cc.junit, cc.cucumberJSON} {
		if report == "" {
			continue
		}
		if !mounted(run.Volumes, filepath.Dir(report)) {
			t.Errorf("report %s is not on a volume; it would vanish with the container", report)
		}
	}
	if fake.Image == "" || fake.Image != run.Image {
		t.Errorf("images %q and %q: both services run the same image", fake.Image, run.Image)
	}
}

// The Dockerfile must build what the compose file runs: a static binary at
// the path the health check calls, as a non-root user.
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
	for _, want := range []string{"CGO_ENABLED=0", `ENTRYPOINT ["/usr/local/bin/wmsmock"]`, "USER 65532"} {
		if !strings.Contains(d, want) {
			t.Errorf("Dockerfile lacks %s", want)
		}
	}
}

// parseConformNoFiles parses a conform command line written for inside a
// container, whose report directories do not exist here.
func parseConformNoFiles(args []string) (conformConfig, error) {
	dir, err := os.MkdirTemp("", "compose-check")
	if err != nil {
		return conformConfig{}, err
	}
	defer os.RemoveAll(dir)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if i > 0 && (args[i-1] == "--junit" || args[i-1] == "--cucumber-json") {
			out[i] = filepath.Join(dir, filepath.Base(a))
		}
	}
	c, err := parseConform(out, env(nil), io.Discard)
	// Report the paths as written, not as checked.
	for i, a := range args {
		if i > 0 && args[i-1] == "--junit" {
			c.junit = a
		}
		if i > 0 && args[i-1] == "--cucumber-json" {
			c.cucumberJSON = a
		}
	}
	return c, err
}

func mounted(volumes []string, dir string) bool {
	for _, v := range volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == dir {
			return true
		}
	}
	return false
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
