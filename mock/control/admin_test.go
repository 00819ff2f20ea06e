package control_test

import (
	"fmt"
	"testing"

	"github.com/wmsmock/wmsmock/mock/control"
)

func TestRequestJournalKeepsTheNewest(t *testing.T) {
	j := control.NewRequestJournal(3)
	if got := j.Recent(10); len(got) != 0 {
		t.Fatalf("empty journal: %v", got)
	}
	for i := range 5 {
		j.Add(control.RequestEntry{Method: "GET", Path: fmt.Sprintf("/p%d", i), Status: 200})
	}
	got := j.Recent(0)
	if len(got) != 3 || got[0].Path != "/p4" || got[2].Path != "/p2" {
		t.Errorf("Recent(0) = %v, want /p4 /p3 /p2", got)
	}
	if got := j.Recent(1); len(got) != 1 || got[0].Path != "/p4" {
		t.Errorf("Recent(1) = %v", got)
	}
}
