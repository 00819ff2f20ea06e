package mock_test

import (
	"fmt"
	"net/http"

	"github.com/wmsmock/wmsmock/mock"
)

// A fake serving HTTPS, called with the client that trusts its CA.
func ExampleWithTLS() {
	srv, err := mock.New(mock.WithTLS())
	if err != nil {
		panic(err)
	}
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.BaseURL()+"/workflow", nil)
	req.Header.Set("Authorization", "Bearer "+mock.DevToken)
	resp, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Proto, srv.Certificate().IPAddresses[0])
	// Output: 200 HTTP/2.0 127.0.0.1
}
