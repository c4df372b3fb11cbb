package nodelog

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// A Level is how serious a line says it is; None for a line that says
// nothing (a stack trace's, a multi-line message's rest).
type Level int

const (
	None Level = iota
	Debug
	Info
	Warn
	ErrorLevel
	Fatal
)

var levelNames = []string{"none", "debug", "info", "warn", "error", "fatal"}

func (l Level) String() string { return levelNames[l] }

// ParseLevel reads a level's name as --level takes it.
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames[1:] {
		if strings.EqualFold(s, n) {
			return Level(i + 1), nil
		}
	}
	return None, fmt.Errorf("%q: give debug, info, warn, error or fatal", s)
}

// A Stamp is what a line says of itself: its level and when it was
// written, to within Within (the SDK's console lines give the minute);
// a zero At when it gives no time.
type Stamp struct {
	Level  Level
	At     time.Time
	Within time.Duration
}

var (
	plainStamp   = regexp.MustCompile(`^([DIEW])\[(\d{4}-\d\d-\d\d\|\d\d:\d\d:\d\d\.\d{3})\]`)
	consoleStamp = regexp.MustCompile(`^(\d{1,2}:\d\d[AP]M) (DBG|INF|WRN|ERR|FTL|PNC) `)
	plainLevels  = map[string]Level{"D": Debug, "I": Info, "W": Warn, "E": ErrorLevel}
	shortLevels  = map[string]Level{"DBG": Debug, "INF": Info, "WRN": Warn, "ERR": ErrorLevel, "FTL": Fatal, "PNC": Fatal}
	jsonLevels   = map[string]Level{"debug": Debug, "info": Info, "warn": Warn, "warning": Warn, "error": ErrorLevel, "fatal": Fatal, "panic": Fatal}
)

// StampOf reads a line's level and time (a line without colour codes:
// Plain). Times are in loc, the nodes' zone; a console line's clock is
// placed on the day nearest to near (the run's start).
func StampOf(line []byte, near time.Time, loc *time.Location) Stamp {
	if m := plainStamp.FindSubmatch(line); m != nil {
		at, err := time.ParseInLocation("2006-01-02|15:04:05.000", string(m[2]), loc)
		if err != nil {
			return Stamp{Level: plainLevels[string(m[1])]}
		}
		return Stamp{Level: plainLevels[string(m[1])], At: at, Within: time.Millisecond}
	}
	if m := consoleStamp.FindSubmatch(line); m != nil {
		s := Stamp{Level: shortLevels[string(m[2])]}
		if clock, err := time.ParseInLocation("3:04PM", string(m[1]), loc); err == nil {
			n := near.In(loc)
			at := time.Date(n.Year(), n.Month(), n.Day(), clock.Hour(), clock.Minute(), 0, 0, loc)
			switch { // the day nearest to near: a run over midnight
			case at.Sub(n) > 12*time.Hour:
				at = at.AddDate(0, 0, -1)
			case n.Sub(at) > 12*time.Hour:
				at = at.AddDate(0, 0, 1)
			}
			s.At, s.Within = at, time.Minute
		}
		return s
	}
	if len(line) > 0 && line[0] == '{' {
		var j struct {
			Level string          `json:"level"`
			Time  json.RawMessage `json:"time"`
		}
		if json.Unmarshal(line, &j) != nil {
			return Stamp{}
		}
		s := Stamp{Level: jsonLevels[strings.ToLower(j.Level)]}
		var text string
		if json.Unmarshal(j.Time, &text) == nil {
			if at, err := time.Parse(time.RFC3339Nano, text); err == nil {
				s.At, s.Within = at, time.Second
				if strings.Contains(text, ".") {
					s.Within = time.Millisecond
				}
			}
		}
		return s
	}
	if panics.Match(line) {
		return Stamp{Level: Fatal}
	}
	return Stamp{}
}

// A Filter keeps the lines at Min or above, written between Since and
// Until (zero: open); a line that says neither level nor time (a stack
// trace's) goes with the line before it.
type Filter struct {
	Min          Level
	Since, Until time.Time
	Near         time.Time      // the run's start, for console lines' day
	Loc          *time.Location // the nodes' zone
	kept         bool
}

// Reset starts a new node's log.
func (f *Filter) Reset() { f.kept = true }

// Keep says whether line is kept.
func (f *Filter) Keep(line []byte) bool {
	s := StampOf(line, f.Near, f.Loc)
	if s.Level == None && s.At.IsZero() {
		return f.kept
	}
	keep := s.Level == None || s.Level >= f.Min
	if !s.At.IsZero() {
		end := s.At.Add(s.Within)
		keep = keep && (f.Since.IsZero() || end.After(f.Since)) && (f.Until.IsZero() || !s.At.After(f.Until))
	}
	f.kept = keep
	return keep
}
