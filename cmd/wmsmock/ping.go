package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/wmsmock/wmsmock/internal/cliflag"
	"github.com/wmsmock/wmsmock/internal/wait"
)

// pingConfig is what `wmsmock ping` is told.
type pingConfig struct {
	url         string
	wait        time.Duration
	callTimeout time.Duration
	caCert      cliflag.CACert
}

func parsePing(args []string, getenv func(string) string, stderr io.Writer) (pingConfig, error) {
	var envErrs []string
	c := pingConfig{}
	fs := cliflag.NewFlagSet("ping", "Check that the fake at URL (its root or its API's base URL; default http://127.0.0.1:8080) is ready:\n"+
		"exit 0 once GET /_mock/health answers ok, 1 otherwise. For container health checks, and for scripts that\n"+
		"start the fake in the background and wait for it (--wait).", "[URL]")
	fs.SetOutput(stderr)
	fs.StringVar(&c.url, "base-url", cliflag.EnvString(getenv, "WMSMOCK_BASE_URL", "http://127.0.0.1:8080"), "the fake's `URL`, also given as the argument [WMSMOCK_BASE_URL]")
	fs.DurationVar(&c.wait, "wait", cliflag.EnvDuration(getenv, "WMSMOCK_PING_WAIT", 0, &envErrs), "keep asking for up to this long while the fake is not ready (it may still be building or loading its document); 0 asks once [WMSMOCK_PING_WAIT]")
	fs.DurationVar(&c.callTimeout, "call-timeout", cliflag.EnvDuration(getenv, "WMSMOCK_CALL_TIMEOUT", 5*time.Second, &envErrs), "bound on each call [WMSMOCK_CALL_TIMEOUT]")
	c.caCert.Register(fs, getenv)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch fs.NArg() {
	case 0:
	case 1:
		c.url = fs.Arg(0)
	default:
		return c, fmt.Errorf("one URL at most, got %q", fs.Args())
	}
	if len(envErrs) > 0 {
		return c, cliflag.Problems(envErrs)
	}
	var errs []string
	if u, err := url.Parse(c.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Sprintf("URL %q: want http(s)://host[:port][/path]", c.url))
	}
	if c.wait < 0 || c.callTimeout <= 0 {
		errs = append(errs, "--wait must not be negative, --call-timeout must be positive")
	}
	// A fake started with --tls writes its CA as it starts: with --wait the
	// file may not be there yet, and is read when it is.
	if c.wait == 0 || fileExists(c.caCert.File) {
		errs = append(errs, c.caCert.Check()...)
	}
	return c, cliflag.Problems(errs)
}

// pingArgs turns the flags of `conform --ping` into ping's: the URL, the CA
// and the call timeout; the rest (tokens, tags) meant nothing to it.
func pingArgs(conform []string) []string {
	var out []string
	for i := 0; i < len(conform); i++ {
		a := conform[i]
		switch a {
		case "--base-url", "-base-url", "--ca-cert", "-ca-cert", "--call-timeout", "-call-timeout":
			if i+1 < len(conform) {
				out = append(out, a, conform[i+1])
				i++
			}
		}
	}
	return out
}

// pingCmd asks the fake whether it is ready. Distroless images have no
// curl, so the binary itself serves as the container's health check.
func pingCmd(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	cfg, err := parsePing(args, getenv, stderr)
	if err != nil {
		return cliflag.ParseFailed("ping", err, stderr)
	}
	u, _ := url.Parse(cfg.url)
	health := u.Scheme + "://" + u.Host + "/_mock/health"
	deadline := time.Now().Add(cfg.wait)
	for {
		err := pingOnce(ctx, &cfg, health)
		if err == nil {
			return 0
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			fmt.Fprintf(stderr, "wmsmock ping: %v\n", err)
			return 1
		}
		if wait.For(ctx, 200*time.Millisecond) != nil {
			fmt.Fprintf(stderr, "wmsmock ping: %v\n", err)
			return 1
		}
	}
}

func pingOnce(ctx context.Context, cfg *pingConfig, health string) error {
	if cfg.caCert.File != "" && cfg.caCert.Pool == nil {
		if problems := cfg.caCert.Check(); len(problems) > 0 {
			return errors.New(problems[0])
		}
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, health, nil)
	if err != nil {
		return err
	}
	resp, err := cfg.caCert.Client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var h struct {
		Status string `json:"status"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&h)
	if resp.StatusCode != http.StatusOK || h.Status != "ok" {
		return errors.New(fmt.Sprint(health, " answered ", resp.StatusCode, " (status ", fmt.Sprintf("%q", h.Status), ")"))
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
