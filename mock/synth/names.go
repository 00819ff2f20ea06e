package synth

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/internal/workflow"
)

// heuristic says what a realistic value looks like for a property, judged
// by its name. Every field is optional. Heuristics only propose: a proposed
// string is used only if it passes the schema's own constraints, and the
// numeric ranges are intersected with minimum/maximum, so the schema
// always wins.
type heuristic struct {
	str      func(c *run) string
	ints     *[2]int64   // realistic integer range, inclusive
	nums     *[2]float64 // realistic number range
	trueProb float64     // chance of true for booleans; 0 means "no opinion"
	keys     []string
}

// rule matches a lower-cased property name exactly, by suffix, or by
// substring; id matches the camelCase "…Id"/"…Ids" convention instead,
// because a plain "id" suffix would also catch "valid" and "paid".
type rule struct {
	exact    []string
	suffix   []string
	contains []string
	id       bool
	h        heuristic
}

// rules is the one table of name heuristics; the first matching rule wins,
// so specific names come before general ones. It is never modified.
var rules = []rule{
	{exact: []string{"sessionid", "uuid", "guid", "requestid", "traceid"}, h: heuristic{str: uuid}},
	{exact: []string{"commitid", "commit", "sha", "commithash", "checksum", "hash", "etag", "digest", "revisionid"}, h: heuristic{str: func(c *run) string { return hexString(c, 40) }}},
	{exact: []string{"md5"}, h: heuristic{str: func(c *run) string { return hexString(c, 32) }}},
	{id: true, h: heuristic{str: func(c *run) string { return ID(c.r) }, ints: &[2]int64{1_000_000_000_000, 1 << 48}}},
	{contains: []string{"email"}, h: heuristic{str: email}},
	{exact: []string{"runname"}, h: heuristic{str: dockerName}},
	{exact: []string{"projectname", "pipelinename", "fullpipelinename"}, h: heuristic{str: func(c *run) string { return pick(c, pipelines) }}},
	{exact: []string{"pipeline", "repository", "repositoryurl", "repo", "pipelineurl", "projecturl"}, h: heuristic{str: repoURL}},
	{exact: []string{"fullname", "displayname", "realname", "ownername"}, h: heuristic{str: func(c *run) string { return personName(c, " ", true) }}},
	{exact: []string{"firstname", "givenname"}, h: heuristic{str: func(c *run) string { return capitalize(pick(c, firstNames)) }}},
	{exact: []string{"lastname", "familyname", "surname"}, h: heuristic{str: func(c *run) string { return capitalize(pick(c, lastNames)) }}},
	{exact: []string{"username", "user", "login", "owner", "createdby", "updatedby", "submittedby", "author", "creator", "handle"}, h: heuristic{str: func(c *run) string { return personName(c, "-", false) }}},
	{exact: []string{"orgname", "organizationname", "organization", "org", "workspacename", "workspace", "teamname", "team", "workspacefullname"}, h: heuristic{str: func(c *run) string { return pick(c, orgNames) }}},
	{exact: []string{"logo", "icon", "avatar", "avatarurl", "logourl", "iconurl", "picture", "photo"}, h: heuristic{str: func(c *run) string {
		return "https://avatars.githubusercontent.com/u/" + itoa(1000+c.r.Int64N(90_000_000))
	}}},
	{suffix: []string{"url", "uri", "link", "href", "homepage", "website", "endpoint"}, h: heuristic{str: repoURL}},
	{exact: []string{"description", "message", "errormessage", "reason", "comment", "summary", "note", "notes", "details", "error", "errorreport", "statusmessage", "hint", "explanation"}, h: heuristic{str: sentence}},
	{exact: []string{"title", "label"}, h: heuristic{str: func(c *run) string { return pick(c, titles) }}},
	{exact: []string{"revision", "branch", "ref", "defaultbranch"}, h: heuristic{str: func(c *run) string { return pick(c, revisions) }}},
	// Anything named a version (apiVersion, schemaVersion, nextflowVersion)
	// reads as a version number.
	{exact: []string{"nextflow"}, suffix: []string{"version"}, h: heuristic{str: func(c *run) string { return pick(c, versions) }}},
	{exact: []string{"workdir", "workdirectory", "bucket", "bucketname", "storage", "storagepath"}, h: heuristic{str: func(c *run) string { return pick(c, buckets) }}},
	{suffix: []string{"dir", "path", "directory", "folder"}, h: heuristic{str: func(c *run) string { return "/home/" + personName(c, "-", false) + "/" + pick(c, dirNames) }}},
	{exact: []string{"scriptname", "mainscript", "script", "entrypoint"}, h: heuristic{str: func(c *run) string { return "main.nf" }}},
	{exact: []string{"filename", "file", "name.file"}, h: heuristic{str: func(c *run) string { return pick(c, fileNames) }}},
	{exact: []string{"region", "location", "zone"}, h: heuristic{str: func(c *run) string { return pick(c, regions) }}},
	{exact: []string{"containerengine", "engine"}, h: heuristic{str: func(c *run) string { return pick(c, engines) }}},
	{exact: []string{"container", "image", "containerimage", "docker"}, h: heuristic{str: func(c *run) string { return pick(c, containers) }}},
	{exact: []string{"commandline", "command", "cmd", "cli"}, h: heuristic{str: func(c *run) string {
		return "nextflow run " + pick(c, pipelines) + " -profile " + pick(c, profiles) + " -r " + pick(c, revisions)
	}}},
	{exact: []string{"configtext", "nextflowconfig", "config", "configuration"}, h: heuristic{str: func(c *run) string { return pick(c, configs) }}},
	{exact: []string{"token", "accesstoken", "accesskey", "secretkey", "apikey", "secret", "password", "privatekey", "refreshtoken"}, h: heuristic{str: func(c *run) string { return IDN(c.r, 40) }}},
	{exact: []string{"hostname", "host", "node", "hostaddress"}, h: heuristic{str: hostname}},
	{exact: []string{"ip", "ipaddress", "address"}, h: heuristic{str: ipv4}},
	{exact: []string{"instancetype", "machinetype", "vmtype", "instancetypes"}, h: heuristic{str: func(c *run) string { return pick(c, instanceTypes) }}},
	{exact: []string{"profile", "profiles", "configprofiles"}, h: heuristic{str: func(c *run) string { return pick(c, profiles) }}},
	{exact: []string{"labels", "tags", "tag", "keywords", "topics"}, h: heuristic{str: func(c *run) string { return pick(c, labelWords) }, keys: []string{"team", "project", "env", "owner", "cost-center"}}},
	{exact: []string{"status", "state"}, h: heuristic{str: func(c *run) string { return pick(c, workflow.Statuses) }, ints: &[2]int64{0, 0}}},
	{exact: []string{"platform", "provider", "platformid"}, h: heuristic{str: func(c *run) string { return pick(c, platforms) }}},
	{exact: []string{"executor", "executors"}, h: heuristic{str: func(c *run) string { return pick(c, executors) }}},
	{exact: []string{"process", "processname", "taskname", "task"}, h: heuristic{str: func(c *run) string { return pick(c, processes) }}},
	{exact: []string{"queue", "computequeue", "headqueue", "queuename"}, h: heuristic{str: func(c *run) string { return pick(c, queues) }}},
	{exact: []string{"timezone", "tz"}, h: heuristic{str: func(c *run) string { return pick(c, timezones) }}},
	{exact: []string{"expression", "cron", "schedule", "cronexpression"}, h: heuristic{str: func(c *run) string { return pick(c, crons) }}},
	{exact: []string{"mimetype", "contenttype", "mediatype"}, h: heuristic{str: func(c *run) string { return pick(c, mimeTypes) }}},
	{exact: []string{"environment", "env", "variables", "envvars"}, h: heuristic{keys: []string{"NXF_VER", "AWS_REGION", "NXF_ANSI_LOG", "JAVA_OPTS"}}},
	{exact: []string{"params", "parameters", "paramstext"}, h: heuristic{keys: []string{"input", "outdir", "genome", "max_memory"}}},
	{suffix: []string{"name"}, h: heuristic{str: dockerName}},

	{exact: []string{"exitstatus", "exitcode", "returncode"}, h: heuristic{ints: &[2]int64{0, 0}}},
	{exact: []string{"attempt", "attempts", "retries", "retry", "maxretries"}, h: heuristic{ints: &[2]int64{1, 3}}},
	{exact: []string{"cpus", "cpu", "cores", "vcpus", "maxcpus", "numcpus"}, h: heuristic{ints: &[2]int64{1, 64}}},
	{exact: []string{"gpus", "gpu"}, h: heuristic{ints: &[2]int64{0, 4}}},
	{exact: []string{"memory", "mem", "maxmemory", "memorybytes", "peakrss", "rss", "vmem", "peakvmem"}, h: heuristic{ints: &[2]int64{1 << 30, 64 << 30}}},
	{exact: []string{"size", "totalsize", "pagesize", "max", "offset", "limit", "total"}, h: heuristic{ints: &[2]int64{0, 100}}},
	{exact: []string{"port"}, h: heuristic{ints: &[2]int64{1024, 65535}}},
	{exact: []string{"pid", "nativeid"}, h: heuristic{ints: &[2]int64{100, 99_999}}},
	{exact: []string{"timeout", "ttl", "interval"}, h: heuristic{ints: &[2]int64{60, 3600}}},
	{exact: []string{"cost", "price", "amount", "credits", "estimatedcost", "spend"}, h: heuristic{nums: &[2]float64{0, 250}, ints: &[2]int64{0, 250}}},
	{exact: []string{"priority", "order", "index", "position", "rank", "level"}, h: heuristic{ints: &[2]int64{0, 10}}},
	{exact: []string{"disksize", "bootdisksizegb", "disk", "ebsbootsize", "diskgb"}, h: heuristic{ints: &[2]int64{20, 500}}},
	{contains: []string{"duration", "elapsed", "realtime", "cputime", "walltime", "time"}, h: heuristic{ints: &[2]int64{1_000, 36_000_000}, nums: &[2]float64{1, 36_000}}},
	{contains: []string{"percent", "pct", "efficiency", "progress", "pcpu", "pmem", "ratio"}, h: heuristic{nums: &[2]float64{0, 100}, ints: &[2]int64{0, 100}}},
	{suffix: []string{"bytes", "filesize", "disksize", "readbytes", "writebytes"}, h: heuristic{ints: &[2]int64{1024, 5 << 30}}},
	{contains: []string{"count", "num", "succeeded", "failed", "running", "pending", "submitted", "cached", "ignored", "aborted", "retried", "tasks", "processes"}, h: heuristic{ints: &[2]int64{0, 250}, trueProb: 0.15}},

	{exact: []string{"deleted", "disabled", "archived", "locked", "suspended", "deprecated", "hidden", "private", "isdeleted", "blocked", "paused"}, h: heuristic{trueProb: 0.15}},
	{exact: []string{"enabled", "active", "verified", "visible", "valid", "available", "success", "isactive", "isenabled"}, h: heuristic{trueProb: 0.85}},
}

// lookupHeuristic finds the rule for a property name; nil when none fits.
// It runs once per property when a schema is compiled, not per value.
func lookupHeuristic(name string) *heuristic {
	if name == "" {
		return nil
	}
	lname := strings.ToLower(name)
	for i := range rules {
		r := &rules[i]
		if r.id && isIDName(name) {
			return &r.h
		}
		for _, e := range r.exact {
			if lname == e {
				return &r.h
			}
		}
		for _, s := range r.suffix {
			if strings.HasSuffix(lname, s) {
				return &r.h
			}
		}
		for _, s := range r.contains {
			if strings.Contains(lname, s) {
				return &r.h
			}
		}
	}
	return nil
}

// isIDName matches "id", "ID", "workflowId", "user_id", "memberIds".
func isIDName(name string) bool {
	n := strings.TrimSuffix(strings.TrimSuffix(name, "s"), "S")
	switch {
	case strings.EqualFold(n, "id"):
		return true
	case strings.HasSuffix(n, "Id"), strings.HasSuffix(n, "ID"), strings.HasSuffix(n, "_id"):
		return true
	}
	return false
}

var (
	adjectives = []string{"admiring", "agitated", "amazing", "angry", "awesome", "blissful", "bold", "brave", "clever", "compassionate", "cranky", "dreamy", "eager", "ecstatic", "elegant", "focused", "friendly", "gallant", "gifted", "happy", "hopeful", "jolly", "keen", "lucid", "modest", "nostalgic", "peaceful", "pensive", "quirky", "serene", "sharp", "silly", "stoic", "tender", "vibrant", "wizardly", "zealous"}
	scientists = []string{"agnesi", "babbage", "bohr", "curie", "darwin", "einstein", "euler", "faraday", "franklin", "galileo", "goodall", "hopper", "hypatia", "kepler", "lovelace", "mcclintock", "meitner", "mendel", "newton", "noether", "pasteur", "ptolemy", "ritchie", "sanger", "shannon", "tesla", "turing", "volta", "watson", "wozniak", "yonath"}
	firstNames = []string{"ada", "alan", "barbara", "carl", "dorothy", "emmy", "francis", "grace", "gregor", "katherine", "lise", "marie", "niels", "rosalind", "tim"}
	lastNames  = []string{"lovelace", "turing", "mcclintock", "sagan", "hodgkin", "noether", "crick", "hopper", "mendel", "johnson", "meitner", "curie", "bohr", "franklin", "berners-lee"}
	pipelines  = []string{"nf-core/rnaseq", "nf-core/sarek", "nf-core/chipseq", "nf-core/atacseq", "nf-core/methylseq", "nf-core/viralrecon", "nf-core/ampliseq", "nf-core/fetchngs", "nextflow-io/hello", "seqeralabs/nf-aggregate"}
	orgNames   = []string{"genomics-lab", "seqera", "bioinfo-core", "cancer-research", "proteomics", "sequencing-unit", "nf-core", "virology", "microbiome-team", "rnaseq-group"}
	titles     = []string{"RNA-seq analysis", "Variant calling", "Nightly benchmark", "ChIP-seq peaks", "Quality control", "Production run"}
	revisions  = []string{"main", "master", "dev", "3.14.0", "3.18.0", "v2.1.0"}
	versions   = []string{"24.04.4", "24.10.2", "23.10.1", "25.04.0", "22.10.7"}
	buckets    = []string{"s3://nf-tower-work/scratch", "s3://genomics-lab-data/work", "gs://nf-work-bucket/runs", "az://nextflow/work", "/scratch/nextflow/work"}
	dirNames   = []string{"work", "results", "projects/rnaseq", "nextflow", "data"}
	fileNames  = []string{"samplesheet.csv", "nextflow.config", "params.yaml", "report.html", "timeline.html", "multiqc_report.html"}
	regions    = []string{"eu-west-1", "us-east-1", "us-west-2", "eu-central-1", "ap-southeast-2", "europe-west2"}
	engines    = []string{"docker", "singularity", "podman", "apptainer"}
	containers = []string{"quay.io/biocontainers/fastqc:0.12.1--hdfd78af_0", "quay.io/biocontainers/salmon:1.10.1--h7e5ed60_0", "nfcore/rnaseq:3.14.0", "community.wave.seqera.io/library/multiqc:1.25--0b5d2c5d5d0a0d2b", "ubuntu:22.04"}
	configs    = []string{"process.executor = 'awsbatch'", "docker.enabled = true", "process {\n  cpus = 2\n  memory = '4 GB'\n}", "wave.enabled = true"}
	profiles   = []string{"docker", "test", "singularity", "test,docker", "awsbatch"}
	labelWords = []string{"production", "rnaseq", "benchmark", "nightly", "dev", "validated", "urgent"}
	platforms  = []string{"aws-batch", "google-batch", "azure-batch", "k8s-platform", "slurm-platform", "local-platform"}
	executors  = []string{"awsbatch", "google-batch", "azurebatch", "k8s", "slurm", "local"}
	processes  = []string{"NFCORE_RNASEQ:RNASEQ:FASTQC", "NFCORE_RNASEQ:RNASEQ:SALMON_QUANT", "NFCORE_SAREK:SAREK:BWAMEM1_MEM", "MULTIQC", "TRIMGALORE"}
	queues     = []string{"TowerForge-head", "TowerForge-work", "default", "gpu-queue", "spot-queue"}
	timezones  = []string{"UTC", "Europe/London", "Europe/Barcelona", "America/New_York", "Australia/Sydney"}
	crons      = []string{"0 3 * * *", "0 0 * * 1", "*/30 * * * *", "15 2 1 * *"}
	mimeTypes  = []string{"application/json", "text/csv", "text/plain", "application/gzip", "text/html"}
	sentences  = []string{
		"Quality control and quantification of bulk RNA-seq data.",
		"Nightly benchmark run on the reference dataset.",
		"Variant calling for the tumour-normal cohort.",
		"Workflow completed without errors.",
		"Process exited with a non-zero status.",
		"Compute environment created with the default settings.",
		"Shared with the whole workspace.",
		"Reprocessing of samples from the latest sequencing batch.",
	}
	instanceTypes = []string{"m5.xlarge", "c5.2xlarge", "r5.large", "n2-standard-8", "Standard_D4s_v3"}
	genericWords  = []string{"alpha", "delta", "sample", "default", "primary", "standard", "custom", "batch", "reference", "main"}
)

func pick(c *run, list []string) string { return list[c.r.IntN(len(list))] }

// dockerName gives the adjective_scientist names Nextflow gives runs.
func dockerName(c *run) string { return pick(c, adjectives) + "_" + pick(c, scientists) }

func personName(c *run, sep string, capital bool) string {
	f, l := pick(c, firstNames), pick(c, lastNames)
	if capital {
		return capitalize(f) + sep + capitalize(l)
	}
	return f + sep + l
}

// Person is a made-up person's first and last name, capitalized, from
// the names the generator uses everywhere: for a seeded account whose
// people must each have one name, one user name and one e-mail.
func Person(r *rand.Rand) (first, last string) {
	return capitalize(firstNames[r.IntN(len(firstNames))]), capitalize(lastNames[r.IntN(len(lastNames))])
}

func email(c *run) string {
	return pick(c, firstNames) + "." + pick(c, lastNames) + "@example.com"
}

func repoURL(c *run) string { return "https://github.com/" + pick(c, pipelines) }

func sentence(c *run) string { return pick(c, sentences) }

func hostname(c *run) string {
	return "ip-10-0-" + itoa(c.r.Int64N(256)) + "-" + itoa(c.r.Int64N(256)) + ".ec2.internal"
}

func ipv4(c *run) string {
	return "10." + itoa(c.r.Int64N(256)) + "." + itoa(c.r.Int64N(256)) + "." + itoa(1+c.r.Int64N(254))
}

// uuid gives a random (version 4) UUID from the run's generator.
func uuid(c *run) string {
	var b [36]byte
	for i := range b {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
		case 14:
			b[i] = '4'
		case 19:
			b[i] = hexDigits[8+c.r.IntN(4)]
		default:
			b[i] = hexDigits[c.r.IntN(16)]
		}
	}
	return string(b[:])
}

func hexString(c *run, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[c.r.IntN(16)]
	}
	return string(b)
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
