// Command committed shows, for stored runs of one scenario, the main
// phase's committed tx/s as chainperf computed it before 2026-11-25 (txs
// seen in the window's whole seconds / the window) and as it does now (the
// run's code-0 txs in the blocks seen in the window / the header time they
// span), with the spread of each over the runs. At a load the chain keeps
// up with, a figure that measures the chain reads the offered rate every
// time. bench/committed.sh makes the runs.
//
//	go run ./bench/committed --db runs.db --runs "label:calib=committed latest:12"
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/results"
	"github.com/chainperf/chainperf/internal/store"
)

func main() {
	db := flag.String("db", "chainperf.db", "results database")
	query := flag.String("runs", "scenario:default latest:12", "which stored runs (a compare side)")
	flag.Parse()
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, *db)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	ids, err := compare.Resolve(ctx, st, *query)
	if err != nil {
		log.Fatal(err)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "run\tphase\toffered tx/s\tby seconds\tby blocks\tblocks in window\t\n")
	var secs, blocks []float64
	for i := len(ids) - 1; i >= 0; i-- { // oldest first
		r, err := st.Run(ctx, ids[i])
		if err != nil {
			log.Fatal(err)
		}
		for _, p := range r.Phases {
			s := bySeconds(p)
			b, ok := results.BlockRate(p)
			if !ok {
				continue
			}
			secs, blocks = append(secs, s), append(blocks, b)
			fmt.Fprintf(w, "%s\t%s\t%.1f\t%.1f\t%.1f\t%d\t\n", r.ID, p.Name, p.Figures.OfferedTPS, s, b, len(results.WindowBlocks(p)))
		}
	}
	w.Flush()
	for _, f := range []struct {
		name string
		xs   []float64
	}{{"by seconds (before)", secs}, {"by blocks (now)", blocks}} {
		if len(f.xs) < 2 {
			continue
		}
		m, sd := stat.MeanStdDev(f.xs, nil)
		lo, hi := f.xs[0], f.xs[0]
		for _, x := range f.xs {
			lo, hi = min(lo, x), max(hi, x)
		}
		fmt.Printf("%-20s %d phases: mean %.1f, sd %.1f (CV %.2f %%), range %.1f-%.1f\n", f.name, len(f.xs), m, sd, 100*sd/m, lo, hi)
	}
}

// bySeconds is the committed rate as computed before: code-0 txs seen in
// the window's whole seconds over their count.
func bySeconds(p *results.Phase) float64 {
	from, to := int(p.Window[0]), int(p.Window[1])
	var c int64
	for i := from; i < to && i < len(p.Ledger.PerSecond); i++ {
		c += p.Ledger.PerSecond[i].Committed
	}
	if to <= from {
		return 0
	}
	return float64(c) / float64(to-from)
}
