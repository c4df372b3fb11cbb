// Package providers is the table of testnet providers a scenario can name:
// adding a provider is one entry here and a package beside process and
// netns that implements testnet.Provider (and the fault capabilities it
// can do).
package providers

import (
	"errors"
	"fmt"
	"strings"

	"github.com/chainperf/chainperf/internal/latency"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/external"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
	"github.com/chainperf/chainperf/internal/testnet/netns"
	"github.com/chainperf/chainperf/internal/testnet/process"
)

// An Entry is one provider: its name in scenarios, a zero value of its
// type (what it can do is read from it by type assertion, nothing is
// called) and how to make one for a testnet.
type Entry struct {
	Name string
	Zero testnet.Provider
	// New places t's nodes (host addresses) and returns the provider;
	// it makes nothing yet (Open does). table is the emulated WAN's zone
	// table (nil: built-in) for providers that emulate one.
	New func(t *testnet.Testnet, spec scenario.Testnet, table *latency.Table, o testnet.ProviderOptions) (testnet.Provider, error)
	// Preflight, if set, says what stops the provider before anything is
	// made (no root, a missing tool), so that the user hears it first.
	Preflight func(spec scenario.Testnet, o testnet.ProviderOptions) error
	// Attaches is true for a network that runs already: no ports, homes,
	// state or chain set-up; the model is the scenario's list of nodes
	// (testnet.NewExternal).
	Attaches bool
}

// All lists the providers, in the order messages name them.
var All = []Entry{
	{Name: "process", Zero: (*process.Provider)(nil),
		New: func(t *testnet.Testnet, _ scenario.Testnet, _ *latency.Table, o testnet.ProviderOptions) (testnet.Provider, error) {
			var opts []process.Option
			if o.Log != nil {
				opts = append(opts, process.WithLogger(o.Log))
			}
			if o.Detach {
				opts = append(opts, process.Detached())
			}
			return process.New(t, o.Exe, opts...), nil
		}},
	{Name: "netns", Zero: (*netns.Provider)(nil),
		New: func(t *testnet.Testnet, spec scenario.Testnet, table *latency.Table, o testnet.ProviderOptions) (testnet.Provider, error) {
			return netns.New(t, spec, table, o)
		},
		Preflight: netns.Preflight},
	{Name: scenario.ProviderKubernetes, Zero: (*kubernetes.Provider)(nil),
		New: func(t *testnet.Testnet, spec scenario.Testnet, table *latency.Table, o testnet.ProviderOptions) (testnet.Provider, error) {
			return kubernetes.New(t, spec, table, o)
		},
		Preflight: kubernetes.Preflight},
	{Name: scenario.ProviderExternal, Zero: (*external.Provider)(nil), Attaches: true,
		New: func(t *testnet.Testnet, spec scenario.Testnet, _ *latency.Table, _ testnet.ProviderOptions) (testnet.Provider, error) {
			return external.New(t, spec), nil
		}},
}

// Find returns the entry called name.
func Find(name string) (Entry, error) {
	for _, e := range All {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("unknown provider %q", name)
}

// Can lists the providers that can do fault f.
func Can(f testnet.Fault) []string {
	var out []string
	for _, e := range All {
		if testnet.Can(e.Zero, f) {
			out = append(out, e.Name)
		}
	}
	return out
}

// Check refuses the perturbations of s that its provider cannot do, each
// with its file:line, the reason and the providers that can.
func Check(s *scenario.Scenario) error {
	e, err := Find(s.Testnet.Provider)
	if err != nil {
		return &scenario.Error{Pos: s.Pos("testnet.provider"), Msg: err.Error()}
	}
	var errs []error
	if e.Attaches && !s.Testnet.TargetIsMine {
		// Every address chainperf would reach, not only the one it loads.
		for i, n := range s.Testnet.Nodes {
			for j, u := range []string{n.RPC, n.Metrics, n.Pprof, n.JSONRPC} {
				key := []string{"rpc", "metrics", "pprof", "json_rpc"}[j]
				if err := external.CheckTargets([]string{u}, false); err != nil {
					path := fmt.Sprintf("testnet.node[%d].%s", i, key)
					errs = append(errs, &scenario.Error{Pos: s.Pos(path), Msg: path + ": " + err.Error()})
				}
			}
		}
	}
	for i, p := range s.Perturbations {
		f := testnet.Fault(p.Kind)
		if testnet.Can(e.Zero, f) {
			continue
		}
		path := fmt.Sprintf("perturbation[%d].kind", i)
		can := Can(f)
		if len(can) == 0 {
			errs = append(errs, &scenario.Error{Pos: s.Pos(path), Msg: fmt.Sprintf("%s: no provider can do a %s", path, p.Kind)})
			continue
		}
		msg := fmt.Sprintf("%s: %s needs provider %s: the %q provider cannot %s nodes (set [testnet] provider = %q)",
			path, p.Kind, quoted(can), e.Name, verb(f), can[0])
		errs = append(errs, &scenario.Error{Pos: s.Pos(path), Msg: msg})
	}
	return errors.Join(errs...)
}

// quoted is "a" or "a" or "b".
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, " or ")
}

func verb(f testnet.Fault) string {
	switch f {
	case testnet.FaultLatency:
		return "change the latency between"
	case testnet.FaultPartition:
		return "partition"
	}
	return string(f)
}
