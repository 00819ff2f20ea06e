package profile

import "testing"

func TestAnswerNulls(t *testing.T) {
	if !Default().Answers.WithNulls() {
		t.Error("the default profile does not send the service's nulls")
	}
	p, err := Parse([]byte("answers: {nulls: omit}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Answers.WithNulls() {
		t.Error("answers.nulls: omit still sends nulls")
	}
}
