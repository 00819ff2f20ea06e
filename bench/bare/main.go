// Command bare is the yardstick for wmsmock's throughput: the cheapest
// possible net/http server, reading each request's body and answering with
// the same JSON bytes every time (a 1 KB message, or the contents of
// --body, so that it sends exactly what the fake sends for one call).
// bench/run.sh loads it and the fake with the same wrk settings.
//
// With --keep it is the floor of a write instead: it also decodes each
// body as JSON (a Bad Request when it is not) and keeps what it decoded
// under a new id, the least any server that stores what it is sent does.
// It keeps the last 4096 only, so that a long run measures the writes and
// not a heap that grows without end.
package main

import (
	"encoding/json"
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "address to listen on")
	size := flag.Int("size", 1024, "body size in bytes (at least 14)")
	file := flag.String("body", "", "answer with the contents of this file instead")
	keep := flag.Bool("keep", false, "decode each body as JSON and keep it under a new id (the floor of a write)")
	flag.Parse()
	body := []byte(`{"message":"` + strings.Repeat("x", max(*size, 14)-14) + `"}`)
	if *file != "" {
		var err error
		if body, err = os.ReadFile(*file); err != nil {
			log.Fatal(err)
		}
	}
	length := strconv.Itoa(len(body))
	var (
		mu     sync.Mutex
		kept   = make([]any, 4096)
		nextID int
	)
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *keep && r.Method != http.MethodGet {
			var v any
			if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
				http.Error(w, `{"message":"not JSON"}`, http.StatusBadRequest)
				return
			}
			mu.Lock()
			nextID++
			kept[nextID%len(kept)] = v
			mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		_, _ = w.Write(body)
	})))
}
