package mock

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/mock/https"
)

// listening is the HTTP server Start runs and where it listens.
type listening struct {
	mu      sync.Mutex
	addr    string // where Start listens (WithAddr)
	httpSrv *http.Server
	url     string
	tls     *https.Served // nil: plain HTTP
}

// listen starts serving h on the address, in the background.
func (l *listening) listen(h http.Handler) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.httpSrv != nil {
		return errors.New("mock: server already started")
	}
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		return err
	}
	l.url = "http://" + ln.Addr().String()
	l.httpSrv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		// "OPTIONS *" is a call like any other: it needs a token (A1)
		// and names no operation, where Go's server would answer it 200
		// by itself.
		DisableGeneralOptionsHandler: true,
	}
	srv := l.httpSrv
	if l.tls != nil {
		l.url = "https://" + ln.Addr().String()
		srv.TLSConfig = l.tls.Config.Clone()
		// ServeTLS offers HTTP/2 next to HTTP/1.1 on the config it is given.
		go func() { _ = srv.ServeTLS(ln, "", "") }()
		return nil
	}
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// baseURL is where the server listens, "" before listen.
func (l *listening) baseURL() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.url
}

// shutdown stops the HTTP server, if it was started, within ctx, closing
// the connections still open when ctx ends first.
func (l *listening) shutdown(ctx context.Context) error {
	l.mu.Lock()
	srv := l.httpSrv
	l.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, srv.Close())
	}
	return err
}
