package observe

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/google/pprof/profile"

	"github.com/chainperf/chainperf/internal/nodehttp"
)

// A Profile is one captured pprof profile: where it is kept and its top
// functions by the profile's main value (alloc_space for heap and allocs,
// cpu time for cpu).
type Profile struct {
	Node string    `json:"node"`
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
	File string    `json:"file"`
	// Seconds: the profile covers these seconds before At (0: a snapshot).
	Seconds int       `json:"seconds,omitempty"`
	Value   string    `json:"value"` // the sample type Top is ranked by, e.g. "alloc_space (bytes)"
	Top     []TopFunc `json:"top"`
}

// A TopFunc is one function of a profile's top list.
type TopFunc struct {
	Func  string  `json:"func"`
	Flat  int64   `json:"flat"`
	Share float64 `json:"share"` // of the profile's total
}

// MaxProfile is the largest profile read from a node (a Go node's CPU
// profile of a minute is well under a megabyte).
const MaxProfile = 64 << 20

// CaptureProfile fetches a profile of the given kind from a node's pprof
// base URL (http://host:port/debug/pprof), writes it into dir and extracts
// its top functions. cpu profiles last seconds; another kind with
// seconds > 0 is what happened in those seconds (the delta the Go runtime
// serves), else a snapshot since the process began.
func CaptureProfile(ctx context.Context, node, pprofURL, kind string, seconds int, dir string) (*Profile, error) {
	u := pprofURL + "/" + kind
	switch {
	case kind == "cpu":
		u = fmt.Sprintf("%s/profile?seconds=%d", pprofURL, max(1, seconds))
	case seconds > 0:
		u = fmt.Sprintf("%s/%s?seconds=%d", pprofURL, kind, seconds)
	}
	c := nodehttp.Client(nodehttp.Limits{Bytes: MaxProfile, Time: time.Duration(seconds+30) * time.Second})
	data, err := nodehttp.Get(ctx, c, u)
	if err != nil {
		return nil, fmt.Errorf("%s profile of %s: %w", kind, node, err)
	}
	at := time.Now()
	p := &Profile{Node: node, Kind: kind, At: at, Seconds: seconds}
	if p.Value, p.Top, err = Top(data, 20); err != nil {
		return nil, fmt.Errorf("%s profile of %s: %w", kind, node, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// A new file each time: two captures in one second keep both.
	fh, err := os.CreateTemp(dir, fmt.Sprintf("%s-%s-%s-*.pb.gz", node, kind, at.UTC().Format("150405")))
	if err != nil {
		return nil, err
	}
	p.File = fh.Name()
	if _, err := fh.Write(data); err != nil {
		fh.Close()
		return nil, err
	}
	return p, fh.Close()
}

// Top parses a pprof profile and returns its n top functions by flat
// value, ranked by alloc_space when the profile has it (what the Cosmos SDK
// team ranks allocators by), else by its last sample type.
func Top(data []byte, n int) (string, []TopFunc, error) {
	prof, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		return "", nil, fmt.Errorf("not a pprof profile: %w", err)
	}
	idx := len(prof.SampleType) - 1
	for i, st := range prof.SampleType {
		if st.Type == "alloc_space" {
			idx = i
		}
	}
	if idx < 0 {
		return "", nil, fmt.Errorf("profile has no sample types")
	}
	flat := map[string]int64{}
	var total int64
	for _, s := range prof.Sample {
		v := s.Value[idx]
		total += v
		if len(s.Location) == 0 || len(s.Location[0].Line) == 0 || s.Location[0].Line[0].Function == nil {
			continue
		}
		// The leaf frame's innermost (possibly inlined) function.
		flat[s.Location[0].Line[0].Function.Name] += v
	}
	top := make([]TopFunc, 0, len(flat))
	for f, v := range flat {
		top = append(top, TopFunc{Func: f, Flat: v})
	}
	sort.Slice(top, func(i, j int) bool {
		if top[i].Flat != top[j].Flat {
			return top[i].Flat > top[j].Flat
		}
		return top[i].Func < top[j].Func
	})
	if len(top) > n {
		top = top[:n]
	}
	for i := range top {
		if total > 0 {
			top[i].Share = float64(top[i].Flat) / float64(total)
		}
	}
	st := prof.SampleType[idx]
	return fmt.Sprintf("%s (%s)", st.Type, st.Unit), top, nil
}
