// Package nodelog reads the logs a run kept of its nodes: CometBFT's own
// plain lines ("E[2026-11-29|07:00:00.123] msg key=value"), the Cosmos
// SDK's console lines ("7:00AM ERR msg key=value", colour codes taken
// out) and either one's JSON lines ({"level":"error",...}), one way, into
// counts of what a reader looks for first, per node.
package nodelog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/chainperf/chainperf/internal/finding"
	"github.com/chainperf/chainperf/internal/printable"
)

// Source is the finding's source.
const Source = "logs"

// A Kind is what a line says, of the kinds counted.
type Kind string

const (
	Error       Kind = "error"        // a line at error level
	Panic       Kind = "panic"        // a Go panic or fatal error
	PeerDropped Kind = "peer dropped" // the p2p switch stopped a peer for an error
	Redial      Kind = "redials"      // it dials a persistent peer it lost, again
)

// Kinds are the kinds counted, in the order they are shown.
var Kinds = []Kind{Error, Panic, PeerDropped, Redial}

// Counts is one node's log read: the lines of each kind and the first
// line of each (as the log has it, colour codes out, at most 300 bytes).
type Counts struct {
	Node  string          `json:"node"`
	Lines int             `json:"lines"`
	Of    map[Kind]int    `json:"of,omitempty"`
	First map[Kind]string `json:"first,omitempty"`
	// From and To: when the first and the last line of each kind that
	// said its time were written (ReadNear; none for lines without one).
	From map[Kind]time.Time `json:"from,omitempty"`
	To   map[Kind]time.Time `json:"to,omitempty"`
}

var (
	ansi      = regexp.MustCompile("\x1b\\[[0-9;]*m")
	plainErr  = regexp.MustCompile(`^E\[\d{4}-\d\d-\d\d\|`)
	consoleEr = regexp.MustCompile(`^\S+ (ERR|FTL|PNC) `)
	panics    = regexp.MustCompile(`^(panic: |fatal error: )`)
	redial    = regexp.MustCompile(`\bReconnecting to peer\b`) // CometBFT's "Added peer" is a debug line
	dropped   = regexp.MustCompile(`(?i)\bstopping peer for error\b`)
	// A websocket client that went away without a close: the harness's
	// own block follower at teardown, logged by every node it followed.
	goneClient = regexp.MustCompile(`websocket: close 100[16] `)
)

// Plain is a log line without its terminal colour codes (the SDK's
// console logger writes them) and line end.
func Plain(line []byte) []byte {
	if bytes.IndexByte(line, 0x1b) >= 0 {
		line = ansi.ReplaceAll(line, nil)
	}
	return bytes.TrimRight(line, "\r\n")
}

// Read counts one node's log.
func Read(node string, text []byte) Counts { return ReadNear(node, text, time.Time{}, time.UTC) }

// ReadNear counts one node's log and when each kind was first and last
// written: times in loc, a console line's minute on the day nearest near
// (the run's start; zero: such lines give no time).
func ReadNear(node string, text []byte, near time.Time, loc *time.Location) Counts {
	c := Counts{Node: node, Of: map[Kind]int{}, First: map[Kind]string{}, From: map[Kind]time.Time{}, To: map[Kind]time.Time{}}
	for line := range bytes.Lines(text) {
		line = Plain(line)
		if len(line) == 0 {
			continue
		}
		c.Lines++
		var at time.Time
		for _, k := range kindsOf(line) {
			c.Of[k]++
			if _, ok := c.First[k]; !ok {
				c.First[k] = printable.Clean(string(line[:min(len(line), 300)]))
			}
			if at.IsZero() {
				at = StampOf(line, near, loc).At
			}
			if at.IsZero() || near.IsZero() && at.Year() < 2 {
				continue
			}
			if f, ok := c.From[k]; !ok || at.Before(f) {
				c.From[k] = at
			}
			if at.After(c.To[k]) {
				c.To[k] = at
			}
		}
	}
	return c
}

// An Event is what a node's log said of one kind, placed on the run's
// timeline at its first line.
type Event struct {
	At     time.Time
	Detail string
}

// Events are c's kinds as events: how many lines, from when to when, and
// the first one. Kinds whose lines gave no time are left out (the Node
// logs finding counts them).
func Events(c Counts) []Event {
	var out []Event
	for _, k := range Kinds {
		from, ok := c.From[k]
		if !ok || c.Of[k] == 0 {
			continue
		}
		span := from.UTC().Format("15:04:05.000 UTC")
		if to := c.To[k]; to.After(from) {
			span += " to " + to.UTC().Format("15:04:05.000 UTC")
		}
		out = append(out, Event{At: from, Detail: fmt.Sprintf("%s logged %d %s line%s, %s; the first: %s",
			c.Node, c.Of[k], k, plural(c.Of[k]), span, c.First[k])})
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// kindsOf says the kinds of one line.
func kindsOf(line []byte) []Kind {
	var out []Kind
	level := ""
	if line[0] == '{' {
		var j struct {
			Level string `json:"level"`
		}
		if json.Unmarshal(line, &j) == nil {
			level = j.Level
		}
	}
	// Each regular expression only where its words are: a regexp scans a
	// line that cannot match byte by byte (the reader ran at 10 MB/s).
	switch {
	case bytes.Contains(line, []byte("websocket: close 100")) && goneClient.Match(line):
	case level == "error" || level == "fatal" || level == "panic",
		level == "" && (plainErr.Match(line) || consoleEr.Match(line)):
		out = append(out, Error)
	}
	if (line[0] == 'p' || line[0] == 'f') && panics.Match(line) {
		out = append(out, Panic)
	}
	if (bytes.Contains(line, []byte("eer for")) || bytes.Contains(line, []byte("EER FOR"))) && dropped.Match(line) {
		out = append(out, PeerDropped)
	}
	if bytes.Contains(line, []byte("Reconnecting to peer")) && redial.Match(line) {
		out = append(out, Redial)
	}
	return out
}

// Finding is the run's logs read: a row a node with its counts and the
// first error or panic line it wrote.
func Finding(nodes []Counts) finding.Finding {
	t := finding.Table{Columns: []string{"node", "lines"}}
	for _, k := range Kinds {
		t.Columns = append(t.Columns, string(k))
	}
	t.Columns = append(t.Columns, "first error")
	total := 0
	for _, c := range nodes {
		row := []string{c.Node, fmt.Sprint(c.Lines)}
		for _, k := range Kinds {
			row = append(row, fmt.Sprint(c.Of[k]))
		}
		first := c.First[Panic]
		if first == "" {
			first = c.First[Error]
		}
		t.Rows = append(t.Rows, append(row, first))
		total += c.Of[Error]
	}
	note := fmt.Sprintf("The nodes' own logs, kept with the run (`chainperf runs logs`): %d error lines in all.", total)
	return finding.Finding{Source: Source, Title: "Node logs", Note: note, Tables: []finding.Table{t}}
}
