package mock_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/store"
)

// A State that cannot be opened makes New fail with an error that says
// which value is wrong, instead of a fake that starts somewhere else.
func TestWithStateRefusesBadValues(t *testing.T) {
	doc := embedded(t)
	// A client is made without connecting: the prefix is refused first.
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = client.Close() })
	for name, c := range map[string]struct {
		opt  mock.Option
		want string
	}{
		"nil state":          {mock.WithState(nil), "WithState: nil state"},
		"nil store":          {mock.WithState(mock.InStore(nil)), "InStore: nil store"},
		"nil backend":        {mock.WithState(mock.InBackend(nil)), "InBackend: nil backend"},
		"empty file path":    {mock.WithState(mock.InFile(" ", 0)), "empty path"},
		"negative interval":  {mock.WithState(mock.InFile(filepath.Join(t.TempDir(), "s.json"), -1)), "negative interval"},
		"nil redis client":   {mock.WithState(mock.InRedis(nil, "wmsmock")), "nil client"},
		"empty redis prefix": {mock.WithState(mock.InRedis(client, " ")), "empty key prefix"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, err := mock.New(mock.WithDocument("", doc), c.opt)
			if err == nil {
				_ = srv.Close()
				t.Fatal("New accepted it")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// WithState takes one place; a second replaces the first, so an option
// list that ends with a good one starts, whatever came before it.
func TestWithStateLastWins(t *testing.T) {
	doc := embedded(t)
	bad, good := mock.WithState(mock.InFile("", 0)), mock.WithState(mock.InMemory())
	srv, err := mock.New(mock.WithDocument("", doc), bad, good)
	if err != nil {
		t.Fatalf("the later, good state was not used: %v", err)
	}
	_ = srv.Close()
	if _, err := mock.New(mock.WithDocument("", doc), good, bad); err == nil {
		t.Fatal("the later, bad state was not used")
	}
}

// Each kind keeps what it says: NoRecords answers a describe of any id
// by synthesis, the default memory holds only what exists, InStore puts a
// launched run in the caller's store, and InBackend's records are the
// caller's backend's.
func TestStateKinds(t *testing.T) {
	doc := embedded(t)
	const unknown = "/api/workflow/1NoSuchRun0000"
	stateless, _ := newServer(t, doc, mock.WithState(mock.NoRecords()))
	if a := call(t, stateless.Handler(), "GET", unknown, devToken, nil); a.status != 200 {
		t.Errorf("NoRecords: describe of an unknown run answered %d, want a synthesized 200", a.status)
	}
	memory, _ := newServer(t, doc)
	if a := call(t, memory.Handler(), "GET", unknown, devToken, nil); a.status == 200 {
		t.Error("default: describe of an unknown run answered 200")
	}

	st := store.NewMemory()
	inStore, _ := newServer(t, doc, mock.WithState(mock.InStore(st)))
	id := launch(t, inStore.Handler(), "kept-by-caller", "")
	if _, err := st.Get("workflows", id); err != nil {
		t.Errorf("InStore: launched run %s is not in the caller's store: %v", id, err)
	}

	b, err := backend.NewMemory(backend.WithRecords(store.NewMemory()))
	if err != nil {
		t.Fatal(err)
	}
	inBackend, _ := newServer(t, doc, mock.WithState(mock.InBackend(b)))
	// The backend's own (empty) token list applies, not the server's.
	if a := call(t, inBackend.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 403 {
		t.Errorf("InBackend without tokens: the dev token answered %d, want 403", a.status)
	}
	if recs, err := b.Records().List("workflows"); err != nil || len(recs) == 0 {
		t.Errorf("InBackend: the seed is not in the caller's backend: %d records, %v", len(recs), err)
	}
}
