package providers

import (
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// Every provider a scenario can name is in the table, and the table's
// capabilities are what each type implements.
func TestTableCoversScenarioProviders(t *testing.T) {
	for _, name := range scenario.Providers {
		if _, err := Find(name); err != nil {
			t.Errorf("scenario provider %q: %v", name, err)
		}
	}
	for _, tc := range []struct{ provider, can string }{
		{"process", "kill,restart,pause,upgrade"},
		{"netns", "kill,restart,pause,disconnect,partition,latency,upgrade"},
		{"kubernetes", "kill,restart,pause,disconnect,partition,latency"},
		{"external", ""},
	} {
		e, err := Find(tc.provider)
		if err != nil {
			t.Fatal(err)
		}
		var can []string
		for _, f := range testnet.Faults {
			if testnet.Can(e.Zero, f) {
				can = append(can, string(f))
			}
		}
		if got := strings.Join(can, ","); got != tc.can {
			t.Errorf("%s can %q; want %q", tc.provider, got, tc.can)
		}
	}
}

// Check refuses a fault the provider cannot do, at its file:line, naming
// the provider that can; it passes what the provider can do.
func TestCheckRefusesFaultsTheProviderCannotDo(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string // want "": passes
	}{
		// A network fault on loopback processes: refused, netns named.
		{"partition on process", `[testnet]
provider = "process"
[[perturbation]]
kind = "partition"
groups = [["validator0", "validator1"], ["validator2", "validator3"]]
at = "5s"
duration = "5s"
`, `f.toml:4: perturbation[0].kind: partition needs provider "netns" or "kubernetes": the "process" provider cannot partition nodes (set [testnet] provider = "netns")`},
		{"disconnect on process", `[[perturbation]]
kind = "disconnect"
nodes = ["full0"]
at = "5s"
duration = "5s"
`, `f.toml:2: perturbation[0].kind: disconnect needs provider "netns"`},
		// The second of two is the one refused, at its own line.
		{"kill passes, disconnect refused", `[[perturbation]]
kind = "kill"
nodes = ["validator3"]
at = "5s"
duration = "5s"
[[perturbation]]
kind = "disconnect"
nodes = ["full0"]
at = "5s"
duration = "5s"
`, `f.toml:7: perturbation[1].kind: disconnect needs provider "netns"`},
		// Someone else's nodes are not chainperf's to stop and start.
		{"restart on external", `[testnet]
provider = "external"
target_is_mine = true
[[testnet.node]]
role = "full"
rpc = "http://127.0.0.1:26657"
[[perturbation]]
kind = "restart"
nodes = ["full0"]
at = "5s"
duration = "5s"
`, `f.toml:8: perturbation[0].kind: restart needs provider "process" or "netns" or "kubernetes": the "external" provider cannot restart nodes`},
		// Pods' emulated delays scale (each pod's agent).
		{"latency on kubernetes", `[testnet]
provider = "kubernetes"
uniform_delay = "5ms"
[[perturbation]]
kind = "latency"
scale = 2.0
at = "5s"
duration = "5s"
`, ""},
		// What kubernetes can do passes (no cluster needed to check).
		{"every fault but latency on kubernetes", `[testnet]
provider = "kubernetes"
[[perturbation]]
kind = "kill"
nodes = ["validator3"]
at = "5s"
duration = "5s"
[[perturbation]]
kind = "pause"
nodes = ["full0"]
at = "5s"
duration = "5s"
[[perturbation]]
kind = "disconnect"
nodes = ["full0"]
at = "12s"
duration = "5s"
[[perturbation]]
kind = "partition"
groups = [["validator0", "validator1"], ["validator2", "validator3"]]
at = "20s"
duration = "5s"
`, ""},
		// What process can do passes.
		{"kill and pause on process", `[[perturbation]]
kind = "kill"
nodes = ["validator3"]
at = "5s"
duration = "5s"
[[perturbation]]
kind = "pause"
nodes = ["full0"]
at = "5s"
duration = "5s"
`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scenario.Parse("f.toml", []byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			err = Check(s)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Check = %v; want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Check = %v; want %q", err, tc.want)
			}
		})
	}
}
