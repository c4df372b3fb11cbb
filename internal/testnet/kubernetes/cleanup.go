package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// Remove deletes what testnet id left in cluster c (for `down` and
// `clean` after its harness is gone).
func Remove(ctx context.Context, c testnet.Cluster, id string) error {
	cfg, err := Config(scenario.Kubernetes{Kubeconfig: c.Kubeconfig, Context: c.Context})
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return remove(ctx, cs, c, id)
}

func remove(ctx context.Context, cs kubernetes.Interface, c testnet.Cluster, id string) error {
	if c.OwnNamespace {
		return DeleteNamespace(ctx, cs, c.Namespace)
	}
	zero := int64(0)
	sel := metav1.ListOptions{LabelSelector: LabelManaged + "=chainperf," + LabelTestnet + "=" + id}
	bgp := metav1.DeletePropagationBackground
	return errors.Join(
		cs.BatchV1().Jobs(c.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero, PropagationPolicy: &bgp}, sel),
		cs.CoreV1().Pods(c.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, sel),
		cs.CoreV1().ConfigMaps(c.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel),
		cs.CoreV1().Secrets(c.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel),
		cs.CoreV1().PersistentVolumeClaims(c.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel))
}

// Leftovers deletes the namespaces this machine's registry made (by label)
// in the cluster of the default kubeconfig whose testnet is not in keep,
// and returns their testnet IDs. No kubeconfig: nothing to do.
func Leftovers(ctx context.Context, keep map[string]bool) ([]string, error) {
	cfg, err := Config(scenario.Kubernetes{})
	if err != nil {
		return nil, nil
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: LabelManaged + "=chainperf," + LabelRegistry + "=" + testnet.RegistryKey()})
	if err != nil {
		return nil, fmt.Errorf("list chainperf's namespaces at %s: %w", cfg.Host, err)
	}
	var gone []string
	var errs []error
	for _, ns := range list.Items {
		id := ns.Labels[LabelTestnet]
		if keep[id] || ns.Name != testnet.ClusterNamespace(id) {
			continue
		}
		if err := DeleteNamespace(ctx, cs, ns.Name); err != nil {
			errs = append(errs, err)
			continue
		}
		gone = append(gone, id)
	}
	return gone, errors.Join(errs...)
}

// DeleteNamespace deletes ns with its pods at once and waits (up to two
// minutes) until it is gone; one already gone is not an error.
func DeleteNamespace(ctx context.Context, cs kubernetes.Interface, ns string) error {
	zero := int64(0)
	err := cs.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete the pods of namespace %s: %w", ns, err)
	}
	err = cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete namespace %s: %w", ns, err)
	}
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); {
		if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("namespace %s still there two minutes after its deletion", ns)
}
