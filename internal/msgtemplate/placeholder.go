package msgtemplate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chainperf/chainperf/internal/suggest"
)

// Vars are one message's values for the placeholders.
type Vars struct {
	Wallet string // the tx's sender
	Other  string // another wallet (the workload's receivers)
	Denom  string
	N      uint64 // the message's number in the run: {counter}, and the seed of {int} and {choice}
	Seed   uint64
}

// Builtins are the placeholders every template may use; set-up steps bind
// more by name.
var Builtins = []string{"wallet", "other", "denom", "counter", "int", "choice", "file", "module"}

// The placeholders whose value is a number: a string that is one of them
// alone is a JSON number in a message's raw JSON (a contract's msg).
var numeric = map[string]bool{"counter": true, "int": true}

// A ph is one placeholder in a string: {name} or {name:arg}.
type ph struct {
	name    string
	lo, hi  int64    // {int:lo:hi}
	choices []string // {choice:a|b|c}
	arg     string   // {file:path}, {module:path}
	salt    uint64   // sets one placeholder's random draws apart from another's
	bound   []string // a set-up step's answers: one drawn per message
	isBound bool
}

// A seg is a literal run of a string or a placeholder.
type seg struct {
	lit string
	ph  *ph
}

// segments splits s at its placeholders; "{{" and "}}" are literal braces.
// bound holds the names set-up steps bind (values may be empty while only
// checking); salt numbers the placeholders for their random draws.
func segments(s string, bound map[string][]string, salt *uint64) ([]seg, error) {
	var out []seg
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte(c)
			i++
		case c == '}':
			return nil, fmt.Errorf("%q: a lone '}' (write }} for a literal one)", s)
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%q: a '{' with no '}' (write {{ for a literal brace)", s)
			}
			*salt++
			p, err := parsePH(s[i+1:i+end], bound, *salt)
			if err != nil {
				return nil, err
			}
			if lit.Len() > 0 {
				out = append(out, seg{lit: lit.String()})
				lit.Reset()
			}
			out = append(out, seg{ph: p})
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 || len(out) == 0 {
		out = append(out, seg{lit: lit.String()})
	}
	return out, nil
}

func parsePH(body string, bound map[string][]string, salt uint64) (*ph, error) {
	name, arg, hasArg := strings.Cut(body, ":")
	p := &ph{name: name, arg: arg, salt: salt}
	switch name {
	case "wallet", "other", "denom", "counter":
		if hasArg {
			return nil, fmt.Errorf("{%s} takes no argument", body)
		}
	case "int":
		lo, hi, ok := strings.Cut(arg, ":")
		var err1, err2 error
		p.lo, err1 = strconv.ParseInt(lo, 10, 64)
		p.hi, err2 = strconv.ParseInt(hi, 10, 64)
		if !ok || err1 != nil || err2 != nil || p.hi < p.lo {
			return nil, fmt.Errorf("{%s}: want {int:LOW:HIGH}, two integers, LOW <= HIGH", body)
		}
	case "choice":
		p.choices = strings.Split(arg, "|")
		if !hasArg || slices.Contains(p.choices, "") {
			return nil, fmt.Errorf("{%s}: want {choice:a|b|c}, none of them empty", body)
		}
	case "file", "module":
		if arg == "" {
			return nil, fmt.Errorf("{%s}: want {%s:PATH}", body, name)
		}
	default:
		v, ok := bound[name]
		if !ok {
			return nil, fmt.Errorf("{%s}: no such placeholder: the built-in ones are %s, and set-up steps bind %s%s",
				body, strings.Join(Builtins, ", "), boundList(bound), didYouMean(name, append(slices.Clone(Builtins), keys(bound)...)))
		}
		if hasArg {
			return nil, fmt.Errorf("{%s}: a bound value takes no argument", body)
		}
		p.bound, p.isBound = v, true
	}
	return p, nil
}

func boundList(bound map[string][]string) string {
	if len(bound) == 0 {
		return "none"
	}
	return strings.Join(keys(bound), ", ")
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// value is the placeholder's text for one message.
func (p *ph) value(v *Vars) string {
	switch p.name {
	case "wallet":
		return v.Wallet
	case "other":
		return v.Other
	case "denom":
		return v.Denom
	case "counter":
		return strconv.FormatUint(v.N, 10)
	case "int":
		span := uint64(p.hi-p.lo) + 1
		r := mix64(v.N ^ v.Seed ^ p.salt*0x9e3779b97f4a7c15)
		if span == 0 { // the whole int64 range
			return strconv.FormatInt(int64(r), 10)
		}
		return strconv.FormatInt(p.lo+int64(r%span), 10)
	case "choice":
		return p.choices[mix64(v.N^v.Seed^p.salt*0xbf58476d1ce4e5b9)%uint64(len(p.choices))]
	}
	switch len(p.bound) {
	case 0:
		return ""
	case 1:
		return p.bound[0]
	}
	return p.bound[mix64(v.N^v.Seed^p.salt*0x94d049bb133111eb)%uint64(len(p.bound))]
}

// resolve is the string segs make for one message.
func resolve(segs []seg, v *Vars) string {
	if len(segs) == 1 {
		if segs[0].ph == nil {
			return segs[0].lit
		}
		return segs[0].ph.value(v)
	}
	var b strings.Builder
	for _, s := range segs {
		if s.ph == nil {
			b.WriteString(s.lit)
		} else {
			b.WriteString(s.ph.value(v))
		}
	}
	return b.String()
}

// constant says whether segs hold no placeholder that changes per message.
func constant(segs []seg) bool {
	for _, s := range segs {
		if s.ph != nil && !(s.ph.isBound && len(s.ph.bound) <= 1) && s.ph.name != "file" && s.ph.name != "module" {
			return false
		}
	}
	return true
}

func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// didYouMean is "; did you mean %q?" for the nearest of names to s, or "".
func didYouMean(s string, names []string) string {
	if best := suggest.Closest(s, names); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}
