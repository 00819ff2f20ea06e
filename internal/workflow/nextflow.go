package workflow

// The Nextflow release the fake plays: what its runs report (a run's
// nextflow member and nextflowVersion, the synthesized run log) and what
// the simulated Nextflow client of the tests (internal/nftrace) sends.
// One release, so an answer never names two.
const (
	NextflowVersion = "24.10.4"
	NextflowBuild   = 5934
)
