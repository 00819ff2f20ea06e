package resources_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/profile"
)

// The service's nulls change answers in one way only: an optional property
// the answer had left out is there as null. So two fakes that differ only
// in answers.nulls give the same answers once nulls are taken out of both;
// every value a record holds (what a client launched or created) is in
// both, never replaced by a null; each fake's answers pass its own check
// (the nulls taken, or the document as it stands); and renderings cached
// by one fake are its own.
func TestNullsNeverOverRecordValues(t *testing.T) {
	doc := embeddedDoc(t)
	omit := profile.Default()
	omit.Answers.Nulls = profile.NullsOmit
	fakes := map[string]*fixture{
		profile.NullsService: newFixture(t, doc, withProfile(profile.Default())),
		profile.NullsOmit:    newFixture(t, doc, withProfile(omit)),
	}
	calls := []struct{ method, target, body string }{
		{"POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq","revision":"3.14.0","runName":"null_check","workDir":"s3://bucket/work","configProfiles":["test"],"paramsText":"{\"a\":1}"}}`},
		{"POST", "/pipelines", `{"name":"null-check","description":"mine","launch":{"pipeline":"https://github.com/nf-core/sarek","workDir":"s3://bucket/sarek"}}`},
		{"GET", "/workflow?max=5", ""},
		{"GET", "/pipelines?max=5", ""},
		{"GET", "/compute-envs", ""},
		{"GET", "/credentials", ""},
		{"GET", "/user-info", ""},
	}
	answers := map[string][]map[string]any{}
	nulls := map[string]int{}
	for name, f := range fakes {
		check := answerCheck(doc, f.prof)
		var ids []string
		for _, c := range calls {
			r := f.OK(c.method, c.target, c.body)
			answers[name] = append(answers[name], r.Body)
			if id, ok := r.Body["workflowId"].(string); ok {
				ids = append(ids, "/workflow/"+id)
			}
			if id := get(r.Body, "pipeline.pipelineId"); id != nil {
				ids = append(ids, "/pipelines/"+jsonText(id))
			}
		}
		for _, target := range ids {
			r := f.OK("GET", target, "")
			answers[name] = append(answers[name], r.Body)
			op, _ := f.Route("GET", target)
			if problems := check(resources.SuccessSchema(op).Lib(), r.Raw); problems != nil {
				t.Errorf("%s: GET %s does not pass its answer check: %s", name, target, strings.Join(problems, "; "))
			}
			nulls[name] += strings.Count(string(r.Raw), ":null")
		}
	}
	service, plain := answers[profile.NullsService], answers[profile.NullsOmit]
	for i := range service {
		if got, want := withoutNulls(service[i]), withoutNulls(plain[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("answer %d: without its nulls\n%s\nis not the answer without the service's nulls\n%s", i, jsonText(got), jsonText(want))
		}
	}
	run, pipeline := service[len(service)-2], service[len(service)-1]
	for path, want := range map[string]any{
		"workflow.runName": "null_check", "workflow.revision": "3.14.0", "workflow.workDir": "s3://bucket/work",
	} {
		if got := get(run, path); got != want {
			t.Errorf("the run's %s = %v, want %v", path, got, want)
		}
	}
	if got := get(pipeline, "pipeline.description"); got != "mine" {
		t.Errorf("the pipeline's description = %v, want mine", got)
	}
	if nulls[profile.NullsService] <= nulls[profile.NullsOmit] {
		t.Errorf("%d nulls with the service's nulls, %d without: the setting changes nothing", nulls[profile.NullsService], nulls[profile.NullsOmit])
	}
}

// withoutNulls is a copy of a decoded JSON value without the null members
// of its objects.
func withoutNulls(v any) any { return jsonvalue.DropNulls(jsonvalue.Clone(v)) }

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
