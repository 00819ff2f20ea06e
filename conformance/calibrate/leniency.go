package calibrate

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
)

// leniency probes how the server reads request bodies (the profile's
// requests section) and whether it takes the Basic credential Nextflow
// sends for a token not in the service's format (auth.basic_token).
//
// Nothing is written. Each body goes to PUT /credentials/{id} for an id
// nobody has: a server that refuses the body answers as it answers an
// invalid one (a Bad Request), and one that reads it goes on to find no
// credentials to update and answers as for a missing resource, as a valid
// body does. Two reference calls (a valid body, and one that no reading
// can save) give the two answers to tell apart; when they are the same,
// or a probe gets neither, the point is left as a note.
func (p *prober) leniency(ctx context.Context) error {
	if err := p.basicToken(ctx); err != nil {
		return err
	}
	target := "/credentials/" + randomWord(22)
	keys := func(k string) []byte {
		return []byte(`{"credentials":{"name":"wmsmock-calibrate","provider":"aws","keys":{` + k + `}}}`)
	}
	const valid = `"discriminator":"aws","accessKey":"AKIAWMSMOCKPROBE"`
	put := func(body []byte) (answer, error) {
		return p.call(ctx, "PUT", target, withToken, nil, body)
	}
	read, err := put(keys(valid))
	if err != nil {
		return err
	}
	refused, err := put(keys(`"discriminator":"aws","accessKey":{"not":"a string"}`))
	if err != nil {
		return err
	}
	if read.status < 300 || read.status == refused.status {
		p.note("requests not probed: PUT %s answered %d to a valid body and %d to an invalid one, which does not tell reading from refusing",
			target, read.status, refused.status)
		return nil
	}
	probes := []struct{ key, what, body string }{
		{"requests.nulls_as_absent", "null in an optional property (keys.assumeRoleArn)", valid + `,"assumeRoleArn":null`},
		{"requests.scalars_as_strings", "a number in a string property (keys.accessKey)", `"discriminator":"aws","accessKey":12345`},
		{"requests.infer_discriminator", "keys without their discriminator, the provider beside them", `"accessKey":"AKIAWMSMOCKPROBE"`},
	}
	for _, pr := range probes {
		a, err := put(keys(pr.body))
		if err != nil {
			return err
		}
		seen := fmt.Sprintf("PUT /credentials/{unknown id} with %s: %d (a valid body: %d, an invalid one: %d)",
			pr.what, a.status, read.status, refused.status)
		switch a.status {
		case read.status:
			p.find(pr.key, true, seen)
		case refused.status:
			p.find(pr.key, false, seen)
		default:
			p.note("%s not settled: %s", pr.key, seen)
		}
	}
	p.note("requests.objects_as_any and requests.required_exceptions not probed: their bodies go to operations that write (a run's trace)")
	return nil
}

// basicToken calls with the run's token sent as Nextflow sends a token
// that does not look like the service's own.
func (p *prober) basicToken(ctx context.Context) error {
	header := "Basic " + base64.StdEncoding.EncodeToString([]byte("@token:"+p.o.Token))
	p.res.secrets = append(p.res.secrets, header[len("Basic "):])
	a, err := p.call(ctx, "GET", "/workflow", header, nil, nil)
	if err != nil {
		return err
	}
	p.find("auth.basic_token", a.status == http.StatusOK,
		fmt.Sprintf("GET /workflow with the token as Basic base64(@token:<token>): %d", a.status))
	return nil
}
