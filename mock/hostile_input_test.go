package mock_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/profile"
)

// A page size or offset past the 32-bit range the documents declare
// (format: int32) is a Bad Request with an Error ID, on both documents;
// the largest value that fits is still a page.
func TestPageParametersPastInt32(t *testing.T) {
	for _, d := range documents {
		t.Run(d.name, func(t *testing.T) {
			srv, _ := newServer(t, d.doc(t))
			h := srv.Handler()
			for _, q := range []string{"max=2147483648", "offset=2147483648", "max=-2147483649", "offset=99999999999999999999"} {
				a := call(t, h, "GET", "/api/workflow?"+q, devToken, nil)
				if a.status != 400 {
					t.Errorf("GET /workflow?%s = %d %.100q, want 400", q, a.status, a.body)
					continue
				}
				id := errorID(t, a)
				if e, ok := errorEntry(t, srv, id); !ok || !strings.Contains(e.Reason, "out of range for int32") {
					t.Errorf("journal entry of %s: %+v", q, e)
				}
			}
			for _, q := range []string{"max=2147483647", "offset=2147483647"} {
				if a := call(t, h, "GET", "/api/workflow?"+q, devToken, nil); a.status != 200 {
					t.Errorf("GET /workflow?%s = %d %.100q, want 200", q, a.status, a.body)
				}
			}
		})
	}
}

// rawCall writes a request on a fresh connection to a started server and
// reads the answer; send writes whatever the test wants after the head.
func rawCall(t *testing.T, srv *mock.Server, head string, send func(c *net.TCPConn)) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(workBound))
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	if send != nil {
		go send(c.(*net.TCPConn))
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func started(t *testing.T, opts ...mock.Option) *mock.Server {
	t.Helper()
	srv, _ := newServer(t, embedded(t), opts...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// badRequestFrom checks that an answer read off the wire is a Bad Request
// with an Error ID whose journal entry gives the reason.
func badRequestFrom(t *testing.T, srv *mock.Server, resp *http.Response, reason string) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, body: body}
	if a.status != 400 {
		t.Fatalf("status %d %.200q, want 400", a.status, a.body)
	}
	e, ok := errorEntry(t, srv, errorID(t, a))
	if !ok || !strings.Contains(e.Reason, reason) {
		t.Fatalf("journal entry %+v does not say %q", e, reason)
	}
}

const launchBody = `{"launch":{"pipeline":"https://github.com/nextflow-io/hello"}}`

func postHead(length int) string {
	return "POST /api/workflow/launch HTTP/1.1\r\nHost: fake\r\nAuthorization: Bearer " + devToken +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(length) + "\r\n\r\n"
}

// A body shorter than its Content-Length, from a client that then closes
// its side of the connection, is the client's malformed request: 400 with
// an Error ID, not the internal-error reply (the half close ends the
// call's context, which used to read as the fake's own failure).
func TestShortBodyThenHalfClose(t *testing.T) {
	srv := started(t)
	resp := rawCall(t, srv, postHead(len(launchBody)+40), func(c *net.TCPConn) {
		_, _ = io.WriteString(c, launchBody)
		_ = c.CloseWrite()
	})
	badRequestFrom(t, srv, resp, "ended after "+strconv.Itoa(len(launchBody))+" of the "+strconv.Itoa(len(launchBody)+40)+" bytes")
}

// A body that stops coming, or comes a byte at a time for longer than the
// request timeout, is a Bad Request when the time is up. The deadline is
// the server's real one (it is wall-clock time, like the one in
// deadline_test.go): short here so the test ends quickly.
func TestStalledAndTrickledBodies(t *testing.T) {
	srv := started(t, mock.WithRequestTimeout(300*time.Millisecond))
	// A first launch compiles the operation's schemas, which under the
	// race detector may take longer than this deadline: done here, its
	// answer does not matter, and the launch at the end is a warm one.
	call(t, srv.Handler(), "POST", "/api/workflow/launch", devToken, []byte(launchBody))
	t.Run("stalled", func(t *testing.T) {
		resp := rawCall(t, srv, postHead(len(launchBody)), func(c *net.TCPConn) {
			_, _ = io.WriteString(c, launchBody[:10]) // then nothing more
		})
		badRequestFrom(t, srv, resp, "not received within the request timeout (10 bytes arrived)")
	})
	t.Run("trickled", func(t *testing.T) {
		stop := make(chan struct{})
		defer close(stop)
		resp := rawCall(t, srv, postHead(len(launchBody)), func(c *net.TCPConn) {
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for i := 0; i < len(launchBody); i++ {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				if _, err := c.Write([]byte{launchBody[i]}); err != nil {
					return
				}
			}
		})
		badRequestFrom(t, srv, resp, "not received within the request timeout")
	})
	// The connection's deadline is the call's alone: a body sent whole on
	// a fresh connection is served.
	resp := rawCall(t, srv, postHead(len(launchBody))+launchBody, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("a whole body after the slow ones: %d", resp.StatusCode)
	}
}

// "OPTIONS *" is a call like any other: without a token it is refused as
// one (403 by default), never answered by Go's server-wide handler; with a
// token it names no operation.
func TestOptionsAsteriskNeedsAToken(t *testing.T) {
	srv := started(t)
	resp := rawCall(t, srv, "OPTIONS * HTTP/1.1\r\nHost: fake\r\n\r\n", nil)
	if resp.StatusCode != 403 {
		t.Fatalf("OPTIONS * without a token: %d, want 403", resp.StatusCode)
	}
	resp = rawCall(t, srv, "OPTIONS * HTTP/1.1\r\nHost: fake\r\nAuthorization: Bearer "+devToken+"\r\n\r\n", nil)
	if resp.StatusCode != 403 {
		t.Fatalf("OPTIONS * with a token: %d, want the unknown-route 403", resp.StatusCode)
	}
}

// A profile may answer a path the document lacks and a method its path
// lacks apart (404 and 405, as some servers do); by default both are the
// unknown-route 403.
func TestUnknownMethodReply(t *testing.T) {
	p, err := profile.Parse([]byte("unknown_route: {status: 404, body: empty}\nunknown_method: {status: 405, body: empty}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range documents {
		t.Run(d.name, func(t *testing.T) {
			doc := d.doc(t)
			split, _ := newServer(t, doc, mock.WithProfile(p))
			plain, _ := newServer(t, doc)
			for _, tc := range []struct {
				method, path string
				split        int
			}{
				{"GET", "/api/no-such-thing", 404},
				{"PATCH", "/api/workflow", 405},
				{"PUT", "/api/workflow/abc/cancel", 405},
				{"GET", "/api/workflow/abc/no-such-part", 404},
				{"GET", "/elsewhere/workflow", 404},
			} {
				if a := call(t, split.Handler(), tc.method, tc.path, devToken, nil); a.status != tc.split {
					t.Errorf("split profile: %s %s = %d, want %d", tc.method, tc.path, a.status, tc.split)
				}
				if a := call(t, plain.Handler(), tc.method, tc.path, devToken, nil); a.status != 403 || len(a.body) != 0 {
					t.Errorf("default profile: %s %s = %d %q, want 403 and no body", tc.method, tc.path, a.status, a.body)
				}
			}
		})
	}
}

// A Content-Type without a subtype ("application", or "application;/json",
// which parses to it) is a Bad Request with an Error ID naming the content
// type, on both documents; the validator library would panic on it (a 500,
// found by TestPipelineUnderMutatedCalls).
func TestContentTypeWithoutSubtype(t *testing.T) {
	body := []byte(`{"launch":{"pipeline":"https://github.com/nextflow-io/hello"}}`)
	for _, d := range documents {
		t.Run(d.name, func(t *testing.T) {
			srv, _ := newServer(t, d.doc(t))
			h := srv.Handler()
			for _, ct := range []string{"application", "application;/json", "json"} {
				a := call(t, h, "POST", "/api/workflow/launch", devToken, body, "Content-Type", ct)
				if a.status != 400 {
					t.Errorf("Content-Type %q: %d %.100q, want 400", ct, a.status, a.body)
					continue
				}
				if e, ok := errorEntry(t, srv, errorID(t, a)); !ok || !strings.Contains(e.Reason, "content type") {
					t.Errorf("Content-Type %q: journal entry %+v", ct, e)
				}
			}
		})
	}
}
