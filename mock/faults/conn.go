package faults

import (
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/wmsmock/wmsmock/profile"
)

// Held is an answer written but not yet sent: a connection fault sends
// part of it, or none, and breaks the connection.
type Held struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// NewHeld returns an empty held answer.
func NewHeld() *Held { return &Held{header: http.Header{}} }

// Header implements http.ResponseWriter.
func (h *Held) Header() http.Header { return h.header }

// WriteHeader implements http.ResponseWriter.
func (h *Held) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}

// Write implements http.ResponseWriter.
func (h *Held) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(b)
}

// Break sends held over w broken the way conn (profile.ConnReset...)
// says, and returns the status the client received (0: none). A stalled
// answer waits up to stall, or until ctx ends (the client gave up) or
// stop is closed (the server is stopping). abort is true when w cannot be
// taken over (HTTP/2, or a writer without a connection): the caller then
// ends the handler with panic(http.ErrAbortHandler), which makes the
// server drop the stream.
func Break(ctx context.Context, w http.ResponseWriter, held *Held, conn string, stall time.Duration, stop <-chan struct{}) (status int, abort bool) {
	rc := http.NewResponseController(w)
	body := held.body.Bytes()
	if conn == profile.ConnReset || conn == profile.ConnEmpty || len(body) == 0 {
		// Nothing of the answer goes out. An answer without a body cannot
		// be cut inside it, so a cut or stall of one is an empty reply.
		c, _, err := rc.Hijack()
		if err != nil {
			return 0, true
		}
		if conn == profile.ConnReset {
			c = reset(c)
		}
		_ = c.Close()
		return 0, false
	}
	h := w.Header()
	for k, vs := range held.header {
		h[k] = vs
	}
	// The whole answer's length, of which half is sent: the client knows
	// the answer is cut short.
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(held.status)
	_, _ = w.Write(body[:len(body)/2])
	if err := rc.Flush(); err != nil {
		return held.status, true
	}
	if conn == profile.ConnStall {
		if stall <= 0 {
			stall = profile.MaxFaultDelay
		}
		t := time.NewTimer(stall)
		select {
		case <-t.C:
		case <-ctx.Done():
		case <-stop:
		}
		t.Stop()
	}
	c, _, err := rc.Hijack()
	if err != nil {
		return held.status, true
	}
	_ = c.Close()
	return held.status, false
}

// reset returns the connection under c (below TLS, whose orderly close
// would be an end of file to the peer) set so that closing it sends a TCP
// reset: the peer's next read fails with "connection reset by peer".
func reset(c net.Conn) net.Conn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	return c
}
