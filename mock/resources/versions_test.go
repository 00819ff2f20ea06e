package resources

import (
	"fmt"
	"testing"

	"github.com/wmsmock/wmsmock/mock/apierror"
)

// The version a pipeline shows can be acted on: listed, updated, renamed
// and launched by its id; another id is missing; the one version cannot
// stop being the default.
func TestPipelineVersionsCanBeActedOn(t *testing.T) {
	f := newFixture(t, publishedDoc(t), true)
	id := fmt.Sprint(get(f.OK("POST", "/pipelines", `{"name":"versioned","version":{"name":"v1"},"launch":{"pipeline":"https://github.com/nf-core/rnaseq","computeEnvId":"5Fq2Xw8RtLmN3p","revision":"3.14.0"}}`).Body, "pipeline.pipelineId"))
	p := f.OK("GET", "/pipelines/"+id, "").Body
	vid := fmt.Sprint(get(p, "pipeline.version.id"))
	if get(p, "pipeline.version.name") != "v1" || get(p, "pipeline.version.isDefault") != true || len(vid) < 10 {
		t.Fatalf("version = %v, want v1, default, with an id", get(p, "pipeline.version"))
	}
	versions := list(f.OK("GET", "/pipelines/"+id+"/versions", "").Body, "versions")
	if len(versions) != 1 || fmt.Sprint(get(versions[0], "version.id")) != vid {
		t.Errorf("versions = %v, want the one the pipeline shows (%s)", versions, vid)
	}
	f.Refused(apierror.Conflict, "GET", "/pipelines/"+id+"/versions/validate?name=v1", "")
	f.OK("GET", "/pipelines/"+id+"/versions/validate?name=v2", "")

	f.OK("POST", "/pipelines/"+id+"/versions/"+vid, `{"description":"updated through its version"}`)
	f.OK("PUT", "/pipelines/"+id+"/versions/"+vid+"/manage", `{"name":"v1-renamed","isDefault":true}`)
	p = f.OK("GET", "/pipelines/"+id, "").Body
	if get(p, "pipeline.description") != "updated through its version" || get(p, "pipeline.version.name") != "v1-renamed" || fmt.Sprint(get(p, "pipeline.version.id")) != vid {
		t.Errorf("after update and manage: %v", get(p, "pipeline"))
	}
	l := f.OK("GET", "/pipelines/"+id+"/launch?versionId="+vid, "").Body
	if get(l, "launch.pipeline") != "https://github.com/nf-core/rnaseq" || get(l, "launch.revision") != "3.14.0" {
		t.Errorf("launch of the version: %v", get(l, "launch"))
	}
	f.Refused(apierror.Forbidden, "GET", "/pipelines/"+id+"/launch?versionId=nosuchversion", "")
	f.Refused(apierror.Forbidden, "PUT", "/pipelines/"+id+"/versions/nosuchversion/manage", `{"name":"x"}`)
	f.Refused(apierror.Conflict, "PUT", "/pipelines/"+id+"/versions/"+vid+"/manage", `{"isDefault":false}`)
}

// A seeded pipeline's launch settings run that pipeline, on a held
// compute environment, in that environment's work directory, and say
// nothing else (Seqera's Node-RED nodes launch a pipeline with them).
func TestSeededPipelineLaunchesItself(t *testing.T) {
	f := newFixture(t, publishedDoc(t), true)
	for _, p := range list(f.OK("GET", "/pipelines", "").Body, "pipelines") {
		id := fmt.Sprint(get(p, "pipelineId"))
		l := get(f.OK("GET", "/pipelines/"+id+"/launch", "").Body, "launch")
		if get(l, "pipeline") != get(p, "repository") {
			t.Errorf("pipeline %s (%v): its launch runs %v", id, get(p, "repository"), get(l, "pipeline"))
		}
		// Settings nobody wrote are not made up: a launch of them is a
		// fresh run of the pipeline, not a resumed session under a set name.
		for _, k := range []string{"resume", "sessionId", "resumeLaunchId", "runName", "paramsText", "entryName", "towerConfig"} {
			if v := get(l, k); v != nil && v != false {
				t.Errorf("pipeline %s: launch %s = %v, which nobody wrote", id, k, v)
			}
		}
		ce := fmt.Sprint(get(l, "computeEnv.id"))
		d := f.OK("GET", "/compute-envs/"+ce, "")
		if d.Err != nil {
			continue // a launch of the personal context may name none it can see
		}
		if want := get(d.Body, "computeEnv.config.workDir"); want != nil && get(l, "workDir") != want {
			t.Errorf("pipeline %s: launch workDir %v, its compute environment's is %v", id, get(l, "workDir"), want)
		}
		for _, k := range []string{"name", "platform", "status"} {
			if get(l, "computeEnv."+k) != get(d.Body, "computeEnv."+k) {
				t.Errorf("pipeline %s: launch computeEnv.%s = %v, the environment's is %v", id, k, get(l, "computeEnv."+k), get(d.Body, "computeEnv."+k))
			}
		}
	}
}
