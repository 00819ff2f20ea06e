package leniency_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock/leniency"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// things is a small document with every construct the reader follows:
// references, an allOf of a base and a part, a read-only required
// property, a nullable one, an enum, a discriminated oneOf with a mapping
// and a sibling naming its branch, a oneOf without a discriminator, a map
// of bare objects and an array of strings.
const things = `openapi: 3.0.3
info: {title: things, version: "1"}
paths:
  /things:
    post:
      operationId: CreateThing
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/CreateThing'}
      responses: {'200': {description: ok}}
  /plain:
    post:
      operationId: Plain
      requestBody:
        content:
          text/plain:
            schema: {type: string}
      responses: {'200': {description: ok}}
components:
  schemas:
    CreateThing:
      type: object
      properties:
        thing: {$ref: '#/components/schemas/Thing'}
        labels: {type: array, items: {type: string}}
        labelIds: {type: array, items: {type: integer, format: int64}}
        params: {type: object, additionalProperties: {type: object}}
        sizes: {type: object, additionalProperties: {type: string}}
    Thing:
      allOf:
        - $ref: '#/components/schemas/Base'
        - type: object
          required: [name, submit]
          properties:
            name: {type: string}
            submit: {type: string, format: date-time}
            note: {type: string, nullable: true}
            count: {type: integer}
            kind: {type: string, enum: [aws, gcp, other]}
            keys: {$ref: '#/components/schemas/Keys'}
            flag: {type: boolean}
            either: {oneOf: [{type: string}, {type: integer}]}
            status:
              allOf: [{$ref: '#/components/schemas/Status'}]
              nullable: true
    Base:
      type: object
      required: [id]
      properties:
        id: {type: string, readOnly: true}
        description: {type: string}
    Status:
      type: string
      enum: [ON, OFF]
    Keys:
      type: object
      properties:
        discriminator: {type: string}
      discriminator:
        propertyName: discriminator
        mapping:
          aws: '#/components/schemas/AwsKeys'
          gcp: '#/components/schemas/GcpKeys'
      oneOf:
        - $ref: '#/components/schemas/AwsKeys'
        - $ref: '#/components/schemas/GcpKeys'
    AwsKeys:
      type: object
      properties:
        discriminator: {type: string}
        accessKey: {type: string}
        roleArn: {type: string}
    GcpKeys:
      type: object
      properties:
        discriminator: {type: string}
        data: {type: string}
`

// lenient is the service's policy, as the default profile has it.
var lenient = leniency.Policy{
	NullsAsAbsent: true, ScalarsAsStrings: true, StringsAsNumbers: true, InferDiscriminator: true, ObjectsAsAny: true,
	RequiredExceptions: []string{"Thing.submit"},
}

func load(t testing.TB, text string) *spec.Document {
	t.Helper()
	doc, err := spec.Load([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func operation(t testing.TB, doc *spec.Document, id string) *spec.Operation {
	t.Helper()
	for _, op := range doc.Operations {
		if op.ID == id {
			return op
		}
	}
	t.Fatalf("no operation %s", id)
	return nil
}

// summary renders deviations as "path kind" lines, sorted.
func summary(ds []leniency.Deviation) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.Path+" "+string(d.Kind))
	}
	slices.Sort(out)
	return out
}

func TestRead(t *testing.T) {
	doc := load(t, things)
	op := operation(t, doc, "CreateThing")
	const ok = `"name":"a","submit":"x"`
	cases := []struct {
		name, body, want string
		tolerated        []string // "path kind"
		policy           *leniency.Policy
		refused          []string
	}{
		{name: "nothing to read", body: `{"thing":{` + ok + `}}`},
		{name: "null in an optional property", body: `{"thing":{` + ok + `,"description":null}}`,
			want: `{"thing":{` + ok + `}}`, tolerated: []string{"/thing/description nulls_as_absent"}},
		{name: "null where nullable", body: `{"thing":{` + ok + `,"note":null}}`},
		{name: "null beside an allOf marked nullable", body: `{"thing":{` + ok + `,"status":null}}`},
		{name: "null in a required property stays for the validator", body: `{"thing":{"name":null,"submit":"x"}}`},
		{name: "null in a read-only required property", body: `{"thing":{` + ok + `,"id":null}}`,
			want: `{"thing":{` + ok + `}}`, tolerated: []string{"/thing/id nulls_as_absent"}},
		{name: "null first, in the middle and last, with spaces",
			body:      `{ "thing" : { "description" : null , "name" : "a" , "count": null, "submit":"x", "flag" : null } }`,
			want:      `{ "thing" : { "name" : "a" , "submit":"x" } }`,
			tolerated: []string{"/thing/count nulls_as_absent", "/thing/description nulls_as_absent", "/thing/flag nulls_as_absent"}},
		{name: "every member null", body: `{"thing":{"description":null,"count":null}}`, want: `{"thing":{}}`,
			tolerated: []string{"/thing/count nulls_as_absent", "/thing/description nulls_as_absent", "/thing/submit required_exceptions"}},
		{name: "a number in a string property", body: `{"thing":{"name":12.5e3,"submit":"x"}}`,
			want: `{"thing":{"name":"12.5e3","submit":"x"}}`, tolerated: []string{"/thing/name scalars_as_strings"}},
		{name: "a boolean in a string property", body: `{"thing":{` + ok + `,"description":true}}`,
			want: `{"thing":{` + ok + `,"description":"true"}}`, tolerated: []string{"/thing/description scalars_as_strings"}},
		{name: "a number in an enum of strings", body: `{"thing":{` + ok + `,"kind":5}}`,
			want: `{"thing":{` + ok + `,"kind":"5"}}`, tolerated: []string{"/thing/kind scalars_as_strings"}},
		{name: "a number where a number is allowed", body: `{"thing":{` + ok + `,"count":3,"either":4,"flag":true}}`},
		{name: "numbers in an array of strings", body: `{"labels":[1,"a",false]}`, want: `{"labels":["1","a","false"]}`,
			tolerated: []string{"/labels/0 scalars_as_strings", "/labels/2 scalars_as_strings"}},
		{name: "numeric strings in an array of integers", body: `{"labelIds":["5","6", 7]}`, want: `{"labelIds":[5,6, 7]}`,
			tolerated: []string{"/labelIds/0 strings_as_numbers", "/labelIds/1 strings_as_numbers"}},
		{name: "a numeric string in an integer property", body: `{"thing":{` + ok + `,"count":"-12.5e3"}}`,
			want: `{"thing":{` + ok + `,"count":-12.5e3}}`, tolerated: []string{"/thing/count strings_as_numbers"}},
		{name: "strings that are not JSON numbers stay for the validator", body: `{"labelIds":[" 5","0x1F","5a","","01","1.","NaN","\u0035"]}`},
		{name: "a numeric string where a string is also allowed", body: `{"thing":{` + ok + `,"either":"4"}}`},
		{name: "a required property the client leaves out", body: `{"thing":{"name":"a"}}`,
			tolerated: []string{"/thing/submit required_exceptions"}},
		{name: "the same, sent as null", body: `{"thing":{"name":"a","submit":null}}`, want: `{"thing":{"name":"a"}}`,
			tolerated: []string{"/thing/submit required_exceptions"}},
		{name: "a discriminator named by a sibling before it",
			body:      `{"thing":{` + ok + `,"kind":"aws","keys":{"accessKey":"k","roleArn":null}}}`,
			want:      `{"thing":{` + ok + `,"kind":"aws","keys":{"discriminator":"aws","accessKey":"k"}}}`,
			tolerated: []string{"/thing/keys/discriminator infer_discriminator", "/thing/keys/roleArn nulls_as_absent"}},
		{name: "a discriminator named by a sibling after it", body: `{"thing":{"keys":{},"kind":"gcp",` + ok + `}}`,
			want: `{"thing":{"keys":{"discriminator":"gcp"},"kind":"gcp",` + ok + `}}`, tolerated: []string{"/thing/keys/discriminator infer_discriminator"}},
		{name: "a discriminated object whose members are all dropped", body: `{"thing":{` + ok + `,"kind":"aws","keys":{ "roleArn" : null }}}`,
			want:      `{"thing":{` + ok + `,"kind":"aws","keys":{"discriminator":"aws"  }}}`,
			tolerated: []string{"/thing/keys/discriminator infer_discriminator", "/thing/keys/roleArn nulls_as_absent"}},
		{name: "a discriminator present picks the branch", body: `{"thing":{` + ok + `,"keys":{"discriminator":"gcp","data":7}}}`,
			want: `{"thing":{` + ok + `,"keys":{"discriminator":"gcp","data":"7"}}}`, tolerated: []string{"/thing/keys/data scalars_as_strings"}},
		{name: "a sibling value that names no branch", body: `{"thing":{` + ok + `,"kind":"other","keys":{"accessKey":"k"}}}`},
		{name: "bare objects take any value", body: `{"params":{"a":"x","b":null,"c":{"d":1},"e":[1]}}`,
			tolerated: []string{"/params/a objects_as_any", "/params/b objects_as_any", "/params/e objects_as_any"}},
		{name: "a null map entry is left to the validator", body: `{"sizes":{"a":null,"b":3}}`, want: `{"sizes":{"a":null,"b":"3"}}`,
			tolerated: []string{"/sizes/b scalars_as_strings"}},
		{name: "unknown properties stay", body: `{"thing":{` + ok + `,"instant":1712345678901,"dag":{"x":null}},"extra":null}`},
		{name: "an escaped key", body: `{"thing":{` + ok + `},"a\/b~":null,"labels":{"x\"y":1}}`},
		{name: "not JSON", body: `{"thing":{"name":null,`},
		{name: "trailing garbage", body: `{"thing":{"description":null}} x`},
		{name: "strict refuses them all", policy: &leniency.Policy{Strict: true, NullsAsAbsent: true, ScalarsAsStrings: true, StringsAsNumbers: true, InferDiscriminator: true, ObjectsAsAny: true, RequiredExceptions: []string{"Thing.submit"}},
			body:    `{"thing":{"name":1,"description":null,"kind":"aws","keys":{}},"params":{"a":1},"labelIds":["5"]}`,
			refused: []string{"/labelIds/0 strings_as_numbers", "/params/a objects_as_any", "/thing/description nulls_as_absent", "/thing/keys/discriminator infer_discriminator", "/thing/name scalars_as_strings", "/thing/submit required_exceptions"}},
		{name: "one kind off", policy: &leniency.Policy{ScalarsAsStrings: true},
			body: `{"thing":{"name":1,"description":null,"submit":"x"}}`, want: `{"thing":{"name":"1","description":null,"submit":"x"}}`,
			tolerated: []string{"/thing/name scalars_as_strings"}, refused: []string{"/thing/description nulls_as_absent"}},
		{name: "no exceptions named", policy: &leniency.Policy{NullsAsAbsent: true}, body: `{"thing":{"name":"a"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol := lenient
			if c.policy != nil {
				pol = *c.policy
			}
			res := leniency.New(doc, pol).Read(op, "application/json; charset=utf-8", []byte(c.body))
			want := c.want
			if want == "" {
				want = c.body
			}
			if string(res.Body) != want {
				t.Errorf("body\n got %s\nwant %s", res.Body, want)
			}
			if got := summary(res.Tolerated); !slices.Equal(got, orEmpty(c.tolerated)) {
				t.Errorf("tolerated %q, want %q", got, c.tolerated)
			}
			if got := summary(res.Refused); !slices.Equal(got, orEmpty(c.refused)) {
				t.Errorf("refused %q, want %q", got, c.refused)
			}
			if len(c.refused) > 0 && string(res.Body) != c.body && pol.Strict {
				t.Errorf("strict mode changed the body: %s", res.Body)
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// A body the reader cannot take is never half-read: another content type,
// an operation without a JSON body, an empty body.
func TestReadLeavesOtherBodies(t *testing.T) {
	doc := load(t, things)
	r := leniency.New(doc, lenient)
	body := []byte(`{"thing":{"description":null}}`)
	for _, c := range []struct {
		op, contentType string
		body            []byte
	}{
		{"CreateThing", "text/plain", body},
		{"Plain", "application/json", body},
		{"CreateThing", "application/json", nil},
	} {
		res := r.Read(operation(t, doc, c.op), c.contentType, c.body)
		if string(res.Body) != string(c.body) || len(res.Tolerated)+len(res.Refused) != 0 {
			t.Errorf("%s as %s: %s %v %v", c.op, c.contentType, res.Body, res.Tolerated, res.Refused)
		}
	}
}

// A body with more deviations than a call records lists the first ones
// and counts the rest.
func TestReadBoundsWhatItRecords(t *testing.T) {
	doc := load(t, things)
	items := make([]string, 100)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	body := `{"labels":[` + strings.Join(items, ",") + `]}`
	res := leniency.New(doc, lenient).Read(operation(t, doc, "CreateThing"), "application/json", []byte(body))
	if len(res.Tolerated) != 32 || res.More != 68 {
		t.Errorf("recorded %d, more %d; want 32 and 68", len(res.Tolerated), res.More)
	}
	if !strings.HasPrefix(string(res.Body), `{"labels":["0","1",`) || !strings.HasSuffix(string(res.Body), `"99"]}`) {
		t.Errorf("every item is read all the same: %s", res.Body)
	}
}

// FuzzRead: whatever the body, reading it never panics, a body it changes
// comes out as JSON, and it records no more than its bound.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		`{"thing":{"name":1,"description":null,"kind":"aws","keys":{"roleArn":null}},"labels":[1,true],"params":{"a":null}}`,
		`{"thing":{"keys":{},"kind":"gcp"}}`, `{"a\"b":null}`, `[`, `{"thing":{"name":"a\\"}}`, `{"thing": {"count": -1.5e3, "flag": null}}`,
	} {
		f.Add([]byte(seed))
	}
	doc := load(f, things)
	op := operation(f, doc, "CreateThing")
	r := leniency.New(doc, lenient)
	f.Fuzz(func(t *testing.T, body []byte) {
		res := r.Read(op, "application/json", body)
		if string(res.Body) != string(body) && !json.Valid(res.Body) {
			t.Errorf("%q read as %q, not JSON", body, res.Body)
		}
		if len(res.Tolerated)+len(res.Refused) > 32 {
			t.Errorf("%d deviations recorded", len(res.Tolerated)+len(res.Refused))
		}
	})
}
