package mock_test

import (
	"fmt"
	"net/http"

	"github.com/wmsmock/wmsmock/mock"
)

// The fake on its embedded description of the service: a call needs a
// bearer token the fake knows (the dev token is one), and a call without
// one is refused as the service refuses it.
func ExampleNew() {
	srv, err := mock.New(mock.WithSeed(7))
	if err != nil {
		panic(err)
	}
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer srv.Close()
	for _, token := range []string{"", mock.DevToken} {
		req, _ := http.NewRequest("GET", srv.BaseURL()+"/workflow", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// 403
	// 200
}
