package mock_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/leniency"
	"github.com/wmsmock/wmsmock/profile"
)

// strictRequests is the default profile with requests.strict on.
func strictRequests(t testing.TB) mock.Option {
	t.Helper()
	p := profile.Default()
	p.Requests.Strict = true
	return mock.WithProfile(p)
}

// refusedFor checks a call was refused as a Bad Request for its body's
// deviations and returns them as "path kind", sorted, from the error
// journal (the entry a developer finds with the Error ID).
func refusedFor(t *testing.T, srv *mock.Server, a answer) []string {
	t.Helper()
	if a.status != 400 {
		t.Fatalf("status %d, want 400: %s", a.status, a.body)
	}
	e, ok := errorEntry(t, srv, errorID(t, a))
	if !ok {
		t.Fatal("the Error ID is not in the journal")
	}
	if !strings.Contains(e.Reason, "strict mode refuses") {
		t.Errorf("reason does not say why: %s", e.Reason)
	}
	return kinds(e.Deviations)
}

func kinds(ds []leniency.Deviation) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.Path+" "+string(d.Kind))
	}
	slices.Sort(out)
	return out
}

// lastRequest is the newest entry of the request journal, read as a
// client of the admin API would.
func lastRequest(t *testing.T, srv *mock.Server, query string) []control.RequestEntry {
	t.Helper()
	a := adminCall(t, srv.Handler(), "GET", "/_mock/admin/requests"+query, "", nil)
	var out struct {
		Requests []control.RequestEntry `json:"requests"`
	}
	if a.status != 200 || json.Unmarshal(a.body, &out) != nil {
		t.Fatalf("request journal: %d %s", a.status, a.body)
	}
	return out.Requests
}

// The service's Terraform provider (terraform-provider-seqera, its
// generated SDK) creates AWS credentials and an AWS Batch compute
// environment with Forge. Its credentials model sends every key it has no
// value for as null (its JSON is built by a jq program that copies
// access_key, secret_key, assume_role_arn, mode and external_id into
// "keys" whether set or not) and never sets the keys' discriminator; the
// provider type goes in credentials.provider. Its compute environment
// sends the platform beside a config without a discriminator, the
// workspace in the query and in the body, and forge's minCpus and maxCpus
// always. Accepted by default on both documents, and what was read is what
// a read shows; refused under strict mode with each deviation named.
func TestTerraformProviderBodies(t *testing.T) {
	const ws = "?workspaceId=2001"
	keysMode := `{"credentials":{"name":"tf-aws-keys","provider":"aws","keys":{"accessKey":"AKIAWMSMOCKEXAMPLE",` +
		`"secretKey":"wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY","assumeRoleArn":null,"mode":null,"externalId":null}}}`
	roleMode := `{"credentials":{"name":"tf-aws-role","provider":"aws","keys":{"accessKey":null,"secretKey":null,` +
		`"assumeRoleArn":"arn:aws:iam::123456789012:role/seqera","mode":"role","externalId":null}}}`
	computeEnv := func(credentialsID string) string {
		return `{"computeEnv":{"credentialsId":"` + credentialsID + `","workspaceId":2001,"name":"tf-aws-batch",` +
			`"platform":"aws-batch","config":{"region":"eu-west-1","workDir":"s3://wmsmock-bucket/work",` +
			`"forge":{"type":"SPOT","minCpus":0,"maxCpus":256,"allocStrategy":"BEST_FIT_PROGRESSIVE",` +
			`"disposeOnDeletion":true,"ebsAutoScale":true,"fargateHeadEnabled":false,"gpuEnabled":false},` +
			`"fusion2Enabled":true,"waveEnabled":true}}}`
	}
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := strictServer(t, doc)
			h := srv.Handler()
			var credID string
			for _, body := range []string{keysMode, roleMode} {
				a := ok(t, h, call(t, h, "POST", "/api/credentials"+ws, devToken, []byte(body)), 200, "credentials")
				credID, _ = object(t, a)["credentialsId"].(string)
			}
			desc := object(t, ok(t, h, call(t, h, "GET", "/api/credentials/"+credID+ws, devToken, nil), 200, "describe credentials"))
			if d := path(desc, "credentials", "keys", "discriminator"); d != "aws" {
				t.Errorf("the role credentials read back with keys of kind %v: %v", d, desc)
			}
			a := ok(t, h, call(t, h, "POST", "/api/compute-envs"+ws, devToken, []byte(computeEnv(credID))), 200, "compute environment")
			ceID, _ := object(t, a)["computeEnvId"].(string)
			ce := object(t, ok(t, h, call(t, h, "GET", "/api/compute-envs/"+ceID+ws, devToken, nil), 200, "describe compute environment"))
			if d := path(ce, "computeEnv", "config", "discriminator"); d != "aws-batch" {
				t.Errorf("the compute environment reads back with config of kind %v", d)
			}
			if got := kinds(lastRequest(t, srv, "?n=3")[1].Deviations); !slices.Contains(got, "/computeEnv/config/discriminator infer_discriminator") {
				t.Errorf("the compute environment's journal entry lists %q", got)
			}

			strict, _ := newServer(t, doc, strictRequests(t))
			sh := strict.Handler()
			want := []string{"/credentials/keys/assumeRoleArn nulls_as_absent", "/credentials/keys/discriminator infer_discriminator",
				"/credentials/keys/externalId nulls_as_absent", "/credentials/keys/mode nulls_as_absent"}
			if got := refusedFor(t, strict, call(t, sh, "POST", "/api/credentials"+ws, devToken, []byte(keysMode))); !slices.Equal(got, want) {
				t.Errorf("strict refusal of the keys body names %q, want %q", got, want)
			}
			want = []string{"/computeEnv/config/discriminator infer_discriminator"}
			if got := refusedFor(t, strict, call(t, sh, "POST", "/api/compute-envs"+ws, devToken, []byte(computeEnv("x")))); !slices.Equal(got, want) {
				t.Errorf("strict refusal of the compute environment names %q, want %q", got, want)
			}
			entry := lastRequest(t, strict, "?n=1")[0]
			if entry.Status != 400 || entry.ErrorID == "" || len(entry.Deviations) != 1 {
				t.Errorf("the request journal's entry for the refusal: %+v", entry)
			}
		})
	}
}

// A sample of the bodies the service's command line client (tower-cli) is
// seen sending in its own tests: credentials with the provider beside keys
// that carry no discriminator, and compute environments with the platform
// beside a config without one. Read from its test suite; values are
// ours. Each is accepted by default, and each is refused for the missing
// discriminator once the profile stops inferring it, which is what the
// fake did before.
func TestCommandLineClientBodies(t *testing.T) {
	bodies := []struct{ target, body string }{
		{"/api/credentials", `{"credentials":{"keys":{"assumeRoleArn":"arn_role"},"name":"cli-role","provider":"aws"}}`},
		{"/api/credentials", `{"credentials":{"keys":{"accessKey":"access_key","secretKey":"secret_key"},"name":"cli-keys","provider":"aws"}}`},
		{"/api/credentials", `{"credentials":{"keys":{"username":"octocat","password":"pat"},"name":"cli-github","provider":"github","baseUrl":"https://github.com"}}`},
		{"/api/credentials", `{"credentials":{"keys":{"privateKey":"-----BEGIN KEY-----","passphrase":"p"},"name":"cli-ssh","provider":"ssh"}}`},
		{"/api/credentials", `{"credentials":{"keys":{"data":"{\"type\":\"service_account\"}"},"name":"cli-google","provider":"google"}}`},
		{"/api/compute-envs", `{"computeEnv":{"name":"cli-forge","platform":"aws-batch","config":{"region":"eu-west-1","fusion2Enabled":true,` +
			`"waveEnabled":false,"workDir":"s3://bucket/work","forge":{"type":"SPOT","minCpus":0,"maxCpus":123,"gpuEnabled":false,` +
			`"ebsAutoScale":true,"disposeOnDeletion":true,"fargateHeadEnabled":false}},"credentialsId":"%s"}}`},
		{"/api/compute-envs", `{"computeEnv":{"name":"cli-slurm","platform":"slurm-platform","config":{"workDir":"/scratch/work",` +
			`"launchDir":"/scratch","userName":"me","hostName":"login.example.org","headQueue":"normal","computeQueue":"normal"},"credentialsId":"%s"}}`},
	}
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := strictServer(t, doc)
			h := srv.Handler()
			off := profile.Default()
			off.Requests.InferDiscriminator = false
			before, _ := newServer(t, doc, mock.WithProfile(off))
			credID := ""
			for _, b := range bodies {
				body := b.body
				if strings.Contains(body, "%s") {
					body = fmt.Sprintf(body, credID)
				}
				a := ok(t, h, call(t, h, "POST", b.target, devToken, []byte(body)), 200, body)
				if id, _ := object(t, a)["credentialsId"].(string); id != "" {
					credID = id
				}
				r := call(t, before.Handler(), "POST", b.target, devToken, []byte(body))
				if r.status != 400 || !strings.Contains(journalReason(t, before, r), "infer_discriminator") {
					t.Errorf("without inference %s: %d %s (%s)", body, r.status, r.body, journalReason(t, before, r))
				}
			}
		})
	}
}

// Bodies as Nextflow builds them for the trace endpoints (plugin
// nf-tower, TowerObserver, on the published schema, where the trace
// operations are): create with "workflowId": null and an extra "instant";
// begin whose workflow has no submit, nulls for what is not known yet, a
// number for nextflow.build and params of every kind; progress with tasks
// whose nativeId is a number and whose unknown fields are null; complete
// with the end. All accepted by default and journaled; all refused under
// strict mode, with each deviation named.
func TestNextflowTraceBodies(t *testing.T) {
	doc := published(t)
	workflow := `"id":"4Bi5xBK6E2Nbhj","runName":"mighty_turing","sessionId":"a8d4d6b2-8f43-4b3c-9a0b-6d6b2c5f8a11",` +
		`"commandLine":"nextflow run hello -with-tower","projectName":"nextflow-io/hello","repository":"https://github.com/nextflow-io/hello",` +
		`"userName":"me","workDir":"/home/me/work","launchDir":"/home/me","start":"2026-03-01T12:00:00.123Z",` +
		`"nextflow":{"version":"24.10.0","build":5928,"timestamp":"2024-10-27T19:15:11Z"},` +
		`"params":{"outdir":"results","greetings":["Bonjour","Ciao"],"max_cpus":4,"skip":false,"input":null},` +
		`"manifest":{"name":"nextflow-io/hello","mainScript":"main.nf","author":null},` +
		`"configFiles":["/home/me/.nextflow/config"],"container":null,"containerEngine":null,"profile":"standard",` +
		`"resume":false,"revision":"master","commitId":"2ce0b0e2943c2c5c2d7d1b7d1d5d9b0c1f0e6a51","scriptId":"8fd3ce9f5b9e0d7c6b5a4f3e2d1c0b9a",` +
		`"errorMessage":null,"errorReport":null,"exitStatus":null,"operationId":null,"logFile":null,"outFile":null,` +
		`"wave":{"enabled":false},"fusion":{"enabled":false,"version":null}`
	task := `{"taskId":1,"status":"COMPLETED","hash":"8a/2f6c1e","name":"sayHello (1)","process":"sayHello","tag":null,` +
		`"submit":"2026-03-01T12:00:01Z","start":"2026-03-01T12:00:02Z","complete":"2026-03-01T12:00:03Z",` +
		`"nativeId":81234,"exit":0,"cpus":1,"memory":null,"disk":null,"time":null,"env":null,"workdir":"/home/me/work/8a/2f6c1e"}`
	progress := `"progress":{"pending":0,"submitted":0,"running":0,"succeeded":1,"failed":0,"cached":0,` +
		`"processes":[{"index":0,"name":"sayHello","pending":0,"submitted":0,"running":0,"succeeded":1,"failed":0,"cached":0,"terminated":true,"errored":false}]}`
	calls := []struct {
		method, target, body string
		want                 []string // what strict mode names
	}{
		{"POST", "/api/trace/create", `{"sessionId":"a8d4d6b2-8f43-4b3c-9a0b-6d6b2c5f8a11","runName":"mighty_turing","projectName":"nextflow-io/hello",` +
			`"repository":"https://github.com/nextflow-io/hello","workflowId":null,"instant":1772366400000}`,
			[]string{"/workflowId nulls_as_absent"}},
		{"PUT", "/api/trace/4Bi5xBK6E2Nbhj/begin", `{"workflow":{` + workflow + `},"processNames":["sayHello"],"towerLaunch":false,"instant":1772366401000}`,
			[]string{"/workflow/container nulls_as_absent", "/workflow/containerEngine nulls_as_absent", "/workflow/errorMessage nulls_as_absent",
				"/workflow/errorReport nulls_as_absent", "/workflow/exitStatus nulls_as_absent", "/workflow/fusion/version nulls_as_absent",
				"/workflow/logFile nulls_as_absent", "/workflow/manifest/author nulls_as_absent", "/workflow/nextflow/build scalars_as_strings",
				"/workflow/operationId nulls_as_absent", "/workflow/outFile nulls_as_absent",
				"/workflow/params/greetings objects_as_any", "/workflow/params/input objects_as_any", "/workflow/params/max_cpus objects_as_any",
				"/workflow/params/outdir objects_as_any", "/workflow/params/skip objects_as_any", "/workflow/submit required_exceptions"}},
		{"PUT", "/api/trace/4Bi5xBK6E2Nbhj/progress", `{"tasks":[` + task + `],` + progress + `,"containers":[],"instant":1772366403000}`,
			[]string{"/tasks/0/disk nulls_as_absent", "/tasks/0/env nulls_as_absent", "/tasks/0/memory nulls_as_absent",
				"/tasks/0/nativeId scalars_as_strings", "/tasks/0/tag nulls_as_absent", "/tasks/0/time nulls_as_absent"}},
		{"PUT", "/api/trace/4Bi5xBK6E2Nbhj/heartbeat", `{` + progress + `,"instant":1772366404000}`, nil},
	}
	srv, _ := newServer(t, doc)
	strict, _ := newServer(t, doc, strictRequests(t))
	// The fake keeps reported runs, so strict mode needs one of its own to
	// be reported on: announced with a body it takes.
	created := call(t, strict.Handler(), "POST", "/api/trace/create", devToken,
		[]byte(`{"sessionId":"a8d4d6b2-8f43-4b3c-9a0b-6d6b2c5f8a11","runName":"mighty_turing","projectName":"nextflow-io/hello"}`))
	strictID, _ := object(t, ok(t, strict.Handler(), created, 200, "a conforming create in strict mode"))["workflowId"].(string)
	runID := ""
	for _, c := range calls {
		// The run the calls report on is the one create names.
		target := strings.Replace(c.target, "4Bi5xBK6E2Nbhj", runID, 1)
		strictTarget := strings.Replace(c.target, "4Bi5xBK6E2Nbhj", strictID, 1)
		a := call(t, srv.Handler(), c.method, target, devToken, []byte(c.body))
		if a.status != 200 {
			t.Errorf("%s %s: %d %s (%s)", c.method, c.target, a.status, a.body, journalReason(t, srv, a))
			continue
		}
		if runID == "" {
			runID, _ = object(t, a)["workflowId"].(string)
		}
		entry := lastRequest(t, srv, "?n=1")[0]
		if got := kinds(entry.Deviations); !slices.Equal(got, orNone(c.want)) {
			t.Errorf("%s %s: journaled %q, want %q", c.method, c.target, got, c.want)
		}
		r := call(t, strict.Handler(), c.method, strictTarget, devToken, []byte(c.body))
		if len(c.want) == 0 {
			if r.status != 200 {
				t.Errorf("strict %s %s: %d, want 200 (nothing deviates)", c.method, c.target, r.status)
			}
			continue
		}
		if got := refusedFor(t, strict, r); !slices.Equal(got, c.want) {
			t.Errorf("strict %s %s names %q, want %q", c.method, c.target, got, c.want)
		}
	}
	if got := lastRequest(t, srv, "?deviations=true"); len(got) != 3 {
		t.Errorf("?deviations=true lists %d calls, want the 3 that deviated", len(got))
	}
}

func orNone(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// On the embedded document, a launch with the same habits: nulls, numbers
// for strings and properties the schema does not list.
func TestNullsNumbersAndExtrasOnTheEmbeddedDocument(t *testing.T) {
	doc := embedded(t)
	body := `{"launch":{"pipeline":"https://github.com/nextflow-io/hello","computeEnvId":"4Gt7Ws2KpQ9vBn","revision":null,` +
		`"runName":20260301,"configProfiles":["test",2],"resume":false,"instant":1772366400000,"paramsText":null}}`
	srv, _ := strictServer(t, doc)
	a := ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/workflow/launch?workspaceId=2001", devToken, []byte(body)), 200, "launch")
	id, _ := object(t, a)["workflowId"].(string)
	run := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow/"+id+"?workspaceId=2001", devToken, nil), 200, "describe"))
	if name := path(run, "workflow", "runName"); name != "20260301" {
		t.Errorf("the run's name reads back as %v, want the number's text", name)
	}
	strict, _ := newServer(t, doc, strictRequests(t))
	want := []string{"/launch/configProfiles/1 scalars_as_strings", "/launch/paramsText nulls_as_absent",
		"/launch/revision nulls_as_absent", "/launch/runName scalars_as_strings"}
	if got := refusedFor(t, strict, call(t, strict.Handler(), "POST", "/api/workflow/launch?workspaceId=2001", devToken, []byte(body))); !slices.Equal(got, want) {
		t.Errorf("strict names %q, want %q", got, want)
	}
}

// The handler gets the body as the fake read it (the trace ingestion and
// every resource rely on it), and the debug log has a line for a call
// whose body deviated.
func TestHandlerGetsTheBodyAsRead(t *testing.T) {
	var got []byte
	capture := func(req *handler.Request) (*handler.Response, error) {
		got = req.Body
		return &handler.Response{Status: 200, Body: map[string]any{"credentialsId": "captured"}}, nil
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, _ := newServer(t, embedded(t), mock.WithHandler("CreateCredentials", capture), mock.WithLogger(logger))
	body := `{"credentials":{"name":"n","provider":"aws","keys":{"accessKey":1,"assumeRoleArn":null}}}`
	if a := call(t, srv.Handler(), "POST", "/api/credentials", devToken, []byte(body)); a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if want := `{"credentials":{"name":"n","provider":"aws","keys":{"discriminator":"aws","accessKey":"1"}}}`; string(got) != want {
		t.Errorf("the handler got\n%s\nwant\n%s", got, want)
	}
	line := logs.String()
	for _, want := range []string{"request body deviates from the document", "/credentials/keys/assumeRoleArn: nulls_as_absent",
		"/credentials/keys/accessKey: scalars_as_strings", "operation=CreateCredentials"} {
		if !strings.Contains(line, want) {
			t.Errorf("the debug log lacks %q:\n%s", want, line)
		}
	}
}

// Nextflow sends a token not in the service's format, such as the
// development token, as "Basic base64(@token:<token>)": the fake takes it
// as the token by default (profile auth.basic_token), and refuses it as a
// bad scheme when the profile says so. Other Basic credentials are always
// refused.
func TestBasicTokenAsNextflowSendsIt(t *testing.T) {
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	doc := embedded(t)
	on, _ := newServer(t, doc)
	p := profile.Default()
	p.Auth.BasicToken = false
	p.Auth.BadScheme = profile.Reply{Status: 401, Body: profile.BodyEmpty} // tells the refusal apart
	off, _ := newServer(t, doc, mock.WithProfile(p))
	for _, c := range []struct {
		header  string
		on, off int
	}{
		{basic("@token:" + devToken), 200, 401},
		{basic("@token:" + expiredToken), 403, 401},
		{basic("someone:" + devToken), 403, 401}, // bad_scheme: 403 by default
		{"Bearer " + devToken, 200, 200},
	} {
		for srv, want := range map[*mock.Server]int{on: c.on, off: c.off} {
			a := call(t, srv.Handler(), "GET", "/api/workflow", "", nil, "Authorization", c.header)
			if a.status != want {
				t.Errorf("%s (basic_token %t): %d, want %d", c.header, srv == on, a.status, want)
			}
		}
	}
}

// An access key minted by POST /tokens is in the service's format, with
// the token's id as its tid, and authenticates as Bearer; the
// development token keeps working.
func TestCreatedAccessKeyIsInTheServiceFormat(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	h := srv.Handler()
	created := object(t, ok(t, h, call(t, h, "POST", "/api/tokens", devToken, []byte(`{"name":"nextflow"}`)), 200, "create token"))
	key, _ := created["accessKey"].(string)
	plain, err := base64.StdEncoding.DecodeString(key)
	head, sig, found := strings.Cut(string(plain), ".")
	var tid struct {
		TID json.Number `json:"tid"`
	}
	if err != nil || !found || json.Unmarshal([]byte(head), &tid) != nil || len(sig) != 64 {
		t.Fatalf("accessKey %q is not base64 of {\"tid\":N}.<hex>", key)
	}
	if id := fmt.Sprint(path(created, "token", "id")); id != tid.TID.String() {
		t.Errorf("tid %s, want the token's id %s", tid.TID, id)
	}
	for _, tok := range []string{key, devToken} {
		ok(t, h, call(t, h, "GET", "/api/workflow", tok, nil), 200, "call with "+tok)
	}
}

// Seqera's Node-RED nodes send label ids as numeric strings ("labelIds":
// ["5","6"]); the service's JSON reader turns them into the numbers its
// schema wants. By default the fake answers such a launch as it answers
// the one with numbers, on both documents, and records the reading in the
// request journal; strict mode refuses it naming each string.
func TestNumericStringsAsNodeRedSendsThem(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			launch := func(ids string) []byte {
				return []byte(`{"launch":{"pipeline":"https://github.com/nextflow-io/hello","computeEnvId":"4Gt7Ws2KpQ9vBn","labelIds":` + ids + `}}`)
			}
			srv, _ := strictServer(t, doc)
			numbers := call(t, srv.Handler(), "POST", "/api/workflow/launch?workspaceId=2001", devToken, launch(`[5,6]`))
			texts := call(t, srv.Handler(), "POST", "/api/workflow/launch?workspaceId=2001", devToken, launch(`["5","6"]`))
			if texts.status != numbers.status || texts.status == 400 {
				t.Fatalf("labelIds as text answered %d %s; as numbers %d %s", texts.status, texts.body, numbers.status, numbers.body)
			}
			got := kinds(lastRequest(t, srv, "?n=1")[0].Deviations)
			if want := []string{"/launch/labelIds/0 strings_as_numbers", "/launch/labelIds/1 strings_as_numbers"}; !slices.Equal(got, want) {
				t.Errorf("journal: %q, want %q", got, want)
			}
			strict, _ := newServer(t, doc, strictRequests(t))
			want := []string{"/launch/labelIds/0 strings_as_numbers", "/launch/labelIds/1 strings_as_numbers"}
			if got := refusedFor(t, strict, call(t, strict.Handler(), "POST", "/api/workflow/launch?workspaceId=2001", devToken, launch(`["5","6"]`))); !slices.Equal(got, want) {
				t.Errorf("strict names %q, want %q", got, want)
			}
		})
	}
}

// TestLeniencyKindsAreProfileKeys: every kind of deviation the journal
// names is the key of the profile's requests section that turns it on or
// off, so a setting has one spelling wherever a user meets it.
func TestLeniencyKindsAreProfileKeys(t *testing.T) {
	keys := map[string]bool{}
	rt := reflect.TypeOf(profile.Requests{})
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("yaml"), ",")
		keys[name] = true
	}
	for _, k := range leniency.Kinds {
		if !keys[string(k)] {
			t.Errorf("deviation kind %q is no key of the profile's requests section %v", k, keys)
		}
	}
}
