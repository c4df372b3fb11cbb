package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
	"github.com/chainperf/chainperf/internal/testnet/providertest"
)

// rpcSecret is the password in every hostile case's node URLs: it must
// reach no output, database or report.
const rpcSecret = "S3cretRPCpw"

// fakeChain starts a fake one-validator chain (in this process) and
// returns its node's RPC URL; cfg shapes it.
func fakeChain(t *testing.T, cfg providertest.Config) string {
	t.Helper()
	s, err := scenario.Parse("t.toml", []byte("[testnet]\nvalidators = 1\nfull_nodes = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	tn := testnet.New(s.Testnet, testnet.NewID(), t.TempDir(), "127.0.0.1", 0)
	f := providertest.New(tn, cfg)
	ctx := context.Background()
	if err := f.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(ctx) })
	if err := f.Start(ctx, tn.Nodes...); err != nil {
		t.Fatal(err)
	}
	return f.Endpoint(tn.Nodes[0]).RPC
}

// measured runs chainperf with args and returns its combined output, exit
// code and peak memory (MiB).
func measured(t *testing.T, reg string, args ...string) (string, int, int64) {
	t.Helper()
	out, code, st := cliState(t, reg, args...)
	return out, code, st.SysUsage().(*syscall.Rusage).Maxrss >> 10
}

// everything reads what a case left: output, the database files, the
// reports.
func everything(t *testing.T, out, dir string) string {
	var b strings.Builder
	b.WriteString(out)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.Write(data)
		}
		return nil
	})
	return b.String()
}

// A hostile node on 127.0.0.1, driven through `chainperf load --rpc` and
// an external scenario: each class of bad answer ends in a clear word in
// the run (its events, the report) naming the node and the cap, chainperf
// stays small, and neither the node URL's password nor anything unbounded
// reaches the database or the reports.
func TestHostileNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("a run a case")
	}
	t.Parallel()
	var escapes atomic.Int64
	upstream := fakeChain(t, providertest.Config{Interval: 200 * time.Millisecond, Reject: func(tx []byte) string {
		if escapes.Add(1)%7 == 0 {
			return "rejected " + providertest.EscapeText
		}
		return ""
	}})
	honest := map[string]int64{}
	both, run := []string{"load", "run"}, []string{"run"} // the metrics classes need a metrics URL: an external scenario
	type hostileCase struct {
		trick providertest.Trick
		via   string // "load" (--rpc) or "run" (an external scenario with metrics)
		code  int
		want  []string // in the output, report or events
		after time.Duration
	}
	var cases []hostileCase
	for _, c := range []struct {
		trick providertest.Trick
		vias  []string
		code  int
		want  []string
	}{
		{"", both, 0, nil}, // a node that plays no trick: what the others are held to
		{providertest.HugeStatus, both, 1, []string{"answered more than 1 MiB: not read"}},
		{providertest.HugeBlock, both, 1, []string{"answered more than 64 MiB: not read"}},
		{providertest.HugeResults, both, 1, []string{"answered more than 64 MiB: not read"}},
		{providertest.HangStatus, both, 1, []string{"did not answer within 2s"}},
		{providertest.HeightOverflow, both, 1, []string{"99999999999999999999", "not a height"}},
		{providertest.HeightBackwards, both, 1, []string{"height does not go backwards"}},
		{providertest.WrongHeight, both, 1, []string{"answered a block of height"}},
		{providertest.StopBlocks, both, 1, []string{"follower_stalled", "follower_gap"}},
		// A block read held past the run's end (4 s, under the 10 s the
		// follower waits to call it a stall): named when the run ends.
		{providertest.HoldBlock, both, 1, []string{"was still unanswered after"}},
		// A million one-byte txs in a block (none of them ours): decoded
		// in the memory an honest node's run takes (the peak check below).
		{providertest.TinyTxs, both, 0, nil},
		{providertest.Redirect, both, 2, []string{"redirected to another host"}},
		{providertest.ControlChars, both, 0, []string{`\x1b]0;pwned`}},
		{providertest.Cardinality, run, 0, []string{"series_dropped"}},
		{providertest.HugeMetrics, run, 0, []string{"answered more than 16 MiB: not read"}},
	} {
		for _, v := range c.vias {
			cases = append(cases, hostileCase{c.trick, v, c.code, c.want, 0})
		}
	}
	name := func(tc hostileCase) string {
		if tc.trick == "" {
			return "honest/" + tc.via
		}
		return string(tc.trick) + "/" + tc.via
	}
	runCase := func(t *testing.T, tc hostileCase) {
		if tc.after == 0 && tc.trick != providertest.Redirect && tc.trick != providertest.ControlChars {
			tc.after = 1500 * time.Millisecond // after the checks at the start
		}
		h, err := providertest.NewHostile(upstream, tc.trick, tc.after)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		dir := t.TempDir()
		if os.Getenv("KEEP") != "" {
			dir, _ = os.MkdirTemp("", "hostile-")
		}
		rpc := strings.Replace(h.URL, "http://", "http://probe:"+rpcSecret+"@", 1)
		db, reports := filepath.Join(dir, "runs.db"), filepath.Join(dir, "reports")
		var args []string
		// 4 s: the trick starts 1.5 s in, and the run reads the node
		// (status, blocks, results, metrics) again after that. A stall is
		// said after 10 s without a block: that case runs long enough to
		// see it.
		length := "4s"
		if tc.trick == providertest.StopBlocks {
			length = "14s"
		}
		if tc.via == "load" {
			// Its criteria as the run's below: the load gate off, as for
			// every test beside others (a CI run's honest load had 3 of
			// its 160 txs sent more than 50 ms late and exited 1).
			crit := filepath.Join(t.TempDir(), "criteria.toml")
			os.WriteFile(crit, []byte(besideOthers(`name = "hostile"`)), 0o644)
			args = []string{"load", "--rpc", rpc, "-f", crit, "--rate", "40", "--duration", length, "--drain", "2s", "--db", db, "--report-dir", reports}
		} else {
			scn := filepath.Join(t.TempDir(), "ext.toml") // not in dir: it holds the password
			os.WriteFile(scn, []byte(besideOthers(`name = "hostile"
[testnet]
provider = "external"
[[testnet.node]]
name = "n0"
role = "validator"
rpc = "`+rpc+`"
metrics = "`+rpc+`/metrics"
[load]
rate = 40
duration = "`+length+`"
[experiment]
kind = "steady"
warmup = "1s"
cooldown = "1s"
drain_timeout = "2s"
[observe]
interval = "500ms"
`)), 0o644)
			args = []string{"run", scn, "--db", db, "--report-dir", reports}
		}
		out, code, rss := measured(t, t.TempDir(), args...)
		if ev, err := exec.Command("sqlite3", db, "select kind, substr(detail,1,200) from events").CombinedOutput(); err == nil {
			t.Logf("events:\n%s", ev)
		}
		all := everything(t, out, dir)
		shown := out // what a terminal or a Markdown reader shows
		if md, _ := filepath.Glob(filepath.Join(reports, "*", "report.md")); len(md) == 1 {
			shown += string(mustRead(t, md[0]))
		}
		t.Logf("%s: exit %d, peak %d MiB\n%s", name(tc), code, rss, out)
		if code != tc.code {
			t.Errorf("exit %d; want %d", code, tc.code)
		}
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("nothing says %q; the report:\n%s", w, shown)
			}
		}
		if strings.Contains(all, rpcSecret) {
			t.Errorf("the node URL's password reached the output, database or reports")
		}
		if strings.Contains(shown, "\x1b") {
			t.Errorf("a terminal escape from the node reached the output or reports unescaped")
		}
		// An honest node's run sets the bar; a hostile one may cost at
		// most the largest answer read up to its cap (64 MiB) and a
		// little more: the build before the caps took 2 GiB here.
		if tc.trick == "" {
			honest[tc.via] = rss
		} else if limit := honest[tc.via] + 96; rss > limit {
			t.Errorf("peak memory %d MiB; want under %d (an honest node's run + 96)", rss, limit)
		}
		var size int64
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if fi, err := d.Info(); err == nil && !d.IsDir() {
				size += fi.Size()
			}
			return nil
		})
		if size > 32<<20 {
			t.Errorf("the database and reports take %d MiB; want under 32", size>>20)
		}
		if n := h.Elsewhere.Load(); n > 0 {
			t.Errorf("%d requests followed a redirect to another host", n)
		}
	}
	// The honest cases first: they set the memory bar the others are held to.
	for _, tc := range cases {
		if tc.trick == "" {
			t.Run(name(tc), func(t *testing.T) { runCase(t, tc) })
		}
	}
	// Then the tricks, as many at once as -parallel lets (2 here): each is
	// a chainperf process of its own (its peak memory its own) against a
	// hostile proxy of its own, mostly waiting on the fake's 200 ms blocks,
	// and no case asserts a time tighter than seconds.
	t.Run("tricks", func(t *testing.T) {
		for _, tc := range cases {
			if tc.trick != "" {
				t.Run(name(tc), func(t *testing.T) { t.Parallel(); runCase(t, tc) })
			}
		}
	})
}
