package resourcestest

import (
	"io/fs"
	"testing"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/profile"
)

// Env is what a test's service runs over, fresh for each: a record store
// in memory, a token store holding the fixtures' tokens, a fake clock at
// T0 and the default profile. Each test package builds its service over
// one (with the parts it needs) and calls it through Serve's Caller.
type Env struct {
	Store   store.Store
	Tokens  auth.Store
	Clock   *clock.Fake
	Profile *profile.Profile
}

// NewEnv is a fresh Env.
func NewEnv(tb testing.TB) *Env {
	tb.Helper()
	e := &Env{Store: store.NewMemory(), Clock: clock.NewFake(T0), Profile: profile.Default()}
	e.Tokens = auth.NewMemory(auth.WithClock(e.Clock))
	if err := auth.Seed(e.Tokens, auth.Fixtures()...); err != nil {
		tb.Fatal(err)
	}
	return e
}

// Serve is a Caller of the handler table a service built over e has.
func (e *Env) Serve(tb testing.TB, doc *spec.Document, handlers map[*spec.Operation]handler.Func) *Caller {
	return &Caller{T: tb, Doc: doc, Handlers: handlers, Now: e.Clock.Now}
}

// Seed hands the embedded seed (fixtures), read by load, to seed: the
// service's LoadSeed and Seed, which this package cannot name.
func Seed[S any](tb testing.TB, load func(fs.FS) (S, error), seed func(S) error) {
	tb.Helper()
	s, err := load(fixtures.Seed())
	if err != nil {
		tb.Fatal(err)
	}
	if err := seed(s); err != nil {
		tb.Fatal(err)
	}
}
