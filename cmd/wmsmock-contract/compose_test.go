package main

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/auth"
)

// TestComposeConformanceRun: the compose file's conformance run parses as
// a conform command line, targets the fake by its service name on the port
// it listens on, with the fake's fixture tokens and admin token, runs
// every scenario, and keeps its reports on a volume. (cmd/wmsmock's
// TestComposeFile checks the fake's side.)
func TestComposeConformanceRun(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Command []string `yaml:"command"`
			Volumes []string `yaml:"volumes"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	fake, run := c.Services["wmsmock"].Command, c.Services["conformance"]
	if len(run.Command) == 0 || run.Command[0] != "conform" {
		t.Fatalf("conformance command %q: want conform ...", run.Command)
	}
	cc, err := parseConformNoFiles(run.Command[1:])
	if err != nil {
		t.Fatalf("conformance command %q: %v", run.Command, err)
	}
	_, port, _ := net.SplitHostPort(flagValue(fake, "--addr"))
	u, _ := url.Parse(cc.baseURL)
	if u.Hostname() != "wmsmock" || u.Port() != port || u.Path != "/api" {
		t.Errorf("conformance targets %s; want http://wmsmock:%s/api", cc.baseURL, port)
	}
	if cc.token != auth.DevToken || cc.token2 != auth.SecondToken {
		t.Errorf("conformance tokens %q, %q; want the fake's fixtures %q, %q", cc.token, cc.token2, auth.DevToken, auth.SecondToken)
	}
	if admin := flagValue(fake, "--admin-token"); cc.adminToken == "" || cc.adminToken != admin {
		t.Errorf("admin tokens differ (serve %q, conform %q): the clock scenarios cannot move the fake's clock across containers", admin, cc.adminToken)
	}
	if !cc.allowDestructive {
		t.Error("the compose run targets a throw-away fake; it should --allow-destructive")
	}
	for _, report := range []string{cc.junit, cc.cucumberJSON} {
		if report != "" && !slices.ContainsFunc(run.Volumes, func(v string) bool {
			parts := strings.Split(v, ":")
			return len(parts) >= 2 && parts[1] == filepath.Dir(report)
		}) {
			t.Errorf("report %s is not on a volume; it would vanish with the container", report)
		}
	}
}

// flagValue is the value after name in a command line ("" if absent).
func flagValue(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
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
	c, err := parseConform(out, env(nil), os.Stderr)
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
