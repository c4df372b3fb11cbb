package kubernetes

import (
	"context"
	"fmt"
	"strings"

	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/chainperf/chainperf/internal/scenario"
)

// A Right is one thing chainperf does through the API server: a verb on
// a resource (group "" is the core group; a subresource after a '/').
type Right struct {
	Group, Resource string
	Verbs           []string
}

// NamespaceRights are what chainperf needs in the namespace it runs in;
// kube/rbac/role.yaml grants exactly these (TestRolesGrantTheRights).
var NamespaceRights = []Right{
	{"", "pods", []string{"create", "get", "list", "delete", "deletecollection"}},
	{"", "pods/log", []string{"get"}},
	{"", "pods/portforward", []string{"create"}},
	{"", "configmaps", []string{"create", "delete", "deletecollection"}},
	{"", "secrets", []string{"create", "delete", "deletecollection"}},
	{"", "persistentvolumeclaims", []string{"create", "delete", "deletecollection"}},
	{"batch", "jobs", []string{"create", "delete", "deletecollection"}},
}

// ClusterRights are what a namespace per testnet adds (clusterrole.yaml).
var ClusterRights = []Right{{"", "namespaces", []string{"create", "get", "list", "delete"}}}

// missingRights asks the API server, one SelfSubjectAccessReview a verb
// (which anyone may make), what of the rights the scenario needs this
// kubeconfig lacks, in its namespace (every namespace when chainperf makes
// its own), and names each: "create persistentvolumeclaims".
func missingRights(ctx context.Context, cs kubernetes.Interface, k scenario.Kubernetes) ([]string, error) {
	rights := NamespaceRights
	if k.StorageClass == "" {
		rights = withoutResource(rights, "persistentvolumeclaims")
	}
	if k.Reach != scenario.ReachAPI && k.Harness != scenario.HarnessPod {
		rights = withoutResource(rights, "pods/portforward")
	}
	if k.Namespace == "" {
		rights = append(append([]Right(nil), ClusterRights...), rights...)
	}
	var missing []string
	for _, r := range rights {
		res, sub, _ := strings.Cut(r.Resource, "/")
		for _, verb := range r.Verbs {
			ra := &authzv1.ResourceAttributes{Namespace: k.Namespace, Verb: verb, Group: r.Group, Resource: res, Subresource: sub}
			if r.Resource == "namespaces" {
				ra.Namespace = ""
			}
			review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
				&authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{ResourceAttributes: ra}}, metav1.CreateOptions{})
			if err != nil {
				return nil, fmt.Errorf("ask the cluster what this kubeconfig may do: %w", err)
			}
			if !review.Status.Allowed {
				missing = append(missing, verb+" "+r.Resource)
			}
		}
	}
	return missing, nil
}

func withoutResource(rights []Right, resource string) []Right {
	var out []Right
	for _, r := range rights {
		if r.Resource != resource {
			out = append(out, r)
		}
	}
	return out
}

// podSecurity says why the namespace chainperf is given would refuse its
// nodes' pods (NET_ADMIN, for the fault agent): a pod security level
// below "privileged" enforced on it. A namespace it may not read is not
// judged here (its pods' admission says it).
func podSecurity(ctx context.Context, cs kubernetes.Interface, ns string) string {
	if ns == "" {
		return "" // chainperf's own namespaces are labelled privileged
	}
	n, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	if level := n.Labels["pod-security.kubernetes.io/enforce"]; level != "" && level != "privileged" {
		return fmt.Sprintf("namespace %s enforces the %q pod security level, which refuses the nodes' pods (NET_ADMIN, for the fault agent): label it pod-security.kubernetes.io/enforce=privileged", ns, level)
	}
	return ""
}
