// Command power measures how often chainperf compare's rule is right: the
// false-alarm rate with no change and the detection rate of regressions
// of 5, 10, 20 and 50 %, at 1+1, 2+2, 3+3 and 5+5 runs, for each gated
// figure of the default job. The noise of each figure (the standard
// error compare computes within a run, and the spread between runs it
// leaves unexplained) is estimated from stored runs (--db, --runs), so the
// table is about real runs of this machine; without --db it uses the values estimated on 2026-11-23 from
// five runs of the default job (bench/power.sh makes the runs and the
// table).
//
//	go run ./bench/power --db runs.db --runs "label:calib=1 latest:10"
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/chainperf/chainperf/internal/compare"
	"github.com/chainperf/chainperf/internal/store"
)

func main() {
	db := flag.String("db", "", "results database to estimate the noise from (default: built-in estimates)")
	query := flag.String("runs", "scenario:default latest:10", "which stored runs (a compare side)")
	trials := flag.Int("trials", 2000, "simulated comparisons a cell")
	threshold := flag.Float64("threshold", compare.DefaultThreshold, "compare's threshold, percent")
	flag.Parse()

	noises := builtIn
	if *db != "" {
		var err error
		if noises, err = estimate(*db, *query); err != nil {
			log.Fatal(err)
		}
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "figure\truns a side\tfalse alarms (no change)\tdetected -5 %%\t-10 %%\t-20 %%\t-50 %%\tnoise: between\twithin SE\tdf\t\n")
	for _, n := range noises {
		for _, runs := range []int{1, 2, 3, 5} {
			worse := func(x float64) float64 { // a change that makes the figure x worse
				if n.Figure.Higher {
					return -x
				}
				return x
			}
			row := fmt.Sprintf("%s\t%d+%d\t%.1f %%", n.Figure.Name, runs, runs,
				100*compare.Power(n, runs, 0, *threshold, compare.Regressed, *trials, 1))
			for _, x := range []float64{0.05, 0.10, 0.20, 0.50} {
				row += fmt.Sprintf("\t%.1f %%", 100*compare.Power(n, runs, worse(x), *threshold, compare.Regressed, *trials, 2))
			}
			fmt.Fprintf(w, "%s\t%.3f\t%.3f\t%d\t\n", row, n.Between, n.WithinSE, n.DF)
		}
	}
	w.Flush()
}

func figure(name string) compare.Figure { return compare.Describe(name) }

// builtIn: estimated by estimate() from five runs of the default job on
// this project's machine (2 cores), 2026-11-23 (bench/power.sh).
var builtIn = []compare.Noise{
	{Figure: figure("committed tx/s"), Between: 0.004, WithinSE: 0.007, DF: 5},
	{Figure: figure("latency p50"), Between: 0, WithinSE: 0.022, DF: 6},
	{Figure: figure("latency p99"), Between: 0.036, WithinSE: 0.018, DF: 6},
	{Figure: figure("max sustainable tx/s"), Between: 0.051, WithinSE: 0.066, DF: 4},
}

// estimate measures each figure's noise from stored runs: the SE compare
// computes within each run (its mean square, and the batches' degrees of
// freedom), and the between-run sd of the log figure less what that SE
// explains.
func estimate(db, query string) ([]compare.Noise, error) {
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ids, err := compare.Resolve(ctx, st, query)
	if err != nil {
		return nil, err
	}
	if len(ids) < 2 {
		return nil, fmt.Errorf("%d runs: the between-run spread needs at least 2", len(ids))
	}
	type acc struct{ logs, ses, dfs []float64 }
	per := map[string]*acc{}
	for _, id := range ids {
		r, err := st.Run(ctx, id)
		if err != nil {
			return nil, err
		}
		for name, xs := range compare.FromRun(r, nil).Figures {
			if len(xs) == 0 || xs[0].Value <= 0 {
				continue
			}
			a := per[name]
			if a == nil {
				a = &acc{}
				per[name] = a
			}
			a.logs = append(a.logs, math.Log(xs[0].Value))
			a.ses = append(a.ses, xs[0].SE/xs[0].Value)
			a.dfs = append(a.dfs, float64(xs[0].DF))
		}
	}
	var out []compare.Noise
	for _, name := range []string{"committed tx/s", "latency p50", "latency p99", "max sustainable tx/s"} {
		a := per[name]
		if a == nil || len(a.logs) < 2 {
			continue
		}
		within := stat.Mean(squares(a.ses), nil)
		out = append(out, compare.Noise{Figure: figure(name), Between: math.Sqrt(math.Max(0, stat.Variance(a.logs, nil)-within)),
			WithinSE: math.Sqrt(within), DF: int(math.Round(stat.Mean(a.dfs, nil)))})
	}
	return out, nil
}

func squares(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * x
	}
	return out
}
