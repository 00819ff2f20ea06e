// Command bare is the yardstick for wmsmock's throughput: the cheapest
// possible net/http server, reading each request's body and answering with
// the same JSON bytes every time (a 1 KB message, or the contents of
// --body, so that it sends exactly what the fake sends for one call).
// bench/run.sh loads it and the fake with the same wrk settings.
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "address to listen on")
	size := flag.Int("size", 1024, "body size in bytes (at least 14)")
	file := flag.String("body", "", "answer with the contents of this file instead")
	flag.Parse()
	body := []byte(`{"message":"` + strings.Repeat("x", max(*size, 14)-14) + `"}`)
	if *file != "" {
		var err error
		if body, err = os.ReadFile(*file); err != nil {
			log.Fatal(err)
		}
	}
	length := strconv.Itoa(len(body))
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		_, _ = w.Write(body)
	})))
}
