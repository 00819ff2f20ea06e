package mock

import "net/http"

// recorder remembers what was written, for the log, the journal and the
// panic guard.
type recorder struct {
	http.ResponseWriter
	status  int
	wrote   bool
	errorID string
	reason  string // why the call was refused, when it was
}

func (r *recorder) WriteHeader(code int) {
	if r.wrote {
		return
	}
	r.status, r.wrote = code, true
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) statusCode() int {
	if r.status == 0 && !r.wrote { // wrote and 0: no answer reached the client
		return http.StatusOK
	}
	return r.status
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
