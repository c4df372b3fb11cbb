package results

import (
	"fmt"
	"slices"
	"strings"
)

// NodeVersions says which nodes ran what, one line a group of nodes that
// were started on the same binary and said the same versions (/status)
// at the start and the end: "module:...@v0.38.26: validator2, validator3
// (said 0.38.26)", "embedded: validator0 (said 0.38.19, then 0.38.26)".
// A run whose nodes all ran one binary that said one version gets none.
func (r *Run) NodeVersions() []string {
	type key struct{ version, said string }
	var order []key
	groups := map[key][]string{}
	for _, n := range r.Nodes {
		if (n.Version == "" && n.Reported == "") || n.Role == "rotating" {
			continue // a rotating node comes and goes: the rotations table says it
		}
		said := n.Reported
		if n.ReportedEnd != "" && n.ReportedEnd != n.Reported {
			said = fmt.Sprintf("%s, then %s", n.Reported, n.ReportedEnd)
		}
		version := n.Version
		if n.VersionEnd != "" && n.VersionEnd != n.Version {
			version += " -> " + n.VersionEnd
		}
		k := key{version, said}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], n.Name)
	}
	changed := func(k key) bool { return strings.Contains(k.said, ", then ") || strings.Contains(k.version, " -> ") }
	if len(order) < 2 && !slices.ContainsFunc(order, changed) {
		return nil
	}
	var out []string
	for _, k := range order {
		line := strings.Join(groups[k], ", ")
		if k.version != "" {
			line = k.version + ": " + line
		}
		if k.said != "" {
			line += " (said " + k.said + ")"
		}
		out = append(out, line)
	}
	return out
}
