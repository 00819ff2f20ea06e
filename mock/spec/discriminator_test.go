package spec

import (
	"bytes"
	"slices"
	"testing"
)

const discriminated = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /keys:
    get:
      responses:
        '200':
          description: keys
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Keys'}
components:
  schemas:
    Keys:
      type: object
      properties:
        kind: {type: string}
      discriminator:
        propertyName: kind
        mapping:
          aws: '#/components/schemas/AwsKeys'
          amazon: '#/components/schemas/AwsKeys'
      oneOf:
        - $ref: '#/components/schemas/AwsKeys'
        - $ref: '#/components/schemas/SshKeys'
        - type: object
    AwsKeys:
      allOf:
        - $ref: '#/components/schemas/Keys'
        - type: object
          properties:
            accessKey: {type: string}
    SshKeys:
      type: object
      properties:
        kind: {type: string}
        privateKey: {type: string}
`

func TestDiscriminatedBranchesAreGuarded(t *testing.T) {
	d, err := Load([]byte(discriminated))
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := d.Model.Components.Schemas.Get("Keys")
	branches := keys.Schema().OneOf
	if len(branches) != 3 {
		t.Fatalf("%d branches", len(branches))
	}
	// Each named branch is allOf [guard, $ref]; the guard names the
	// mapping's values for it, or the schema's own name without one.
	for i, want := range [][]string{{"aws", "amazon"}, {"SshKeys"}} {
		b := branches[i].Schema()
		if len(b.AllOf) != 2 {
			t.Fatalf("branch %d is not guarded: %+v", i, b)
		}
		guard := b.AllOf[0].Schema()
		if !slices.Contains(guard.Required, "kind") {
			t.Errorf("branch %d: guard does not require the discriminator: %v", i, guard.Required)
		}
		p, _ := guard.Properties.Get("kind")
		var got []string
		for _, e := range p.Schema().Enum {
			got = append(got, e.Value)
		}
		if !slices.Equal(got, want) {
			t.Errorf("branch %d: guard allows %v, want %v", i, got, want)
		}
		if !b.AllOf[1].IsReference() {
			t.Errorf("branch %d: second part is not the original reference", i)
		}
	}
	// An inline branch has no name to be picked by, and is left alone.
	if len(branches[2].Schema().AllOf) != 0 {
		t.Error("the inline branch was rewritten")
	}
	// AwsKeys inherited Keys by referring back to it: it now holds Keys'
	// own properties inline, without the oneOf that made the cycle.
	aws, _ := d.Model.Components.Schemas.Get("AwsKeys")
	parent := aws.Schema().AllOf[0]
	if parent.IsReference() {
		t.Fatalf("AwsKeys still refers back to %s", parent.GetReference())
	}
	ps := parent.Schema()
	if len(ps.OneOf) != 0 || ps.Discriminator != nil {
		t.Error("the inlined parent kept its composition")
	}
	if _, ok := ps.Properties.Get("kind"); !ok {
		t.Error("the inlined parent lost its properties")
	}
	// The served document is the user's, byte for byte.
	y, err := d.YAML()
	if err != nil || !bytes.Equal(y, []byte(discriminated)) {
		t.Errorf("served YAML changed (err %v)", err)
	}
}
