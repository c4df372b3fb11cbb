// Package latency holds the one-way delays between zones of a wide-area
// network as data: the built-in 13-region table, a CSV of one's own, or
// one uniform delay. The scenario reads it to check zone names; netem
// turns it into the delays it applies.
package latency

import (
	"github.com/chainperf/chainperf/internal/files"

	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

//go:embed zones.toml
var builtin []byte

// A Table holds one-way delays between zones: Delay[i][j] from Zones[i]
// to Zones[j].
type Table struct {
	Zones []string
	Delay [][]time.Duration
}

// Builtin returns the built-in 13-region table.
func Builtin() *Table {
	var f struct {
		Zones   []string    `toml:"zones"`
		DelayMS [][]float64 `toml:"delay_ms"`
	}
	if err := toml.Unmarshal(builtin, &f); err != nil {
		panic("latency: built-in zones.toml: " + err.Error())
	}
	t, err := newTable(f.Zones, f.DelayMS)
	if err != nil {
		panic("latency: built-in zones.toml: " + err.Error())
	}
	return t
}

// ReadCSV reads a table from a CSV file laid out as the built-in one's
// source: a header "From/to,zoneA,zoneB,...", then one row per sending
// zone, in the same order, of one-way delays in milliseconds.
func ReadCSV(path string) (*Table, error) {
	// A table of 200 zones is ~1 MB; /dev/zero or a FIFO is no table.
	data, err := files.ReadRegular(path, 4<<20)
	if err != nil {
		return nil, fmt.Errorf("latency table: %w", err)
	}
	return ParseCSV(path, data)
}

// ParseCSV parses the CSV table in data (named in messages).
func ParseCSV(name string, data []byte) (*Table, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // a short row is reported below, by line, as not square
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(rows) < 2 || len(rows[0]) < 2 {
		return nil, fmt.Errorf("%s: want a header row of zones and one row per zone", name)
	}
	zones := rows[0][1:]
	var ms [][]float64
	for i, r := range rows[1:] {
		if len(r) != len(zones)+1 {
			return nil, fmt.Errorf("%s:%d: %d delays for %d zones: the table must be square", name, i+2, len(r)-1, len(zones))
		}
		if i >= len(zones) {
			return nil, fmt.Errorf("%s:%d: %d rows for %d zones: the table must be square", name, i+2, len(rows)-1, len(zones))
		}
		if r[0] != zones[i] {
			return nil, fmt.Errorf("%s:%d: row %q where the header has %q: rows follow the header's order", name, i+2, r[0], zones[i])
		}
		row := make([]float64, len(zones))
		for j, cell := range r[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %q is not a delay in milliseconds", name, i+2, cell)
			}
			row[j] = v
		}
		ms = append(ms, row)
	}
	t, err := newTable(zones, ms)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

func newTable(zones []string, ms [][]float64) (*Table, error) {
	if len(ms) != len(zones) {
		return nil, fmt.Errorf("%d rows for %d zones: the table must be square", len(ms), len(zones))
	}
	t := &Table{Zones: zones}
	seen := map[string]bool{}
	for i, z := range zones {
		if z == "" || seen[z] {
			return nil, fmt.Errorf("zone %d: %q is empty or named twice", i, z)
		}
		seen[z] = true
		if len(ms[i]) != len(zones) {
			return nil, fmt.Errorf("row %s: %d delays for %d zones: the table must be square", z, len(ms[i]), len(zones))
		}
		row := make([]time.Duration, len(zones))
		for j, v := range ms[i] {
			if !(v >= 0 && v <= 10_000) { // NaN too
				return nil, fmt.Errorf("%s -> %s: %g ms: a delay is from 0 to 10000 ms", z, zones[j], v)
			}
			row[j] = time.Duration(v * float64(time.Millisecond))
		}
		t.Delay = append(t.Delay, row)
	}
	return t, nil
}

// Zone returns the index of zone name, or -1.
func (t *Table) Zone(name string) int {
	for i, z := range t.Zones {
		if z == name {
			return i
		}
	}
	return -1
}

// Uniform is a one-zone table whose single delay applies between every
// pair of distinct nodes.
func Uniform(d time.Duration, n int) *Table {
	t := &Table{}
	for i := 0; i < n; i++ {
		t.Zones = append(t.Zones, fmt.Sprintf("node%d", i))
		row := make([]time.Duration, n)
		for j := range row {
			if i != j {
				row[j] = d
			}
		}
		t.Delay = append(t.Delay, row)
	}
	return t
}
