package kubernetes

import (
	"os"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// kube/rbac's Role grants exactly the rights preflight checks, and its
// ClusterRole those and namespaces: a right added to one and not the
// other fails here.
func TestRolesGrantTheRights(t *testing.T) {
	for _, c := range []struct {
		file, kind string
		want       []Right
	}{
		{"../../../kube/rbac/role.yaml", "Role", NamespaceRights},
		{"../../../kube/rbac/clusterrole.yaml", "ClusterRole", append(append([]Right(nil), ClusterRights...), NamespaceRights...)},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		granted := map[string]bool{}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			var r struct {
				Kind  string              `json:"kind"`
				Rules []rbacv1.PolicyRule `json:"rules"`
			}
			if err := yaml.Unmarshal([]byte(doc), &r); err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			if r.Kind != c.kind {
				continue
			}
			for _, rule := range r.Rules {
				for _, g := range rule.APIGroups {
					for _, res := range rule.Resources {
						for _, v := range rule.Verbs {
							granted[g+" "+res+" "+v] = true
						}
					}
				}
			}
		}
		var want []string
		for _, r := range c.want {
			for _, v := range r.Verbs {
				want = append(want, r.Group+" "+r.Resource+" "+v)
			}
		}
		for _, w := range want {
			if !granted[w] {
				t.Errorf("%s does not grant %q, which preflight checks", c.file, w)
			}
		}
		for g := range granted {
			if !slices.Contains(want, g) {
				t.Errorf("%s grants %q, which preflight does not check", c.file, g)
			}
		}
	}
}
