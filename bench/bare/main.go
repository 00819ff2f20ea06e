// Command bare is the yardstick for wmsmock's throughput: the cheapest
// possible net/http server, answering every request with the same 1 KB JSON
// body. bench/run.sh loads it and the fake with the same wrk settings.
package main

import (
	"flag"
	"log"
	"net/http"
	"strconv"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "address to listen on")
	size := flag.Int("size", 1024, "body size in bytes (at least 14)")
	flag.Parse()
	body := []byte(`{"message":"` + strings.Repeat("x", max(*size, 14)-14) + `"}`)
	length := strconv.Itoa(len(body))
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		_, _ = w.Write(body)
	})))
}
