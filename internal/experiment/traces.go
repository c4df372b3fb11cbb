package experiment

import (
	"context"
	"fmt"

	"github.com/chainperf/chainperf/internal/chain"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/traces"
)

// noSpans is why a traced run may hear nothing.
const noSpans = "the chain's init wrote no config/otel.yaml (it has no OpenTelemetry tracing: the Cosmos SDK's is v0.54 and later), or its nodes sent none"

// newAdapter makes the chain's adapter and, when the scenario asks for the
// application's traces, the receiver of its spans; finishTraces sets the
// run's finding.
func newAdapter(ctx context.Context, s *scenario.Scenario, o RunOptions, r *results.Run) (chain.Adapter, func(), error) {
	adapter, err := chain.New(ctx, s, o.Log)
	if err != nil {
		return nil, nil, err
	}
	finish, err := startTraces(s, adapter, r)
	return adapter, finish, err
}

// startTraces starts the receiver of the nodes' spans when the scenario
// asks for them and the chain can send them. finish, once the testnet is
// down (a node sends its last spans as it stops), sets the run's finding.
func startTraces(s *scenario.Scenario, adapter chain.Adapter, r *results.Run) (finish func(), err error) {
	if !s.Observe.Traces {
		return func() {}, nil
	}
	tr, ok := adapter.(chain.Tracer)
	if !ok {
		r.SetFinding(traces.NotAsked(fmt.Sprintf("the %s chain sends no application traces", s.Testnet.Chain)))
		return func() {}, nil
	}
	rcv, err := traces.Listen()
	if err != nil {
		return nil, err
	}
	tr.TraceTo(rcv.URL())
	return func() { r.SetFinding(traces.Finding(rcv.Close(), noSpans)) }, nil
}
