package mock_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"
	"time"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/faults"
)

// A test makes the fake fail the next two listings with a 503 from the
// gateway and then drop the connection of one, and removes the fault when
// it is done. docs/faults.md shows this example.
func ExampleServer_AddFault() {
	srv, err := mock.New()
	if err != nil {
		panic(err)
	}
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer srv.Close()

	drop, err := srv.AddFault(faults.Fault{Operation: "ListWorkflows", Connection: "reset", Times: 1})
	if err != nil {
		panic(err)
	}
	defer drop.Remove()
	burst, err := srv.AddFault(faults.Fault{Operation: "ListWorkflows", Status: 503, Times: 2, Note: "gateway trouble"})
	if err != nil {
		panic(err)
	}
	defer burst.Remove()

	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for range 4 {
		req, _ := http.NewRequest("GET", srv.BaseURL()+"/workflow", nil)
		req.Header.Set("Authorization", "Bearer "+mock.DevToken)
		resp, err := client.Do(req)
		if err != nil {
			fmt.Println("error, reset:", errors.Is(err, syscall.ECONNRESET))
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// 503
	// 503
	// error, reset: true
	// 200
}
