// Package scenariotest holds the bad scenarios chainperf must refuse,
// each with what its error must say: the scenario package's parser test
// and the command's bad-input test (exit code, message, nothing left
// behind) both run them.
package scenariotest

import "strings"

// A Bad is a scenario file (as f.toml) and a part of its error.
type Bad struct {
	Name, Doc, Want string
}

// Bads are the bad scenarios.
var Bads = []Bad{
	// An unknown key names its line and the closest valid key.
	{"unknown key", "[testnet]\nvalidators = 2\nfull_node = 1\n", `f.toml:3: unknown key "testnet.full_node" (did you mean "testnet.full_nodes"?)`},
	// Zero validators is a testnet that cannot make blocks.
	{"zero validators", "[testnet]\n\nvalidators = 0\n", "f.toml:3: testnet.validators: 0: a testnet needs at least 1 validator"},
	{"negative full nodes", "[testnet]\nfull_nodes = -2\n", "f.toml:2: testnet.full_nodes: -2: cannot be negative"},
	// A wrong type names the key and line.
	{"wrong type", "[testnet]\nvalidators = \"four\"\n", "f.toml:2: "},
	{"bad duration", "[load]\nduration = \"ten seconds\"\n", "f.toml:2"},
	// CometBFT config keys are checked against CometBFT's Config.
	{"unknown config key", "[testnet.config]\n\"consensus.timeout_comit\" = \"1s\"\n", `f.toml:2: testnet.config.consensus.timeout_comit: unknown CometBFT config key "consensus.timeout_comit" (did you mean "consensus.timeout_commit"?)`},
	{"config wrong type", "[testnet.config]\n\"mempool.size\" = \"big\"\n", "f.toml:2: testnet.config.mempool.size: mempool.size: want an integer"},
	{"owned config key", "[testnet.config]\n\"rpc.laddr\" = \"tcp://0.0.0.0:1\"\n", "set by chainperf"},
	{"cometbft rejects", "[testnet.config]\n\"mempool.size\" = -5\n", "CometBFT rejects"},
	{"missing binary", "[testnet]\nbinary = \"/nonexistent/cometbft\"\n", "f.toml:2: testnet.binary: node binary /nonexistent/cometbft not found"},
	{"misspelled model", "[load]\nmodel = \"constnt\"\n", `f.toml:2: load.model: "constnt" is not one of constant, connections, steps, ramp, max, users, pid (did you mean "constant"?)`},
	{"zero rate", "[load]\nrate = 0\n", "f.toml:2: load.rate: 0: must be positive"},
	{"negative step", "[load]\nmodel = \"steps\"\nsteps = [{rate = 10, duration = \"5s\"},\n  {rate = 10, duration = \"-5s\"}]\n", "f.toml:4: load.steps[1].duration"},
	{"zipf exponent", "[workload]\naccounts = 10\nselection = \"zipf\"\nzipf_exponent = 0\n", "f.toml:4: workload.zipf_exponent: 0: must be positive"},
	{"pid below timeout_commit", "[load]\nmodel = \"pid\"\n[load.pid]\nhold = \"block_interval\"\ntarget = \"800ms\"\n", "f.toml:5: load.pid.target: 800ms cannot be met: blocks come at least timeout_commit = 1s"},
	{"find-max below a set timeout_commit", "[testnet.config]\n\"consensus.timeout_commit\" = \"2s\"\n[experiment]\nkind = \"find-max\"\n[load.pid]\nhold = \"block_interval\"\ntarget = \"1500ms\"\n",
		"f.toml:7: load.pid.target: 1.5s cannot be met: blocks come at least timeout_commit = 2s (testnet.config) even with no load"},
	{"find-max latency below timeout_commit", "[experiment]\nkind = [\"find-max\"]\n[load.pid]\ntarget = \"900ms\"\n", "the slowest tx of a block waits at least timeout_commit = 1s"},
	{"hold misspelled", "[load.pid]\nhold = \"latncy\"\n[experiment]\nkind = \"find-max\"\n", `did you mean "latency"?`},
	{"find-max too short", "[experiment]\nkind = \"find-max\"\nfind_max_duration = \"20s\"\nfind_max_settle = \"20s\"\n", "leave nothing of find_max_duration 20s to measure"},
	{"kind in a list misspelled", "[experiment]\nkind = [\"steady\", \"findmax\"]\n", `did you mean "find-max"?`},
	{"kind twice", "[experiment]\nkind = [\"steady\", \"steady\"]\n", "named twice"},
	{"kind empty", "[experiment]\nkind = []\n", "f.toml:2: experiment.kind: name at least one of"},
	{"kind a number", "[experiment]\nkind = 3\n", "f.toml:2: experiment.kind: a name"},
	{"sweep with no cells", "[experiment]\nkind = \"sweep\"\nrates = []\n", "a sweep with no cells"},
	{"unknown zone", "[testnet]\nprovider = \"netns\"\nzones = [\"tokyo\", \"mars\"]\n", `f.toml:3: testnet.zones[1]: "mars" is not one of n-virginia`},
	{"zones on processes", "[testnet]\nzones = [\"tokyo\"]\n", `testnet.provider: zones and delays need nodes as emulated hosts`},
	{"node zone of no node", "[testnet]\nprovider = \"netns\"\n[testnet.node_zones]\nvalidator9 = \"tokyo\"\n", `"validator9" is not one of validator0`},
	{"missing table", "[testnet]\nprovider = \"netns\"\nzones = [\"a\"]\nlatency_table = \"/nonexistent/t.csv\"\n", "f.toml:4: testnet.latency_table: latency table: open /nonexistent/t.csv"},
	{"loss", "[testnet]\nloss = 120.0\n", "f.toml:2: testnet.loss: 120: a percentage"},
	{"backend", "[testnet]\nnetem_backend = \"nfqeue\"\n", `did you mean "nfqueue"?`},
	{"partition overlap", "[testnet]\nprovider = \"netns\"\n[[perturbation]]\nkind = \"partition\"\ngroups = [[\"validator0\", \"validator1\"], [\"validator1\", \"validator2\"]]\nat = \"5s\"\nduration = \"5s\"\n", `"validator1" is in groups 0 and 1: groups cannot overlap`},
	{"partition one group", "[testnet]\nprovider = \"netns\"\n[[perturbation]]\nkind = \"partition\"\ngroups = [[\"validator0\"]]\nat = \"5s\"\nduration = \"5s\"\n", "a partition needs at least two groups"},
	{"perturbation past a sweep cell", "[experiment]\nkind = \"sweep\"\ncell_duration = \"10s\"\n[[perturbation]]\nkind = \"kill\"\nnodes = [\"validator3\"]\nat = \"12s\"\n", "ends after the 10s sweep phase"},
	{"no rotations", "[experiment]\nkind = \"rotate\"\nrotations = 0\n", "f.toml:3: experiment.rotations: 0: must be from 1 to 100"},
	{"users without think time", "[load]\nmodel = \"users\"\nthink_time = \"0s\"\n", "f.toml:3: load.think_time"},
	{"misspelled experiment", "[experiment]\nkind = \"stedy\"\n", `did you mean "steady"?`},
	{"bad toml", "[testnet\n", "f.toml:1"},
	{"profile of no such node", "[observe]\nprofiles = [\n  {node = \"validator9\", kind = \"heap\", at = \"5s\"}]\n", `f.toml:3: observe.profiles[0].node: "validator9" is not one of validator0, validator1, validator2, validator3, full0`},
	{"cpu profile without seconds", "[observe]\nprofiles = [{node = \"full0\", kind = \"cpu\", at = \"5s\"}]\n", "observe.profiles[0].seconds: 0: a cpu profile lasts 1 to 300 seconds"},
	{"profile kind", "[observe]\nprofiles = [{node = \"full0\", kind = \"alloc\", at = \"5s\"}]\n", `did you mean "allocs"?`},
	{"profile after the load", "[observe]\nprofiles = [{node = \"full0\", kind = \"heap\", at = \"1h\"}]\n", "past the end of the 30s steady phase"},
	{"perturb no such node", "[[perturbation]]\nkind = \"kill\"\nnodes = [\"validator7\"]\nat = \"5s\"\n", `f.toml:3: perturbation[0].nodes: "validator7" is not one of`},
	{"perturb after the run", "[[perturbation]]\nkind = \"pause\"\nnodes = [\"full0\"]\nat = \"25s\"\nduration = \"10s\"\n", "ends after the 30s steady phase"},
	{"pause without duration", "[[perturbation]]\nkind = \"pause\"\nnodes = [\"full0\"]\nat = \"5s\"\n", "give a positive duration"},
	{"cosmos workload on kvstore", "[workload]\nkind = \"cosmos-send\"\n", `f.toml:2: workload.kind: "cosmos-send" needs a Cosmos SDK chain: set testnet.chain = "cosmos"`},
	{"kvstore workload on cosmos", "[testnet]\nchain = \"cosmos\"\n", `workload.kind: "kvstore" sends kvstore txs, which a Cosmos SDK chain rejects`},
	{"chain misspelled", "[testnet]\nchain = \"cosmoss\"\n", `f.toml:2: testnet.chain: "cosmoss" is not one of kvstore, cosmos (did you mean "cosmos"?)`},
	{"one wallet", "[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\nwallets = 1\n[workload]\nkind = \"cosmos-send\"\n", "f.toml:4: testnet.cosmos.wallets: 1: must be from 2"},
	{"bad denom", "[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\ndenom = \"1x\"\n[workload]\nkind = \"cosmos-send\"\n", "f.toml:4: testnet.cosmos.denom"},
	{"missing sdk binary", "[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\nbinary = \"/nonexistent/gaiad\"\n[workload]\nkind = \"cosmos-send\"\n", "f.toml:4: testnet.cosmos.binary: node binary /nonexistent/gaiad not found"},
	{"cosmos mode", "[testnet]\nchain = \"cosmos\"\n[workload]\nkind = \"cosmos-send\"\nmode = \"pregen\"\n", `f.toml:5: workload.mode: "pregen" is not one of pregenerate, live`},
	{"cosmos batch", "[testnet]\nchain = \"cosmos\"\n[workload]\nkind = \"cosmos-send\"\n[load]\nbatch = 10\n", "f.toml:6: load.batch: 10: Cosmos workloads send one tx per request"},
	{"cosmos accounts past wallets", "[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\nwallets = 10\n[workload]\nkind = \"cosmos-multisend\"\naccounts = 20\n", "f.toml:7: workload.accounts: 20"},
	{"multisend outputs", "[testnet]\nchain = \"cosmos\"\n[workload]\nkind = \"cosmos-multisend\"\noutputs = 0\n", "f.toml:5: workload.outputs: 0: must be from 1 to 1000"},
	{"negative gas", "[testnet]\nchain = \"cosmos\"\n[workload]\nkind = \"cosmos-send\"\ngas_limit = -5\n", "f.toml:5: workload.gas_limit"},
	{"tiny observe interval", "[observe]\ninterval = \"1ms\"\n", "f.toml:2: observe.interval: 1ms: must be from 100ms to 1m"},
	// Non-finite and huge numbers: NaN fails every comparison, so a
	// per-key "rate <= 0" let it through and a phase never ended.
	{"rate nan", "[load]\nrate = nan\n", "f.toml:2: load.rate: NaN: not a finite number"},
	{"rate inf", "[load]\nrate = inf\n", "f.toml:2: load.rate: +Inf: not a finite number"},
	{"rate 1e12", "[load]\nrate = 1e12\n", "f.toml:2: load.rate: 1e+12 tx/s: at most 1e+07"},
	{"criterion nan", "[criteria]\nmin_committed_tps = nan\n", "f.toml:2: criteria.min_committed_tps: NaN: not a finite number"},
	{"unresolved share nan", "[criteria]\nmax_unresolved_share = nan\n", "criteria.max_unresolved_share: NaN"},
	{"sweep rate inf", "[experiment]\nkind = \"sweep\"\nrates = [100, inf]\n", "experiment.rates[1]: +Inf: not a finite number"},
	{"bare minus", "[load]\nrate = -\n", "f.toml:2: cannot read this value"},
	{"bare plus in a step", "[load]\nmodel = \"steps\"\nsteps = [{rate = +, duration = \"1s\"}]\n", "f.toml:3: cannot read this value"},
	{"zipf nan", "[workload]\nzipf_shift = nan\n", "workload.zipf_shift: NaN: not a finite number"},
	{"validators max int", "[testnet]\nvalidators = 9223372036854775807\nfull_nodes = 1\n", "f.toml:2: testnet.validators: 9223372036854775807: at most 200 nodes"},
	{"steps overflow", "[load]\nmodel = \"steps\"\nsteps = [{rate = 1, duration = \"2000000h\"}, {rate = 1, duration = \"2000000h\"}]\n", "at most 168h0m0s"},
	{"week-long duration", "[load]\nduration = \"200h\"\n", "f.toml:2: load.duration: 200h0m0s: at most 168h0m0s"},
	{"negative drain", "[experiment]\ndrain_timeout = \"-5s\"\n", "experiment.drain_timeout: -5s: cannot be negative"},
	{"repeats 1e9", "[experiment]\nrepeats = 1000000000\n", "f.toml:2: experiment.repeats: 1000000000: at most 1000"},
	{"connections 1e9", "[load]\nmodel = \"connections\"\nconnections = 1000000000\n", "load.connections: 1000000000: at most 10000"},
	{"request of 13 GB", "[load]\nbatch = 10000\n[workload]\ntx_size = 1300000\n", "load.batch: batch 10000 x tx_size 1300000"},
	// Node configs stay inside the harness: paths under the home,
	// listeners on loopback.
	{"db_dir outside", "[testnet.config]\ndb_dir = \"/etc\"\n", "f.toml:2: testnet.config.db_dir: db_dir = \"/etc\": a path outside the node's home"},
	{"wal file escapes", "[testnet.config]\n\"consensus.wal_file\" = \"../../x\"\n", "consensus.wal_file = \"../../x\": a path outside"},
	{"addr book outside", "[testnet.config]\n\"p2p.addr_book_file\" = \"/tmp/book.json\"\n", "p2p.addr_book_file"},
	{"grpc on every interface", "[testnet.config]\n\"rpc.grpc_laddr\" = \"tcp://0.0.0.0:9090\"\n", "rpc.grpc_laddr = \"tcp://0.0.0.0:9090\": a listener must bind a loopback address"},
	// Decoder errors in the scenario's words, with their line.
	{"type words", "[testnet]\nvalidators = \"four\"\n", "f.toml:2: testnet.validators must be an integer, got string"},
	{"rate a string", "[load]\nrate = \"fast\"\n", "f.toml:2: load.rate must be a number, got string"},
	{"key twice", "[testnet]\nvalidators = 2\nvalidators = 3\n", "f.toml:3: validators is defined twice"},
	{"table twice", "[testnet]\nvalidators = 2\n[testnet]\n", "f.toml:3: testnet is defined twice"},
	{"long key", "[testnet]\n" + strings.Repeat("x", 300) + " = 1\n", `f.toml:2: unknown key "testnet.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."`},
	{"empty fault kind", "[[perturbation]]\nkind = \"\"\nnodes = [\"validator0\"]\nat = \"5s\"\n", "perturbation[0].kind: is empty: name one of kill"},
	{"max pending", "[load]\nmax_pending = 5\n", "f.toml:2: load.max_pending: 5: must be from 1000"},
}
