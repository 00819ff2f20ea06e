package store

import (
	"errors"
	"fmt"
)

// Upsert changes the record coll/id with change, or inserts the record
// fresh makes (with that id) when there is none. A record another call
// inserts between the two is changed instead, so two reports of one item
// at once never lose either.
func Upsert(st Store, coll, id string, change func(*Record) error, fresh func() (Record, error)) error {
	for range 8 {
		_, err := st.Update(coll, id, change)
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		r, err := fresh()
		if err != nil {
			return err
		}
		r.ID = id
		if _, err := st.Insert(coll, r); !errors.Is(err, ErrExists) {
			return err
		}
	}
	return fmt.Errorf("store: %s %s kept changing", coll, id)
}
