package scenario

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultParses(t *testing.T) {
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	if s.Testnet.Validators != 4 || s.Testnet.FullNodes != 1 {
		t.Errorf("default testnet = %d validators, %d full nodes; want 4, 1", s.Testnet.Validators, s.Testnet.FullNodes)
	}
	if len(s.Testnet.Args) != 5 {
		t.Errorf("default args = %q", s.Testnet.Args)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.toml", []byte(tc.doc))
			if err == nil {
				t.Fatalf("Parse(%q) = nil error; want %q", tc.doc, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%q) error = %q; want it to contain %q", tc.doc, err, tc.want)
			}
		})
	}
}

func TestConfigOverridesFlatten(t *testing.T) {
	s, err := Parse("f.toml", []byte("[testnet.config]\n\"mempool.size\" = 100\n[testnet.config.consensus]\ntimeout_commit = \"500ms\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Testnet.Config["consensus.timeout_commit"] != "500ms" || s.Testnet.Config["mempool.size"] != int64(100) {
		t.Errorf("config = %v", s.Testnet.Config)
	}
}

func TestArgsReplaceDefaults(t *testing.T) {
	s, err := Parse("f.toml", []byte("[testnet]\nargs = [\"start\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Testnet.Args) != 1 {
		t.Errorf("args = %q; want [start]", s.Testnet.Args)
	}
}

func TestObserveListsReplaceDefaults(t *testing.T) {
	s, err := Parse("f.toml", []byte("[observe]\nmetrics = [\"cometbft_p2p_peers\"]\nprofiles = [{node = \"validator0\", kind = \"allocs\", at = \"10s\"}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Observe.Metrics) != 1 || s.Observe.Metrics[0] != "cometbft_p2p_peers" || len(s.Observe.Profiles) != 1 || s.Observe.Profiles[0].At.D() != 10e9 {
		t.Errorf("observe = %+v", s.Observe)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Default)
	f.Add([]byte("[testnet]\nvalidators = 2\n[testnet.config]\n\"p2p.send_rate\" = 1\n"))
	f.Add([]byte("[load]\nmodel = \"steps\"\nsteps = [{rate = 1, duration = \"1s\"}]\n"))
	// Bad numbers, nesting, strings that look nested, a BOM.
	f.Add([]byte("[testnet]\nvalidators = 2\n[load]\nrate = nan\n"))
	f.Add([]byte("[testnet]\nargs = [[[[[[]]]]]]\n"))
	f.Add([]byte("name = '''\n[[[\n'''\n[load]\nrate = 1e12\n"))
	f.Add([]byte("\xef\xbb\xbf[experiment]\nkind = [\"steady\", \"find-max\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.toml", data)
		if err != nil {
			return
		}
		if s.Testnet.Validators < 1 || math.IsNaN(s.Load.Rate) || s.Load.Rate > MaxRate {
			t.Fatalf("accepted %d validators, rate %g", s.Testnet.Validators, s.Load.Rate)
		}
		if err := s.Check(); err != nil {
			t.Errorf("accepted, then refused on a second check: %v", err)
		}
	})
}

// A latency table of one's own: a CSV beside the scenario, checked when
// the scenario is; a table that is not square names its line.
func TestLatencyTableCSV(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte("From/to,a,b\na,0,5\nb,5\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.toml"), []byte("[testnet]\nprovider = \"netns\"\nzones = [\"a\", \"b\"]\nlatency_table = \"t.csv\"\n"), 0o644)
	_, err := Open(filepath.Join(dir, "s.toml"))
	if err == nil || !strings.Contains(err.Error(), "t.csv:3: 1 delays for 2 zones: the table must be square") {
		t.Errorf("err = %v", err)
	}
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte("From/to,a,b\na,0,5\nb,5,0\n"), 0o644)
	s, err := Open(filepath.Join(dir, "s.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if z := s.Testnet.ZoneOf(); z["validator0"] != "a" || z["validator1"] != "b" || z["validator2"] != "a" || z["full0"] != "a" {
		t.Errorf("zones round-robin: %v", z)
	}
}

// Credentials in URLs are stripped wherever they appear.
func TestRedact(t *testing.T) {
	in := `rpc = "http://user:pa@ss@10.0.0.1:26657" and HTTPS://a:b@h/x, http://plain:1/`
	want := `rpc = "http://10.0.0.1:26657" and HTTPS://h/x, http://plain:1/`
	if got := Redact(in); got != want {
		t.Errorf("Redact = %q; want %q", got, want)
	}
}

// An external network lists its nodes and takes nothing that would need
// chainperf to make or change them.
func TestExternalScenario(t *testing.T) {
	node := "[[testnet.node]]\nrole = \"full\"\nrpc = \"http://127.0.0.1:26657\"\n"
	for _, tc := range []struct{ name, text, want string }{
		{"ok", "[testnet]\nprovider = \"external\"\n" + node, ""},
		{"no nodes", "[testnet]\nprovider = \"external\"\n", "needs the network's nodes"},
		{"bad url", "[testnet]\nprovider = \"external\"\n[[testnet.node]]\nrole = \"full\"\nrpc = \"ftp://x\"\n", "give an http:// or https:// URL"},
		{"bad role", "[testnet]\nprovider = \"external\"\n[[testnet.node]]\nrole = \"seed\"\nrpc = \"http://127.0.0.1:1\"\n", "testnet.node[0].role"},
		{"config", "[testnet]\nprovider = \"external\"\n[testnet.config]\n\"mempool.size\" = 10\n" + node, "config overrides cannot be applied"},
		{"cosmos", "[testnet]\nprovider = \"external\"\nchain = \"cosmos\"\n[workload]\nkind = \"cosmos-send\"\n" + node, "funded from an account you give"},
		{"rotate", "[testnet]\nprovider = \"external\"\n[experiment]\nkind = \"rotate\"\n" + node, "rotate starts fresh nodes"},
		{"nodes without external", node, "set [testnet] provider = \"external\""},
	} {
		s, err := Parse("e.toml", []byte(tc.text))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		case tc.want == "" && s.Testnet.NodeNames()[0] != "full0":
			t.Errorf("%s: names %v", tc.name, s.Testnet.NodeNames())
		}
	}
}

// The shape of a file is checked before the decoder sees it: nesting past
// MaxDepth (memory grew with its square) and size past MaxFileBytes are
// errors; brackets in strings and comments do not count; a UTF-8 BOM is
// accepted.
func TestFileShape(t *testing.T) {
	deep := "[testnet]\nargs = " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n"
	if _, err := Parse("f.toml", []byte(deep)); err == nil || !strings.Contains(err.Error(), "f.toml:2: nested more than 16") {
		t.Errorf("40 deep: %v", err)
	}
	quoted := "name = \"" + strings.Repeat("[", 40) + "\" # " + strings.Repeat("{", 40) + "\n[testnet]\nargs = ['''\n" + strings.Repeat("[", 40) + "''']\n"
	if _, err := Parse("f.toml", []byte(quoted)); err != nil && strings.Contains(err.Error(), "nested") {
		t.Errorf("brackets in strings and comments counted: %v", err)
	}
	big := "name = \"x\"\n" + strings.Repeat("# padding\n", MaxFileBytes/10+1)
	if _, err := Parse("f.toml", []byte(big)); err == nil || !strings.Contains(err.Error(), "a scenario is at most") {
		t.Errorf("a 1 MiB+ file: %v", err)
	}
	if s, err := Parse("f.toml", []byte("\xef\xbb\xbfname = \"bom\"\n")); err != nil || s.Name != "bom" {
		t.Errorf("a BOM: %v", err)
	}
	if _, err := Open("/dev/zero"); err == nil || !strings.Contains(err.Error(), "is a device") {
		t.Errorf("/dev/zero: %v", err)
	}
}
