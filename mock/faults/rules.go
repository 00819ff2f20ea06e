package faults

import (
	"encoding/json"
	"fmt"
)

// AddFault keeps a prepared fault (Fault.Prepare) in st, from source.
func AddFault(st Store, f Fault, source string) (Entry, error) {
	s, err := storedFault(f, source)
	if err != nil {
		return Entry{}, err
	}
	if s, err = st.Add(s); err != nil {
		return Entry{}, err
	}
	return Entry{ID: s.ID, Kind: KindFault, Source: source, Fault: &f}, nil
}

// AddOverride keeps a prepared override (Override.Prepare) in st, from
// source.
func AddOverride(st Store, o Override, source string) (Entry, error) {
	s, err := storedOverride(o, source)
	if err != nil {
		return Entry{}, err
	}
	if s, err = st.Add(s); err != nil {
		return Entry{}, err
	}
	return Entry{ID: s.ID, Kind: KindOverride, Source: source, Override: &o}, nil
}

func storedFault(f Fault, source string) (Stored, error) {
	b, err := json.Marshal(f)
	return Stored{Kind: KindFault, Source: source, Limit: int64(f.Times), Rule: b}, err
}

func storedOverride(o Override, source string) (Stored, error) {
	b, err := json.Marshal(o)
	return Stored{Kind: KindOverride, Source: source, Limit: int64(o.Times), Rule: b}, err
}

// Pinning is the rules a fake starts with, from one source, prepared.
type Pinning struct {
	Source    string
	Faults    []Fault
	Overrides []Override
}

// Pin makes the rules of every pinning the store's pinned rules (Store.Pin),
// numbered in order within their source and kind.
func Pin(st Store, pins ...Pinning) error {
	var all []Stored
	for _, p := range pins {
		for i, f := range p.Faults {
			s, err := storedFault(f, p.Source)
			if err != nil {
				return err
			}
			s.ID, s.Seq = PinnedID(p.Source, KindFault, i), int64(len(all))
			all = append(all, s)
		}
		for i, o := range p.Overrides {
			s, err := storedOverride(o, p.Source)
			if err != nil {
				return err
			}
			s.ID, s.Seq = PinnedID(p.Source, KindOverride, i), int64(len(all))
			all = append(all, s)
		}
	}
	return st.Pin(all)
}

// List returns the rules of kind k in the order they are tried, with
// their hits.
func List(st Store, k Kind) ([]Entry, error) {
	stored, _, err := st.Rules()
	if err != nil {
		return nil, err
	}
	hits, err := st.Hits()
	if err != nil {
		return nil, err
	}
	order(stored)
	out := []Entry{}
	for _, s := range stored {
		if s.Kind != k {
			continue
		}
		e := Entry{ID: s.ID, Kind: s.Kind, Source: s.Source, Hits: hits[s.ID]}
		switch k {
		case KindFault:
			e.Fault = new(Fault)
			err = json.Unmarshal(s.Rule, e.Fault)
		case KindOverride:
			e.Override = new(Override)
			err = json.Unmarshal(s.Rule, e.Override)
		}
		if err != nil {
			return nil, fmt.Errorf("faults: rule %s: %w", s.ID, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Lookup returns one rule with its hits; false when it is gone.
func Lookup(st Store, id string) (Entry, bool, error) {
	for _, k := range []Kind{KindFault, KindOverride} {
		entries, err := List(st, k)
		if err != nil {
			return Entry{}, false, err
		}
		for _, e := range entries {
			if e.ID == id {
				return e, true, nil
			}
		}
	}
	return Entry{}, false, nil
}
