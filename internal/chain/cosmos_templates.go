package chain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/msgtemplate"
	"github.com/chainperf/chainperf/internal/nodehttp"
)

// setupWait bounds how long a set-up tx may take to reach a block.
const setupWait = 60 * time.Second

// templates runs the workload's set-up steps from their wallet and
// compiles the mix's templates and the read load's queries with what the
// steps bound, all against the message descriptors the chain serves. It
// fills mix's templates in place and returns the set-up txs as the chain
// ran them, and the queries.
func (c *Cosmos) templates(ctx context.Context, rpc, chainID, denom string, gasPrice float64, wallet cosmos.Wallet, mix []cosmos.MixEntry) ([]cosmos.SetupTx, []cosmos.CustomRead, error) {
	w := c.s.Workload
	templated := len(w.Setup) > 0 || len(w.Reads) > 0
	for _, m := range w.Mix {
		templated = templated || m.Template != ""
	}
	if !templated {
		return nil, nil, nil
	}
	client := nodehttp.Client(nodehttp.Query)
	desc, err := cosmos.Descriptors(ctx, client, rpc)
	if err != nil {
		return nil, nil, err
	}
	c.log.Info("read the chain's message descriptors", "files", desc.Files(), "msg types", len(desc.Msgs()), "left out", len(desc.Skipped))
	file := func(kind, path string) ([]byte, error) {
		if kind == "module" {
			return build.ModuleFile(ctx, path)
		}
		return build.ReadInside(filepath.Dir(absolute(path)), filepath.Base(path), build.MaxModuleFile)
	}
	var bound map[string][]string
	var done []cosmos.SetupTx
	if len(w.Setup) > 0 {
		steps := make([]cosmos.SetupStep, len(w.Setup))
		for i, st := range w.Setup {
			steps[i] = cosmos.SetupStep{Text: st.Msg, Count: st.Count, Bind: st.Bind, Where: c.s.Pos(fmt.Sprintf("workload.setup[%d].msg", i))}
		}
		cfg := cosmos.SetupConfig{RPC: rpc, ChainID: chainID, Denom: denom, GasPrice: gasPrice, Wallet: wallet, Desc: desc, File: file,
			Wait: setupWait, Logf: func(f string, a ...any) { c.log.Info(fmt.Sprintf(f, a...)) }}
		if bound, done, err = cosmos.RunSetup(ctx, client, cfg, steps); err != nil {
			return nil, nil, err
		}
	}
	compile := func(key, text string) (*msgtemplate.Template, error) {
		t, err := msgtemplate.Compile(desc, text, msgtemplate.Options{Bound: bound, File: file})
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", c.s.Pos(key), key, err)
		}
		return t, nil
	}
	for i, m := range w.Mix {
		if m.Template == "" {
			continue
		}
		if mix[i].Template, err = compile(fmt.Sprintf("workload.mix[%d].template", i), m.Template); err != nil {
			return nil, nil, err
		}
	}
	var reads []cosmos.CustomRead
	for i, r := range w.Reads {
		t, err := compile(fmt.Sprintf("workload.read[%d].request", i), r.Request)
		if err != nil {
			return nil, nil, err
		}
		reads = append(reads, cosmos.CustomRead{Name: r.Name, Path: r.Path, Request: t})
	}
	return done, reads, nil
}

// absolute is path made absolute against the working directory, as the
// scenario's other paths are read.
func absolute(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	return filepath.Join(wd, path)
}
