package synth

import (
	"fmt"
	"testing"
)

// TestAnswersHaveTheirPlatformsUsualShape generates AWS Batch compute
// environment configs, alone and inside a compute environment answer, from
// the published schema: every answer carries the fields the service always
// fills (usualProperties), where the schema leaves them optional, and a
// request body still may leave them out.
func TestAnswersHaveTheirPlatformsUsualShape(t *testing.T) {
	d := loadSpecFile(t, sharedSpec(t, ""))
	g := New(WithSeed(3))
	cfg := componentSchema(t, d, "AwsBatchConfig")
	forge := componentSchema(t, d, "ForgeConfig")
	ce := componentSchema(t, d, "ComputeEnv_ComputeConfig_")
	missing := func(v any, props ...string) []string {
		m, _ := v.(map[string]any)
		var out []string
		for _, p := range props {
			if m[p] == nil {
				out = append(out, p)
			}
		}
		return out
	}
	awsProps, forgeProps := usualProperties[0].props, usualProperties[1].props
	inCE, forged, leftOut := 0, 0, 0
	for i := range 40 {
		key := fmt.Sprint("usual ", i)
		v := g.Value(cfg, key, Response)
		if m := missing(v, awsProps...); len(m) > 0 {
			t.Errorf("a generated AwsBatchConfig lacks %v: %v", m, v)
		}
		if f := v.(map[string]any)["forge"]; f != nil {
			forged++
			if m := missing(f, forgeProps...); len(m) > 0 {
				t.Errorf("a generated Forge block lacks %v: %v", m, f)
			}
		}
		if m := missing(g.Value(forge, key, Response), forgeProps...); len(m) > 0 {
			t.Errorf("a generated ForgeConfig lacks %v", m)
		}
		c, _ := g.Value(ce, key, Response).(map[string]any)
		if conf, _ := c["config"].(map[string]any); conf != nil && conf["discriminator"] == "aws-batch" {
			inCE++
			if m := missing(conf, awsProps...); len(m) > 0 {
				t.Errorf("a generated compute environment's aws-batch config lacks %v: %v", m, conf)
			}
		}
		if len(missing(g.Value(cfg, key, Request), awsProps...)) > 0 {
			leftOut++
		}
	}
	if inCE == 0 || forged == 0 || leftOut == 0 {
		t.Errorf("of 40 generated: %d compute environments on AWS Batch, %d configs with a Forge block, %d requests leaving a usual field out; want some of each", inCE, forged, leftOut)
	}
}

// TestDataLinksNameTheirBucket generates data links from the published
// schema: a link whose provider and name are known refers to that bucket
// (s3://NAME for AWS), as the service's clients read resourceRef.
func TestDataLinksNameTheirBucket(t *testing.T) {
	d := loadSpecFile(t, sharedSpec(t, ""))
	g := New(WithSeed(5))
	link := componentSchema(t, d, "DataLinkDto")
	checked := 0
	for i := range 60 {
		m, _ := g.Value(link, fmt.Sprint("link ", i), Response).(map[string]any)
		name, _ := m["name"].(string)
		scheme := bucketSchemes[fmt.Sprint(m["provider"])]
		if m["resourceRef"] == nil || name == "" || scheme == "" {
			continue
		}
		checked++
		if want := scheme + "://" + name; m["resourceRef"] != want {
			t.Errorf("a %v link named %q refers to %v; want %s", m["provider"], name, m["resourceRef"], want)
		}
	}
	if checked == 0 {
		t.Error("no generated link had a provider, a name and a reference")
	}
}
