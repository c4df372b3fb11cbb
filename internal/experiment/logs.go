package experiment

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/chainperf/chainperf/internal/nodelog"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet/live"
)

// teardown keeps the nodes' logs with the run, then takes the testnet
// down.
func teardown(ctx context.Context, o RunOptions, net *live.Net, rec *recorder, r *results.Run) {
	o.Phase("testnet down")
	keepLogs(ctx, net, "", rec, r)
	net.Down(ctx)
}

// keepLogs stores every node's output with the run before the testnet
// goes (a temp dir's logs go with it, a pod's with the pod): `chainperf
// runs logs` reads them, the run's "Node logs" finding counts what they
// say, and each node's errors, panics, peers dropped and redials are
// events at the time it wrote them. A node whose log cannot be read is
// said in the run's events; an external network's nodes have none here.
// prefix goes before each node's name (a counterparty's chain ID and
// "/": its nodes are named as the run's own are).
func keepLogs(ctx context.Context, net *live.Net, prefix string, rec *recorder, r *results.Run) {
	if rec.store == nil {
		return
	}
	var counts []nodelog.Counts
	for _, nd := range net.Testnet.Nodes {
		name := prefix + nd.Name
		text, size, err := net.Log(ctx, nd, store.MaxLog)
		switch {
		case errors.Is(err, live.ErrNoLog):
			continue
		case err != nil:
			rec.storeOnly("log", name+"'s log not kept: "+err.Error())
			continue
		}
		c := nodelog.ReadNear(name, text, r.Start, time.Local)
		counts = append(counts, c)
		// On the run's timeline: what each node's log said, when.
		for _, e := range nodelog.Events(c) {
			rec.eventAt(e.At, "log", e.Detail)
		}
		rec.keepLog(store.NodeLog{Node: name, Size: size, Text: text})
	}
	rec.mu.Lock()
	if prefix == "" {
		rec.logs = append(counts, rec.logs...) // the run's own nodes first
	} else {
		rec.logs = append(rec.logs, counts...)
	}
	all := slices.Clone(rec.logs)
	rec.mu.Unlock()
	if len(all) > 0 {
		r.SetFinding(nodelog.Finding(all))
	}
}

// keepLog stores one log with the run.
func (rc *recorder) keepLog(l store.NodeLog) {
	rc.write(func(st *store.Store) error { return st.Log(rc.ctx, rc.runID, l) })
}
