package control

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/profile"
)

// The fault and override endpoints: a test adds rules that make the fake
// slow, failing or broken for the calls it chooses, or pin an answer,
// lists them with how often each acted, and removes them (mock/faults,
// docs/faults.md). They sit behind the admin guard.
//
//	GET    /_mock/admin/faults        every fault, in the order tried, with its hits
//	POST   /_mock/admin/faults        add one (201 with its id)
//	GET    /_mock/admin/faults/{id}   one
//	DELETE /_mock/admin/faults/{id}   remove one (204)
//	DELETE /_mock/admin/faults        remove every fault ({"removed": n})
//
// and the same under /_mock/admin/overrides.

// RulesBackend is what the fault and override endpoints need. An
// AdminBackend that also implements it gets them.
type RulesBackend interface {
	// AddFault and AddOverride check a rule and keep it; an error wrapping
	// faults.ErrInvalid (or ErrInvalid) is the caller's, any other the
	// rule store's.
	AddFault(f faults.Fault) (faults.Entry, error)
	AddOverride(o faults.Override) (faults.Entry, error)
	// Rules lists the rules of a kind, in the order they are tried.
	Rules(k faults.Kind) ([]faults.Entry, error)
	// RemoveRule removes one rule of a kind and reports whether it was
	// there; RemoveRules removes them all and says how many.
	RemoveRule(k faults.Kind, id string) (bool, error)
	RemoveRules(k faults.Kind) (int, error)
	// RefuseRule answers a rule that cannot be taken: 400 with an Error
	// ID and the reason for the caller's mistakes, the internal-error
	// reply for the store's failures.
	RefuseRule(w http.ResponseWriter, r *http.Request, err error)
}

// maxRuleBody bounds a rule's JSON: the largest override body
// (profile.MaxOverrideBody) and room for the rest.
const maxRuleBody = profile.MaxOverrideBody + 64<<10

type rules struct{ b RulesBackend }

func registerRules(r *mux.Router, b RulesBackend) {
	h := &rules{b: b}
	for _, k := range []faults.Kind{faults.KindFault, faults.KindOverride} {
		path := "/" + string(k) + "s"
		r.HandleFunc(path, h.list(k)).Methods(http.MethodGet)
		r.HandleFunc(path, h.add(k)).Methods(http.MethodPost)
		r.HandleFunc(path, h.removeAll(k)).Methods(http.MethodDelete)
		r.HandleFunc(path+"/{id}", h.get(k)).Methods(http.MethodGet)
		r.HandleFunc(path+"/{id}", h.remove(k)).Methods(http.MethodDelete)
	}
}

func (h *rules) list(k faults.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		entries, err := h.b.Rules(k)
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, message(string(k)+"s: "+err.Error()))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{string(k) + "s": entries})
	}
}

func (h *rules) add(k faults.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRuleBody))
		if err != nil {
			h.b.RefuseRule(w, r, fmt.Errorf("%w: the %s's JSON is over %d bytes or could not be read: %v", ErrInvalid, k, maxRuleBody, err))
			return
		}
		var e faults.Entry
		switch k {
		case faults.KindFault:
			var f faults.Fault
			if err = decodeRule(b, &f); err == nil {
				e, err = h.b.AddFault(f)
			}
		case faults.KindOverride:
			var o faults.Override
			if err = decodeRule(b, &o); err == nil {
				e, err = h.b.AddOverride(o)
			}
		}
		if err != nil {
			h.b.RefuseRule(w, r, err)
			return
		}
		w.Header().Set("Location", r.URL.Path+"/"+e.ID)
		writeJSON(w, http.StatusCreated, e)
	}
}

// decodeRule reads one JSON object, refusing fields the rule does not
// have: a misspelt condition must not turn a narrow rule into one that
// hits every call.
func decodeRule(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: the body is not a rule: %v", ErrInvalid, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: the body holds more than one JSON value", ErrInvalid)
	}
	return nil
}

func (h *rules) get(k faults.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := mux.Vars(r)["id"]
		entries, err := h.b.Rules(k)
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, message(string(k)+"s: "+err.Error()))
			return
		}
		for _, e := range entries {
			if e.ID == id {
				writeJSON(w, http.StatusOK, e)
				return
			}
		}
		writeJSON(w, http.StatusNotFound, message(fmt.Sprintf("no %s %s (spent, removed or reset)", k, id)))
	}
}

func (h *rules) remove(k faults.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := mux.Vars(r)["id"]
		ok, err := h.b.RemoveRule(k, id)
		switch {
		case err != nil:
			writeJSON(w, http.StatusServiceUnavailable, message(string(k)+"s: "+err.Error()))
		case !ok:
			writeJSON(w, http.StatusNotFound, message(fmt.Sprintf("no %s %s (spent, removed or reset)", k, id)))
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}
}

func (h *rules) removeAll(k faults.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n, err := h.b.RemoveRules(k)
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, message(string(k)+"s: "+err.Error()))
			return
		}
		writeJSON(w, http.StatusOK, map[string]int{"removed": n})
	}
}
