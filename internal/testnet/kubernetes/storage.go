package kubernetes

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chainperf/chainperf/internal/testnet"
)

// claimHome makes n's home a PersistentVolumeClaim when the scenario
// names a storage class: its pod, made again after a kill or a restart,
// mounts the same volume (the node's data and signing state kept).
func (p *Provider) claimHome(ctx context.Context, n *testnet.Node) error {
	if p.spec.StorageClass == "" {
		return nil
	}
	size, err := resource.ParseQuantity(p.spec.StorageSize)
	if err != nil {
		return fmt.Errorf("testnet.kubernetes.storage_size: %w", err)
	}
	class := p.spec.StorageClass
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: p.meta(n, homeClaim),
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}
	if _, err := p.cs.CoreV1().PersistentVolumeClaims(p.ns).Create(ctx, pvc, p.create()); err != nil && !madeBefore(ctx, err, pvc.Labels,
		func(ctx context.Context) (metav1.Object, error) {
			return p.cs.CoreV1().PersistentVolumeClaims(p.ns).Get(ctx, pvc.Name, metav1.GetOptions{})
		}) {
		return fmt.Errorf("create the claim %s for its home: %w", pvc.Name, err)
	}
	return nil
}

// homeClaim ends the name of a node's home claim (validator0-home).
const homeClaim = "-home"

// KeepsHome says whether a node this provider starts again finds its
// home as it was: with a storage class, its claim; without, its pod's
// emptyDir is new.
func (p *Provider) KeepsHome() bool { return p.spec.StorageClass != "" }
