package observe

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// A txJSON is what the follower reads of one tx's result.
type txJSON struct {
	Code uint32 `json:"code"`
	Gas  int64  `json:"gas_used,string"`
	Log  string `json:"log"`
	Data []byte `json:"data"` // base64 in the JSON
}

// resultsJSON is a block_results answer as encoding/json reads it: the
// follower's reading of what readResults declines.
type resultsJSON struct {
	Result *struct {
		TxsResults []txJSON `json:"txs_results"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
		Data    string `json:"data"`
	} `json:"error"`
}

// readResults reads the txs_results of a block_results answer in one
// pass: each tx's code, gas_used, log and data (field), everything else
// (the events, most of the answer) checked as JSON and skipped without
// being decoded. encoding/json's Unmarshal scans the whole answer twice
// and walks every event: it was most of the follower's CPU (4 times this
// on 625 kvstore txs). ok is false where the answer is not in the shape
// CometBFT writes (an error, no result, a key encoding/json may take as
// one of ours in another spelling, result or txs_results twice, what is
// not JSON): the caller decodes it with encoding/json then, so both
// readings agree (FuzzReadResults).
func readResults(data []byte) (txs []txJSON, ok bool) {
	s := scan{b: data}
	if !s.object(func(key []byte) bool {
		switch {
		case string(key) == "result":
			if s.peek() != '{' {
				return false
			}
			return s.object(func(key []byte) bool {
				if string(key) != "txs_results" {
					return !ours(key, "txs_results") && s.skip()
				}
				if s.literal("null") {
					return true
				}
				txs = []txJSON{}
				return s.array(func() bool {
					var t txJSON
					if !s.object(func(key []byte) bool { return s.field(key, &t) }) {
						return false
					}
					txs = append(txs, t)
					return true
				})
			}, "txs_results")
		case ours(key, "result", "error"):
			return false // the error answer, or a key in another case
		}
		return s.skip()
	}, "result") {
		return nil, false
	}
	s.ws()
	if s.i != len(s.b) || txs == nil && !s.sawResult {
		return nil, false
	}
	return txs, true
}

// ours is whether key may be one of names as encoding/json matches
// keys: in another case, escaped, or not ASCII (it folds some letters
// beyond ASCII). Then the answer is read by encoding/json.
func ours(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= 0x80 || c == '\\' {
			return true
		}
	}
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// field decodes one key of a tx's result into t, skipping the others.
// The values CometBFT writes (a code in digits, gas in quoted digits, an
// empty or plain ASCII log, a null data) are read here; any other value
// by encoding/json from its own bytes, as a field of the struct.
func (s *scan) field(key []byte, t *txJSON) bool {
	switch string(key) {
	case "code", "log", "data", "gas_used":
	default:
		return !ours(key, "code", "log", "data", "gas_used") && s.skip()
	}
	s.ws()
	start := s.i
	if !s.skip() {
		return false
	}
	v := s.b[start:s.i]
	switch string(key) {
	case "code":
		if n, err := strconv.ParseUint(string(v), 10, 32); err == nil && plainDigits(v) {
			t.Code = uint32(n)
			return true
		}
	case "gas_used":
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && plainDigits(v[1:len(v)-1]) {
			if n, err := strconv.ParseInt(string(v[1:len(v)-1]), 10, 64); err == nil {
				t.Gas = n
				return true
			}
		}
	case "log":
		if plainString(v) {
			t.Log = string(v[1 : len(v)-1])
			return true
		}
	case "data":
		if string(v) == "null" {
			t.Data = nil // as encoding/json sets a slice
			return true
		}
	}
	// As a field of a struct, as encoding/json reads it: a null leaves
	// what an earlier key of the same name set.
	doc := append(append(append(append([]byte(`{"`), key...), `":`...), v...), '}')
	return json.Unmarshal(doc, t) == nil
}

// plainDigits: one or more ASCII digits, no leading zero but "0" itself.
func plainDigits(v []byte) bool {
	if len(v) == 0 || len(v) > 1 && v[0] == '0' {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plainString: a quoted string of printable ASCII without escapes, which
// reads as its bytes.
func plainString(v []byte) bool {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return false
	}
	for _, c := range v[1 : len(v)-1] {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// scan walks JSON text, checking it as encoding/json's Valid does.
type scan struct {
	b         []byte
	i         int
	sawResult bool
	depth     int
}

// maxDepth bounds nesting, as encoding/json's 10,000.
const maxDepth = 10000

func (s *scan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scan) literal(l string) bool {
	s.ws()
	if bytes.HasPrefix(s.b[s.i:], []byte(l)) {
		s.i += len(l)
		return true
	}
	return false
}

// object walks an object, calling each for each key with the scanner at
// its value, which each must consume. A key in once (of onceKeys) seen
// twice ends it with false; "result" at the top is noted.
func (s *scan) object(each func(key []byte) bool, onceKeys ...string) bool {
	if s.peek() != '{' {
		return false
	}
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++
	var seen map[string]bool
	if len(onceKeys) > 0 {
		seen = map[string]bool{}
	}
	if s.peek() == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		start := s.i + 1
		if !s.str() {
			return false
		}
		key := s.b[start : s.i-1]
		for _, k := range onceKeys {
			if string(key) == k {
				if seen[k] {
					return false
				}
				seen[k] = true
				if k == "result" && s.depth == 1 {
					s.sawResult = true
				}
			}
		}
		if s.peek() != ':' {
			return false
		}
		s.i++
		if !each(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

func (s *scan) array(each func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !each() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// skip checks and passes one value.
func (s *scan) skip() bool {
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) bool { return s.skip() })
	case c == '[':
		return s.array(s.skip)
	case c == '"':
		return s.str()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return false
}

// str passes a string, at its opening quote: escapes checked, control
// characters refused; other bytes taken as they are (encoding/json
// takes invalid UTF-8 too).
func (s *scan) str() bool {
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c != '\\':
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return false
		}
		switch s.b[s.i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.i += 2
		case 'u':
			if s.i+6 > len(s.b) {
				return false
			}
			for _, h := range s.b[s.i+2 : s.i+6] {
				if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
					return false
				}
			}
			s.i += 6
		default:
			return false
		}
	}
	return false
}

// number passes a number as JSON writes one.
func (s *scan) number() bool {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
