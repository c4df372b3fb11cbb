package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/chainperf/chainperf/internal/files"
	"github.com/chainperf/chainperf/internal/suggest"
)

// An Error is one problem in a scenario file, at Pos ("file:line").
type Error struct {
	Pos string
	Msg string
}

func (e *Error) Error() string { return e.Pos + ": " + e.Msg }

// Open reads and parses the scenario file at path; "" means the built-in
// default scenario.
func Open(path string) (*Scenario, error) {
	if path == "" {
		return Parse("<default>", DefaultText())
	}
	data, err := files.ReadRegular(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	s, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	return s, s.openPeer(path)
}

// MaxFileBytes bounds a scenario file (the default is ~12 KB) and
// MaxDepth its nesting of arrays and inline tables: go-toml's memory grows
// with the square of the depth (40 KB of nested brackets took 659 MB).
const (
	MaxFileBytes = 1 << 20
	MaxDepth     = 16
)

// checkShape refuses data past MaxFileBytes or nested past MaxDepth
// before the decoder sees it, naming the line where the depth is passed.
// Brackets inside strings and comments do not count.
func checkShape(file string, data []byte) error {
	if len(data) > MaxFileBytes {
		return &Error{Pos: file, Msg: fmt.Sprintf("%d bytes: a scenario is at most %d", len(data), MaxFileBytes)}
	}
	depth, line, dots := 0, 1, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line, dots = line+1, 0
		case '=', ',':
			dots = 0
		case '.':
			// A dotted key nests as deep as its parts; a value holds
			// a dot or two at most (a float, a time), and no '=' after.
			if dots++; dots > MaxDepth {
				return &Error{Pos: fmt.Sprintf("%s:%d", file, line), Msg: fmt.Sprintf("a dotted key of more than %d parts", MaxDepth)}
			}
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			i = skipString(data, i, &line)
		case '[', '{':
			dots = 0
			if depth++; depth > MaxDepth {
				return &Error{Pos: fmt.Sprintf("%s:%d", file, line), Msg: fmt.Sprintf("nested more than %d arrays or tables deep", MaxDepth)}
			}
		case ']', '}':
			depth = max(0, depth-1)
		}
	}
	return nil
}

// bareSign is the line of the first + or - that stands for a value with
// no digit after it (outside strings and comments), 1 when there is none.
func bareSign(data []byte) int {
	line, prev := 1, byte('\n')
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\n':
			line++
		case c == '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			i = skipString(data, i, &line)
		case (c == '+' || c == '-') && strings.IndexByte("=[,", prev) >= 0:
			if i+1 == len(data) || strings.IndexByte(" \t\r\n,]}#", data[i+1]) >= 0 {
				return line
			}
		}
		if c != ' ' && c != '\t' {
			prev = c
		}
	}
	return 1
}

// skipString returns the index of the last byte of the string that opens
// at data[i]: its closing quote (triple for a multi-line string), or for
// an unterminated single-line one the byte before its line's end.
func skipString(data []byte, i int, line *int) int {
	q := data[i]
	end := []byte{q}
	if bytes.HasPrefix(data[i:], []byte{q, q, q}) {
		end, i = []byte{q, q, q}, i+2
	}
	for i++; i < len(data); i++ {
		switch {
		case bytes.HasPrefix(data[i:], end):
			return i + len(end) - 1
		case data[i] == '\n' && len(end) == 1:
			return i - 1 // the decoder will say it is unterminated
		case data[i] == '\n':
			*line++
		case data[i] == '\\' && q == '"':
			i++
		}
	}
	return len(data) - 1
}

// Parse decodes data (named file in messages) on top of the defaults and
// validates the result. All problems found are returned joined.
func Parse(file string, data []byte) (*Scenario, error) {
	// A UTF-8 byte order mark, as some editors write, is not TOML.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := checkShape(file, data); err != nil {
		return nil, err
	}
	s, err := defaults()
	if err != nil {
		return nil, err
	}
	// workload.mode's default is the chain's: "pregenerate" (default.toml)
	// unless the chain says otherwise (ChainSection.Mode).
	mode := s.Workload.Mode
	s.Workload.Mode = ""
	s, bad, err := decodeAll(file, data, s)
	if err != nil {
		return nil, err
	}
	if s.Workload.Mode == "" {
		s.Workload.Mode = mode
		if c, ok := chainNamed(s.Testnet.Chain); ok && c.Mode != "" {
			s.Workload.Mode = c.Mode
		}
	}
	s.File, s.Text, s.lines = file, data, indexLines(data)
	s.Testnet.Config = Flatten(s.Testnet.Config)
	s.Testnet.Genesis, s.Testnet.App = Flatten(s.Testnet.Genesis), Flatten(s.Testnet.App)
	// The values the decoder refused, then what validation finds in the
	// rest: every error at once.
	if errs := append(bad, s.validate(s.lines)...); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

func defaults() (*Scenario, error) {
	var s Scenario
	if err := decode("<default>", DefaultText(), &s); err != nil {
		return nil, fmt.Errorf("built-in default scenario: %w", err)
	}
	return &s, nil
}

// decodeAll is decode, with every bad value said at once: the decoder
// stops at the first, so the line of a value it refused is blanked (the
// lines keep their numbers) and the file decoded again, while the error
// is one value on one line of "key = value".
// It returns the scenario decoded without those lines, and their errors;
// err is any other error (the scenario is then not read).
func decodeAll(file string, data []byte, s *Scenario) (*Scenario, []error, error) {
	err := decode(file, data, s)
	var errs []error
	for range 50 {
		var e *Error
		if err == nil || !errors.As(err, &e) || e != err {
			break // none left, or not one value's error (keys, syntax): said as it is
		}
		row := valueLine(data, e.Pos)
		if row == 0 {
			break
		}
		errs = append(errs, err)
		data = blankLine(data, row)
		fresh, derr := defaults()
		if derr != nil {
			return nil, nil, derr
		}
		s, err = fresh, decode(file, data, fresh)
	}
	if err != nil {
		return nil, nil, errors.Join(append(errs, err)...)
	}
	return s, errs, nil
}

// valueLine is the line of pos ("file:line") when that line is a whole
// "key = value" (not the start of a multi-line array or table), else 0.
func valueLine(data []byte, pos string) int {
	i := strings.LastIndexByte(pos, ':')
	row, err := strconv.Atoi(pos[i+1:])
	if i < 0 || err != nil || row < 1 {
		return 0
	}
	lines := bytes.Split(data, []byte("\n"))
	if row > len(lines) {
		return 0
	}
	l := bytes.TrimSpace(lines[row-1])
	k, v, ok := bytes.Cut(l, []byte("="))
	if !ok || len(bytes.TrimSpace(k)) == 0 || bytes.HasPrefix(l, []byte("[")) {
		return 0
	}
	v = bytes.TrimSpace(v)
	if bytes.Count(v, []byte("[")) != bytes.Count(v, []byte("]")) || bytes.Count(v, []byte("{")) != bytes.Count(v, []byte("}")) ||
		bytes.HasPrefix(v, []byte(`"""`)) || bytes.HasPrefix(v, []byte("'''")) {
		return 0
	}
	return row
}

// blankLine returns data with line row emptied.
func blankLine(data []byte, row int) []byte {
	lines := bytes.Split(data, []byte("\n"))
	lines[row-1] = nil
	return bytes.Join(lines, []byte("\n"))
}

func decode(file string, data []byte, s *Scenario) (err error) {
	// go-toml v2.2.4 panics on a sign with no digits ("rate = -") in a
	// float field; v2.4 fixes it but decodes our kinds differently.
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Pos: fmt.Sprintf("%s:%d", file, bareSign(data)), Msg: fmt.Sprintf("cannot read this value (%v); a number needs digits after its sign", r)}
		}
	}()
	// Lists in a file replace the defaults' lists; go-toml would reuse them.
	var probe map[string]any
	if err := toml.Unmarshal(data, &probe); err == nil {
		if t, ok := probe["testnet"].(map[string]any); ok {
			if _, ok := t["args"]; ok {
				s.Testnet.Args = nil
			}
			if _, ok := t["zones"]; ok {
				s.Testnet.Zones = nil
			}
			if b, ok := t["build"].(map[string]any); ok {
				if _, ok := b["flags"]; ok {
					s.Testnet.Build.Flags = nil
				}
			}
		}
		if e, ok := probe["experiment"].(map[string]any); ok {
			if _, ok := e["connections"]; ok {
				s.Experiment.Connections = nil
			}
			if _, ok := e["rates"]; ok {
				s.Experiment.Rates = nil
			}
			if q, ok := e["qa"].(map[string]any); ok {
				if _, ok := q["connections"]; ok {
					s.Experiment.QA.Connections = nil
				}
				if _, ok := q["rates"]; ok {
					s.Experiment.QA.Rates = nil
				}
			}
		}
		if _, ok := probe["perturbation"]; ok {
			s.Perturbations = nil
		}
		if o, ok := probe["observe"].(map[string]any); ok {
			if _, ok := o["metrics"]; ok {
				s.Observe.Metrics = nil
			}
			if _, ok := o["profiles"]; ok {
				s.Observe.Profiles = nil
			}
		}
	}
	if s.Testnet.sections == nil {
		s.Testnet.sections = freshSections()
	}
	// The scenario's own tables first; the keys of a chain's table are
	// that chain's, decoded next into its section, as strictly.
	inChain := func(key string) bool {
		_, ok := chainNamed(chainTable(key))
		return ok
	}
	if err := explain(file, data, decodeStrict(data, s), func(k string) bool { return !inChain(k) }); err != nil {
		return err
	}
	for _, c := range registered() {
		if err := decodeSection(file, data, s, c); err != nil {
			return err
		}
	}
	return nil
}

// chainTable is the chain a key is under when it is under
// testnet.<chain> ("" when not).
func chainTable(key string) string {
	rest, ok := strings.CutPrefix(key, "testnet.")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, ".")
	return name
}

// decodeStrict decodes data into v, refusing keys v has no field for.
func decodeStrict(data []byte, v any) error {
	return toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().EnableUnmarshalerInterface().Decode(v)
}

// decodeSection decodes chain c's [testnet.<c.Name>] table of data into
// s's section of it: through a struct that holds that table alone, so
// that its keys are as strictly checked as the scenario's own.
func decodeSection(file string, data []byte, s *Scenario, c ChainSection) error {
	sec := reflect.ValueOf(s.Testnet.sections[c.Name])
	if !sec.IsValid() {
		sec = reflect.ValueOf(c.New())
		s.Testnet.sections[c.Name] = sec.Interface()
	}
	table := reflect.StructOf([]reflect.StructField{{Name: "S", Type: sec.Type().Elem(), Tag: reflect.StructTag(`toml:"` + c.Name + `"`)}})
	holder := reflect.New(reflect.StructOf([]reflect.StructField{{Name: "T", Type: table, Tag: `toml:"testnet"`}}))
	into := holder.Elem().Field(0).Field(0)
	into.Set(sec.Elem())
	err := explain(file, data, decodeStrict(data, holder.Interface()), func(k string) bool { return chainTable(k) == c.Name })
	sec.Elem().Set(into)
	return err
}

// explain says a decoder's error in the scenario's words, with its
// file:line; of the unknown keys it says those mine holds (nil when none).
func explain(file string, data []byte, err error, mine func(key string) bool) error {
	if err == nil {
		return nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var errs []error
		for _, e := range strict.Errors {
			row, _ := e.Position()
			key := strings.Join(e.Key(), ".")
			if !mine(key) {
				continue
			}
			msg := fmt.Sprintf("unknown key %q", shorten(key))
			if s := suggest.Closest(key, knownKeys()); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			errs = append(errs, &Error{Pos: fmt.Sprintf("%s:%d", file, row), Msg: msg})
		}
		return errors.Join(errs...)
	}
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	// A value of the wrong type: say so in the scenario's words.
	if m := wrongType.FindStringSubmatch(msg); m != nil {
		row := lineOf(err)
		key := shorten(keyAt(data, row))
		return &Error{Pos: fmt.Sprintf("%s:%d", file, row), Msg: fmt.Sprintf("%s must be %s, got %s", key, typeWords(m[2]), m[1])}
	}
	// A key or table defined twice: the line of the second one.
	if m := defined.FindStringSubmatch(msg); m != nil {
		name, table := m[1], m[2] != ""
		if table {
			name = m[2]
		}
		return &Error{Pos: fmt.Sprintf("%s:%d", file, secondDefinition(data, name, table)), Msg: shorten(name) + " is defined twice"}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		if k := de.Key(); len(k) > 0 {
			msg = shorten(strings.Join(k, ".")) + ": " + msg
		}
		return &Error{Pos: fmt.Sprintf("%s:%d", file, row), Msg: msg}
	}
	// Errors of our own decoders (Kinds) start with the key they are about.
	key, _, _ := strings.Cut(msg, ": ")
	return &Error{Pos: indexLines(data).at(file, key), Msg: msg}
}

var (
	wrongType = regexp.MustCompile(`cannot decode TOML (\w+) into struct field .+ of type (\S+)$`)
	defined   = regexp.MustCompile(`^(?:key (\S+) is already defined|table (\S+) already exists)`)
)

// lineOf is the line an error of the decoder points at (1 when none).
func lineOf(err error) int {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return row
	}
	var se interface{ Position() (int, int) }
	if errors.As(err, &se) {
		row, _ := se.Position()
		return row
	}
	return 1
}

// keyAt is the dotted key set on line row: its table's name and the text
// before "=".
func keyAt(data []byte, row int) string {
	table := ""
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			table = strings.Trim(t, "[] ")
		}
		if i+1 == row {
			k, _, _ := strings.Cut(t, "=")
			k = strings.Trim(strings.TrimSpace(k), `"`)
			if table != "" {
				return table + "." + k
			}
			return k
		}
	}
	return "a value"
}

// secondDefinition is the line where key (or table) is set the second
// time, 1 when it cannot be found.
func secondDefinition(data []byte, key string, table bool) int {
	seen := 0
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		var hit bool
		if table {
			hit = strings.Trim(t, "[] ") == key && strings.HasPrefix(t, "[")
		} else {
			// A bare key is the last part of the name; a quoted one such
			// as "consensus.timeout_commit" may hold dots of its own.
			k, _, ok := strings.Cut(t, "=")
			k = strings.Trim(strings.TrimSpace(k), `"`)
			hit = ok && k != "" && (k == key || strings.HasSuffix(key, "."+k))
		}
		if hit {
			if seen++; seen == 2 {
				return i + 1
			}
		}
	}
	return 1
}

// typeWords says a Go field type as the scenario's words.
func typeWords(goType string) string {
	switch {
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
		return "an integer"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case strings.HasSuffix(goType, "Duration"):
		return `a duration such as "30s"`
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	return "a table"
}

// shorten keeps a key readable in a message: a long one is cut.
func shorten(key string) string {
	if len(key) <= 60 {
		return key
	}
	return key[:57] + "..."
}

// knownKeys lists every dotted key and table a scenario may set, from the
// struct tags.
func knownKeys() []string {
	var keys []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("toml")
			if tag == "" || tag == "-" {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft.NumField() > 0 && ft.Field(0).Tag.Get("toml") != "" {
				keys = append(keys, prefix+tag) // a table: [testnett] means [testnet]
				walk(ft, prefix+tag+".")
				continue
			}
			keys = append(keys, prefix+tag)
		}
	}
	walk(reflect.TypeOf(Scenario{}), "")
	for _, c := range registered() {
		keys = append(keys, "testnet."+c.Name)
		walk(reflect.TypeOf(c.New()).Elem(), "testnet."+c.Name+".")
	}
	sort.Strings(keys)
	return keys
}

// Flatten turns nested tables into "a.b" keys: [testnet.config.consensus]
// timeout_commit and "consensus.timeout_commit" mean the same.
func Flatten(m map[string]any) map[string]any {
	out := map[string]any{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			out[prefix+k] = v
		}
	}
	walk("", m)
	return out
}

// Check validates s again after a program changed it (command-line flags
// over a scenario); errors name the scenario file without a line.
func (s *Scenario) Check() error {
	return errors.Join(s.validate(lines{})...)
}
