package profile

// Answers says how the fake shapes the bodies it answers with, where the
// service's habits differ from what its published schema describes.
type Answers struct {
	// Nulls is NullsService or NullsOmit.
	Nulls string `yaml:"nulls"`
	// ObjectsAsAny: a property whose schema says only "type: object" (the
	// document's rendering of a Java Object: a run's params, whose values
	// are text, numbers and lists) holds whatever the record holds, as the
	// service's JSON layer writes it. Off: only objects, as the schema says.
	ObjectsAsAny bool `yaml:"objects_as_any"`
}

// What an answer does with a property it has no value for.
const (
	// NullsService sends it as null, as the service does (its JSON layer
	// writes every property of a record, null where the record has no
	// value), although the schema marks none of them nullable. Required
	// properties always have a value.
	NullsService = "service"
	// NullsOmit leaves it out: answers the published schema accepts as
	// it stands.
	NullsOmit = "omit"
)

// WithNulls reports whether answers carry the service's nulls.
func (a Answers) WithNulls() bool { return a.Nulls == NullsService }

func (a Answers) validate(v *validator) {
	if a.Nulls != NullsService && a.Nulls != NullsOmit {
		v.add("answers.nulls", "%q: use %q (what the service does) or %q (answers the schema accepts as it stands)", a.Nulls, NullsService, NullsOmit)
	}
}
