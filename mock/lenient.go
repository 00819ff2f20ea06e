package mock

import (
	"github.com/wmsmock/wmsmock/mock/leniency"
	"github.com/wmsmock/wmsmock/profile"
)

// requestPolicy is the profile's requests section as the body reader
// takes it.
func requestPolicy(p *profile.Profile) leniency.Policy {
	r := p.Requests
	return leniency.Policy{
		NullsAsAbsent: r.NullsAsAbsent, ScalarsAsStrings: r.ScalarsAsStrings, StringsAsNumbers: r.StringsAsNumbers,
		InferDiscriminator: r.InferDiscriminator, ObjectsAsAny: r.ObjectsAsAny,
		RequiredExceptions: r.RequiredExceptions, Strict: r.Strict,
	}
}
