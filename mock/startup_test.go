package mock_test

import (
	"testing"

	"github.com/wmsmock/wmsmock/mock"
)

// WithStartupReport names every step of New and Start once, in the order they
// run, so `wmsmock serve` and bench/startup can say where start-up goes.
// (Durations are the clock's; only their presence and order are checked.)
func TestStartupReport(t *testing.T) {
	var got []mock.StartupPhase
	srv, err := mock.New(mock.WithStartupReport(func(p []mock.StartupPhase) { got = p }))
	if err != nil {
		t.Fatal(err)
	}
	if got != nil {
		t.Fatal("start-up reported before Start")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	want := []string{"parse", "model", "index", "validator", "setup", "state", "listen"}
	if len(got) != len(want) {
		t.Fatalf("startup phases = %v, want %v", got, want)
	}
	for i, p := range got {
		if p.Name != want[i] || p.Duration < 0 {
			t.Errorf("phase %d = %+v, want %q with a duration", i, p, want[i])
		}
	}
}
